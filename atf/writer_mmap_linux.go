//go:build linux

package atf

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapOut is a file written through a shared mapping (WithMmapOutput). The
// file's size is size (allocated with fallocate, so the pages in
// [0, size) can be stored to without SIGBUS); data maps at least that
// much and usually more, reserved address space the file grows into.
type mapOut struct {
	f    *os.File
	data []byte
	size int64
	// released is where the pages the process keeps mapped start (past
	// the first 2 MiB, which hold the live header); see grow.
	released int64
}

// mapReserve is the address space mapped first (a variable for tests); it
// doubles (mremap) when the file outgrows it. Address space costs nothing
// until pages are touched; a system that refuses 1 GiB gets write(2).
var mapReserve = 1 << 30

func newMapOut(f *os.File) (*mapOut, error) {
	m := &mapOut{f: f}
	if err := m.grow(0, mapStepMin); err != nil {
		// Leave the file as it came (empty) for write(2).
		m.finish(0)
		return nil, err
	}
	return m, nil
}

// grow makes the file hold at least need bytes: fallocate first (a full
// disk is an error here, not a SIGBUS later), then a larger mapping when
// the reserved one is too small. done is the offset below which the writer
// stores nothing more (except the header): on each growth, those pages
// leave the process's memory (they stay in the page cache, dirty, and
// reach the file as every written page does), so the writer's resident
// size stays about a growth step instead of the file's size.
func (m *mapOut) grow(done, need int64) error {
	if need <= m.size {
		return nil
	}
	const keep = 2 << 20 // the header's huge page
	if end := done &^ (keep - 1); end > max(m.released, keep) {
		start := max(m.released, keep)
		_ = unix.Madvise(m.data[start:end], unix.MADV_DONTNEED) // an optimization only
		m.released = end
	}
	size := nextMapSize(m.size, need)
	if int64(int(size)) != size {
		return newError(m.size, ErrLimit, "mapped output of %d bytes does not fit the address space", size)
	}
	if err := unix.Fallocate(int(m.f.Fd()), 0, m.size, size-m.size); err != nil {
		return fmt.Errorf("atf: growing %s from %d to %d bytes: %w", m.f.Name(), m.size, size, &os.SyscallError{Syscall: "fallocate", Err: err})
	}
	if size > int64(len(m.data)) {
		n64 := max(2*int64(len(m.data)), int64(mapReserve))
		for n64 < size {
			n64 *= 2
		}
		if int64(int(n64)) != n64 {
			n64 = size // a 32-bit system: no room to spare
		}
		n := int(n64)
		var b []byte
		var err error
		if m.data == nil {
			b, err = unix.Mmap(int(m.f.Fd()), 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		} else {
			b, err = unix.Mremap(m.data, n, unix.MREMAP_MAYMOVE)
		}
		if err != nil {
			// The file is larger than its mapping now; Close truncates it.
			return fmt.Errorf("atf: mapping %s (%d bytes): %w", m.f.Name(), n, err)
		}
		// Ask for huge folios: where the kernel has them (file systems with
		// large folios, transparent huge pages enabled), the populate below
		// maps 2 MiB per step instead of faulting 4 KiB pages one by one.
		_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
		m.data = b
	}
	// Pre-fault the new step for writing, in one call (Linux 5.14+; an
	// optimization only, so an error is ignored): a page fault per 4 KiB
	// page is what a mapped writer pays instead of write(2)'s copy.
	_ = unix.Madvise(m.data[m.size:size], unix.MADV_POPULATE_WRITE)
	m.size = size
	return nil
}

// sync writes the file's dirty pages, the mapped ones included, to disk.
func (m *mapOut) sync() error { return m.f.Sync() }

// finish unmaps the file and truncates it to end, its real size.
func (m *mapOut) finish(end int64) error {
	var err error
	if m.data != nil {
		err = unix.Munmap(m.data)
		m.data = nil
	}
	if terr := m.f.Truncate(end); err == nil {
		err = terr
	}
	m.size = end
	return err
}
