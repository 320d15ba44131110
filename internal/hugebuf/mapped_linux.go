package hugebuf

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Map returns a zeroed slice of length 0 and capacity c rounded up to whole
// huge pages, mapped anonymously outside the Go heap and aligned to 2 MiB,
// advised for transparent huge pages where the system offers them; nil when
// c < Min, c is beyond the capacities Make aligns, or the mapping fails
// (the caller then uses Make).
//
// Memory outside the Go heap does not count towards the garbage
// collector's pacing: a fresh process that decompresses 20 MiB into such a
// buffer runs no collection for it, where the same bytes from make start
// one (its stop-the-world phases and worker wake-ups cost 10–15 % of a
// typed read of five 4 MB CDT chunks on the benchmark machine). The memory
// is never unmapped: the caller keeps such buffers for reuse (a slice
// still pointing into one can never fault) and may hand their pages back
// to the system with Drop.
func Map(c int) []byte {
	if c < Min || c > maxCap {
		return nil
	}
	span := roundUp(c)
	huge := available()
	extra := 0
	if huge {
		extra = pageSize // room to align the start
	}
	size := uintptr(span + extra)
	p, err := unix.MmapPtr(-1, 0, nil, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil
	}
	off := uintptr(0)
	if huge {
		off = (uintptr(p)+pageSize-1)&^(pageSize-1) - uintptr(p)
		// Give the unaligned head and the tail beyond the span back; a
		// failure leaves them mapped and untouched.
		if off > 0 {
			_ = unix.MunmapPtr(p, off)
		}
		if tail := size - off - uintptr(span); tail > 0 {
			_ = unix.MunmapPtr(unsafe.Add(p, off+uintptr(span)), tail)
		}
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, off)), span)
	NoteOffHeap(span)
	if !huge {
		return b[:0]
	}
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE) // a hint only
	return b[:0]
}

// Drop hands the pages of a buffer from Map back to the system
// (MADV_DONTNEED): it stays mapped and reads as zeros, and the next write
// to a page faults in fresh memory again.
func Drop(b []byte) {
	if cap(b) > 0 {
		_ = unix.Madvise(b[:cap(b)], unix.MADV_DONTNEED)
	}
}
