package atf

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Thread is one thread folder: its index file and, when detail.atf exists
// (existence decides, as in the reference; the header flag is only written at
// finalize), its detail file.
type Thread struct {
	ID     uint32 // from the folder name thread_<ID>, else the index header
	Dir    string
	Index  *IndexFile
	Detail *DetailFile // nil when there is no detail.atf
}

// NewThread pairs files opened by the caller; detail may be nil.
func NewThread(id uint32, index *IndexFile, detail *DetailFile) *Thread {
	return &Thread{ID: id, Index: index, Detail: detail}
}

// OpenThread opens dir/index.atf and, if present, dir/detail.atf. A zero-byte
// index (what a SIGKILL leaves when stdio never flushed) or one cut inside its
// header is an empty, recovered thread rather than an error, so one such file
// does not sink a whole session; a shorter-than-header detail.atf likewise
// yields no detail events. Only regular files are read (see OpenIndexFile).
// Close releases the files.
func OpenThread(dir string, opts ...ReaderOption) (*Thread, error) {
	t := &Thread{Dir: dir}
	var err error
	if t.Index, err = openThreadIndex(filepath.Join(dir, "index.atf"), opts); err != nil {
		return nil, err
	}
	t.Detail, err = openThreadDetail(filepath.Join(dir, "detail.atf"), opts)
	if err != nil {
		t.Close()
		return nil, err
	}
	t.ID = t.Index.hdr.ThreadID
	if id, ok := threadDirID(filepath.Base(dir)); ok {
		t.ID = id
	}
	return t, nil
}

func threadDirID(name string) (uint32, bool) {
	s, ok := strings.CutPrefix(name, "thread_")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 32)
	return uint32(v), err == nil
}

// cutHeader reports whether a file shorter than a header holds nothing but
// (a prefix of) the right magic: a header cut off by a crash.
func cutHeader(f *os.File, size int64, magic string) bool {
	if size >= HeaderSize {
		return false
	}
	var b [4]byte
	n := min(int(size), 4)
	if _, err := f.ReadAt(b[:n], 0); err != nil {
		return false
	}
	return string(b[:n]) == magic[:n]
}

func openThreadIndex(path string, opts []ReaderOption) (*IndexFile, error) {
	f, size, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	if cutHeader(f, size, IndexMagic) {
		f.Close()
		return &IndexFile{recovered: true, discarded: size, eventsOff: HeaderSize}, nil
	}
	r, err := OpenIndex(f, size, opts...)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

func openThreadDetail(path string, opts []ReaderOption) (*DetailFile, error) {
	f, size, err := openRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if cutHeader(f, size, DetailMagic) {
		f.Close()
		return &DetailFile{recovered: true, discarded: size, eventsOff: HeaderSize, end: HeaderSize}, nil
	}
	d, err := OpenDetail(f, size, opts...)
	if err != nil {
		f.Close()
		return nil, err
	}
	d.closer = f
	return d, nil
}

// Recovered reports whether the index or the detail file had no valid footer.
func (t *Thread) Recovered() bool {
	return t.Index.Recovered() || (t.Detail != nil && t.Detail.Recovered())
}

// DetailLen is the number of detail events (0 without a detail file).
func (t *Thread) DetailLen() uint64 {
	if t.Detail == nil {
		return 0
	}
	return t.Detail.Len()
}

// DetailFor follows e's forward link. ok is false when e has no detail event
// or the thread has none to give (no detail.atf, or a crash lost it).
func (t *Thread) DetailFor(e IndexEvent, buf []byte) (d DetailEvent, ok bool, err error) {
	if e.DetailSeq == NoDetail || t.Detail == nil || uint64(e.DetailSeq) >= t.Detail.Len() {
		return DetailEvent{}, false, nil
	}
	d, err = t.Detail.EventInto(uint64(e.DetailSeq), buf)
	return d, err == nil, err
}

// IndexFor follows d's back link to its index event.
func (t *Thread) IndexFor(d DetailEvent) (IndexEvent, error) {
	return t.Index.Event(uint64(d.IndexSeq))
}

// CheckLinks verifies that every detail event's back link names an index event
// whose forward link names it back, and that every forward link of the index
// points at an existing detail event (a recovered detail file may have lost
// the tail the index still links to; those links are not errors).
func (t *Thread) CheckLinks() error {
	var linked uint64
	it := t.Index.Events(0)
	for it.Next() {
		e := it.Event()
		if e.DetailSeq == NoDetail {
			continue
		}
		linked++
		if t.Detail == nil || uint64(e.DetailSeq) >= t.Detail.Len() {
			if t.Detail != nil && t.Detail.Recovered() {
				continue
			}
			return newError(t.Index.eventsOff+int64(it.Seq())*IndexEventSize+28, ErrCorrupt, "index event %d links to detail event %d, which does not exist", it.Seq(), e.DetailSeq)
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if t.Detail == nil {
		return nil
	}
	dit := t.Detail.Events()
	for dit.Next() {
		d := dit.Event()
		off, _ := t.Detail.Offset(dit.Seq())
		e, err := t.Index.Event(uint64(d.IndexSeq))
		if err != nil {
			if t.Index.Recovered() {
				continue
			}
			return newError(off+8, ErrCorrupt, "detail event %d links back to index event %d, which does not exist", dit.Seq(), d.IndexSeq)
		}
		if uint64(e.DetailSeq) != dit.Seq() {
			return newError(off+8, ErrCorrupt, "detail event %d links back to index event %d, whose detail_seq is %d", dit.Seq(), d.IndexSeq, e.DetailSeq)
		}
	}
	return dit.Err()
}

// Close closes the thread's index and detail files (see IndexFile.Close).
func (t *Thread) Close() error {
	err := t.Index.Close()
	if t.Detail != nil {
		if derr := t.Detail.Close(); err == nil {
			err = derr
		}
	}
	return err
}
