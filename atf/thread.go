package atf

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
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
	return openThread(dir, opts, false)
}

// openThread is OpenThread; noDetail leaves detail.atf unread (a session
// found it to be a link it does not follow).
func openThread(dir string, opts []ReaderOption, noDetail bool) (*Thread, error) {
	o, err := buildReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	t := &Thread{Dir: dir}
	if t.Index, err = openThreadIndex(filepath.Join(dir, "index.atf"), opts, o.mmap); err != nil {
		return nil, err
	}
	if !noDetail {
		t.Detail, err = openThreadDetail(filepath.Join(dir, "detail.atf"), opts, o.mmap)
	}
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
	// Only the canonical spelling the writer makes (fmt "thread_%d"): the
	// session opens thread_N by its id, so thread_00 or thread_+1 would be
	// read as thread_0 or thread_1, or twice.
	return uint32(v), err == nil && strconv.FormatUint(v, 10) == s
}

// cutHeader reports whether a file shorter than a header holds nothing but
// (a prefix of) the right magic: a header cut off by a crash.
func cutHeader(src *source, magic string) bool {
	if src.size >= HeaderSize {
		return false
	}
	var b [4]byte
	n := min(int(src.size), 4)
	if err := src.readAt(b[:n], 0); err != nil {
		return false
	}
	return string(b[:n]) == magic[:n]
}

func openThreadIndex(path string, opts []ReaderOption, mapped bool) (*IndexFile, error) {
	src, c, err := openFileSource(path, mapped)
	if err != nil {
		return nil, err
	}
	if cutHeader(&src, IndexMagic) {
		c.Close()
		return cutIndex(src.size), nil
	}
	r, err := openIndex(src, opts)
	if err != nil {
		c.Close()
		return nil, err
	}
	r.closer = c
	return r, nil
}

func openThreadDetail(path string, opts []ReaderOption, mapped bool) (*DetailFile, error) {
	src, c, err := openFileSource(path, mapped)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if cutHeader(&src, DetailMagic) {
		c.Close()
		return cutDetail(src.size), nil
	}
	populateMapping(c)
	d, err := openDetail(src, opts)
	if err != nil {
		c.Close()
		return nil, err
	}
	d.closer = c
	return d, nil
}

// Recovered reports whether the index or the detail file had no valid footer.
func (t *Thread) Recovered() bool {
	return t.Index.Recovered() || (t.Detail != nil && t.Detail.Recovered())
}

// ReadBytes is the number of bytes of the thread's files that were read:
// their sizes less the bytes dropped (Discarded). Recovery summaries
// (Summarize) take the sum over a session's threads.
func (t *Thread) ReadBytes() int64 {
	n := t.Index.Size() - t.Index.Discarded()
	if t.Detail != nil {
		n += t.Detail.Size() - t.Detail.Discarded()
	}
	return n
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

// Problems lists what opening the thread's files recovered from or found
// inconsistent (see IndexFile.Problems and DetailFile.Problems), with paths
// under the thread folder's name. It does not follow the links: Check does.
func (t *Thread) Problems() []Problem {
	ps := withPath(t.Index.Problems(), t.fileName("index.atf"))
	if t.Detail != nil {
		ps = append(ps, withPath(t.Detail.Problems(), t.fileName("detail.atf"))...)
	}
	return ps
}

func (t *Thread) fileName(name string) string {
	if t.Dir == "" {
		return name
	}
	return filepath.Join(filepath.Base(t.Dir), name)
}

// Check is Problems plus a walk over every link: index events whose forward
// link names a detail record that does not exist (dangling: lost with a
// crash, a full disk or a missing detail.atf), detail records whose back
// link names an index event that does not exist (orphaned), links that
// disagree (a back link to an index event that links elsewhere, two index
// events claiming one record), and header fields the walk can check (the
// has-detail flag, the detail header's index_seq range). Each kind is one
// Problem per file with a count and the offset of the first occurrence. An
// error means a read failed; no problems and no error means the thread is
// clean.
func (t *Thread) Check() ([]Problem, error) {
	ps := t.Problems()
	iname, dname := t.fileName("index.atf"), t.fileName("detail.atf")
	var dlen uint64
	if t.Detail != nil {
		dlen = t.Detail.Len()
	}
	// Forward links.
	var dangling, dup uint64
	danglingOff, dupOff := int64(-1), int64(-1)
	last := int64(-1) // the last forward link seen: they must increase
	var firstTS, lastTS uint64
	var huge uint64 // timestamps past math.MaxInt64
	hugeOff := int64(-1)
	it := t.Index.Events(0)
	for it.Next() {
		e := it.Event()
		if it.Seq() == 0 {
			firstTS = e.Timestamp
		}
		lastTS = e.Timestamp
		if e.Timestamp > math.MaxInt64 {
			if huge++; hugeOff < 0 {
				hugeOff = t.Index.eventsOff + int64(it.Seq())*IndexEventSize
			}
		}
		if e.DetailSeq == NoDetail {
			continue
		}
		off := t.Index.eventsOff + int64(it.Seq())*IndexEventSize + 28
		if int64(e.DetailSeq) <= last {
			if dup++; dupOff < 0 {
				dupOff = off
			}
		}
		last = int64(e.DetailSeq)
		if uint64(e.DetailSeq) >= dlen {
			if dangling++; danglingOff < 0 {
				danglingOff = off
			}
		}
	}
	if err := it.Err(); err != nil {
		return ps, err
	}
	// A live footer's time range torn by a kill is no mismatch: Problems
	// reports its bytes as discarded.
	if f, ok := t.Index.Footer(); ok && !t.Index.tornRange && f.EventCount > 0 && (f.TimeStartNs != firstTS || f.TimeEndNs != lastTS) {
		ps = append(ps, Problem{Kind: ProblemHeaderMismatch, Path: iname, Offset: t.Index.footerAt + 16,
			Msg: fmt.Sprintf("footer time range %d..%d, the first and last events say %d..%d", f.TimeStartNs, f.TimeEndNs, firstTS, lastTS)})
	}
	if huge > 0 {
		ps = append(ps, Problem{Kind: ProblemTimeBeyondInt64, Path: iname, Offset: hugeOff, Events: huge,
			Msg: fmt.Sprintf("%d index events have timestamps at or past 2^63 ns: read exactly here, but saturated to 2^63-1 wherever times are int64 nanoseconds (the event layer, tracecat's outputs, Parquet)", huge)})
	}
	if dangling > 0 {
		why := "the thread has no detail.atf"
		if t.Detail != nil {
			why = fmt.Sprintf("detail.atf holds %d records", dlen)
			if t.Detail.Recovered() {
				why += " (its writer did not finish: the tail was lost)"
			}
		}
		ps = append(ps, Problem{Kind: ProblemDanglingLink, Path: iname, Offset: danglingOff, Events: dangling,
			Msg:     fmt.Sprintf("%d index events link to detail records that do not exist: %s", dangling, why),
			Corrupt: t.Detail == nil || !t.Detail.Recovered()})
	}
	if dup > 0 {
		ps = append(ps, Problem{Kind: ProblemBrokenLink, Path: iname, Offset: dupOff, Events: dup, Corrupt: true,
			Msg: fmt.Sprintf("%d index events link to a detail record an earlier event already claims", dup)})
	}
	h := t.Index.Header()
	if t.Index.hasFooter && h.FooterOffset > h.EventsOffset && h.HasDetailFile() && t.Detail == nil {
		ps = append(ps, problem(ProblemHeaderMismatch, 8, "the header flags a detail file, but there is no detail.atf"))
		ps[len(ps)-1].Path = iname
	}
	if t.Detail == nil {
		return ps, nil
	}
	// Back links.
	var orphan, broken uint64
	orphanOff, brokenOff := int64(-1), int64(-1)
	minSeq, maxSeq := uint64(NoDetail), uint64(0)
	var firstDTS, lastDTS uint64
	dit := t.Detail.Events()
	for dit.Next() {
		d := dit.Event()
		if dit.Seq() == 0 {
			firstDTS = d.Timestamp
		}
		lastDTS = d.Timestamp
		off, _ := t.Detail.Offset(dit.Seq())
		minSeq, maxSeq = min(minSeq, uint64(d.IndexSeq)), max(maxSeq, uint64(d.IndexSeq))
		if uint64(d.IndexSeq) >= t.Index.Len() {
			if orphan++; orphanOff < 0 {
				orphanOff = off + 8
			}
			continue
		}
		e, err := t.Index.Event(uint64(d.IndexSeq))
		if err != nil {
			return ps, err
		}
		if uint64(e.DetailSeq) != dit.Seq() {
			if broken++; brokenOff < 0 {
				brokenOff = off + 8
			}
		}
	}
	if err := dit.Err(); err != nil {
		return ps, err
	}
	if orphan > 0 {
		why := fmt.Sprintf("index.atf holds %d events", t.Index.Len())
		if t.Index.Recovered() {
			why += " (its writer did not finish: the tail was lost)"
		}
		ps = append(ps, Problem{Kind: ProblemOrphanDetail, Path: dname, Offset: orphanOff, Events: orphan,
			Msg:     fmt.Sprintf("%d detail records link back to index events that do not exist: %s", orphan, why),
			Corrupt: !t.Index.Recovered()})
	}
	if broken > 0 {
		ps = append(ps, Problem{Kind: ProblemBrokenLink, Path: dname, Offset: brokenOff, Events: broken, Corrupt: true,
			Msg: fmt.Sprintf("%d detail records link back to index events that link to another record", broken)})
	}
	if f, ok := t.Detail.Footer(); ok && dlen > 0 {
		if f.TimeStartNs != firstDTS || f.TimeEndNs != lastDTS {
			ps = append(ps, Problem{Kind: ProblemHeaderMismatch, Path: dname, Offset: t.Detail.Size() - FooterSize + 24,
				Msg: fmt.Sprintf("footer time range %d..%d, the first and last records say %d..%d", f.TimeStartNs, f.TimeEndNs, firstDTS, lastDTS)})
		}
		if dh := t.Detail.Header(); dh.IndexSeqStart != minSeq || dh.IndexSeqEnd != maxSeq {
			ps = append(ps, Problem{Kind: ProblemHeaderMismatch, Path: dname, Offset: 44,
				Msg: fmt.Sprintf("index_seq range %d..%d, the records link to %d..%d", dh.IndexSeqStart, dh.IndexSeqEnd, minSeq, maxSeq)})
		}
	}
	return ps, nil
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
