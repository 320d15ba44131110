package atf

import (
	"io"
	"os"
)

// WithMmapOutput makes the writers write their files through a shared
// memory mapping instead of write(2) (Linux 5.14 or later; elsewhere, and
// for anything but an empty regular *os.File opened for reading and
// writing that can be mapped, the option is ignored and the writers use
// write(2) as without it). It
// applies to CreateThread, CreateSession, CreateSessionDir and to
// NewIndexWriter, NewDetailWriter and NewThreadWriter given a freshly
// created *os.File (os.Create).
//
// Crash durability: every event is in the file's pages the moment its
// Write or Append returns, so a process killed at any moment (SIGKILL, a
// crash) loses none of the events it wrote, at no system call per event or
// per flush; WithFlushEvery, WithFlushInterval and WithBackgroundFlush
// have nothing left to bound. An index file keeps a live footer right
// after its last event, and the header's footer_offset points at it (so a
// reader knows where the events end), and each detail record's
// total_length is stored after its payload (so a record cut by a crash
// reads as the end of the records). Sync is still what a power loss
// cannot take.
//
// The file grows in steps (64 KiB, doubling up to 16 MiB): ftruncate(2),
// then MADV_POPULATE_WRITE of the step's pages, which makes the file
// system reserve their blocks inside the system call, so a full disk or a
// file size limit is an error from Write, Append or Flush before any page
// of the new step is stored to: never a SIGBUS. Finished pages are written
// behind: their writeback starts at the next growth and they leave the
// page cache once written (POSIX_FADV_DONTNEED), so the writer reuses the
// same memory instead of taking fresh pages for every step (the first
// 2 MiB, which hold the header, stay). A file left by a crash ends in the
// zero bytes of the last step. An index file reads as exactly the events
// written: this package's readers find the live footer (reporting the
// zero tail as bytes after the footer, the header's time range, which
// only Close stores, as a header mismatch, and a footer time range torn by
// a kill while the next event's second half was being stored over it as
// discarded bytes, giving the events' time range), and so does the reference Rust
// reader, which takes the count from the footer that footer_offset points
// at and otherwise from the file size. One exception: a kill that lands
// in the three stores that move the live footer past a new event (between
// the event's first store and the header's) leaves the old footer's magic
// broken; this package's readers then go by footer_offset (Recovered)
// and still read exactly the events, while the reference reader counts
// the zero tail as events. No order of stores closes that window for both
// readers (docs/performance-atf.md). Until its first event an index file
// is the header and the live footer only (128 bytes; no header can name a
// footer before the first event, and a zero tail would read as events),
// so both read no events, except when the kill comes inside the system
// calls of the first growth (or of the writer's creation), where this
// package's readers count the zero tail. A detail file reads as its
// records in both: they stop at the first zero total_length. Close
// truncates the file to its real size: the finished files are
// byte-identical to those written with write(2).
//
// The price is the live footer (11 stores per index event instead of 8,
// 15–20 % of the mapped writer's CPU) and the first touch of every page
// (in the populate, instead of write(2)'s copy): cheap where the file system gives the page cache 2 MiB
// folios (ext4 and XFS on recent kernels), a fault per 4 KiB page where it
// does not (tmpfs without huge=, older kernels), which on a virtual machine
// can cost more than write(2); see docs/performance-atf.md. Nobody else may truncate the file while it is being
// written: the writer's next store to a page past the new end would be a
// SIGBUS. Default false.
func WithMmapOutput(on bool) WriterOption {
	return func(o *writerOptions) error { o.mmapOut = on; return nil }
}

// mapOutput returns the mapped output of w when the option asks for it and
// w is an empty *os.File at offset 0 that can be mapped; nil otherwise
// (the writer then uses write(2)).
func mapOutput(w io.WriteSeeker, base int64, o *writerOptions) *mapOut {
	f, ok := w.(*os.File)
	if !o.mmapOut || !ok || base != 0 {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 {
		return nil
	}
	m, err := newMapOut(f)
	if err != nil {
		return nil
	}
	return m
}

// Growth steps of a mapped output file.
const (
	mapStepMin = 64 << 10
	mapStepMax = 16 << 20
)

// nextMapSize is the size a mapped file of size bytes grows to so that it
// holds need bytes: steps of the file's size, at least mapStepMin and at
// most mapStepMax, repeated until need fits.
func nextMapSize(size, need int64) int64 {
	for size < need {
		size += min(max(size, mapStepMin), mapStepMax)
	}
	return size
}

// close ends a mapped writer's file: unmapped, truncated to end, and w
// positioned there; err is the writer's error so far, returned unless it
// is nil.
func (m *mapOut) close(w io.Seeker, end int64, err error) error {
	if ferr := m.finish(end); err == nil {
		err = ferr
	}
	if err == nil {
		_, err = w.Seek(end, io.SeekStart)
	}
	return err
}

// next returns the window after buf, a window of the mapping at offset
// *written whose bytes, already in the file, now count as written: it
// starts at the new *written with room for at least need bytes (the file
// grows when it has less). On failure the window is empty.
func (m *mapOut) next(buf []byte, written *int64, need int64) ([]byte, error) {
	*written += int64(len(buf))
	if err := m.grow(*written, *written+need); err != nil {
		return buf[len(buf):], err
	}
	return m.data[*written:*written:m.size], nil
}
