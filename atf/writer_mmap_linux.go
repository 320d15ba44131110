//go:build linux

package atf

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapOut is a file written through a shared mapping (WithMmapOutput). The
// file's size is size, and every page in [0, size) has been populated for
// writing (MADV_POPULATE_WRITE: the file system reserved its blocks, so a
// store there cannot SIGBUS); data maps at least that much and usually
// more, reserved address space the file grows into.
type mapOut struct {
	f    *os.File
	data []byte
	size int64
	// released is where the pages the process keeps mapped start (past
	// the first 2 MiB, which hold the live header); see grow.
	released int64
	// behind is where the pages of the file not yet handed to
	// writeBehind start (see release).
	behind int64
}

// mapReserve is the address space mapped first (a variable for tests); it
// doubles (mremap) when the file outgrows it. Address space costs nothing
// until pages are touched; a system that refuses 1 GiB gets write(2).
var mapReserve = 1 << 30

// populateWrite faults b in for writing in one system call (a variable so
// that tests can make it fail as a full disk, or as a kernel without
// MADV_POPULATE_WRITE, would).
var populateWrite = func(b []byte) error { return unix.Madvise(b, unix.MADV_POPULATE_WRITE) }

// newMapOut maps f, an empty regular file, for writing. It fails (and the
// writer uses write(2)) when the file cannot be mapped or its first pages
// cannot be populated: before Linux 5.14 (no MADV_POPULATE_WRITE there is
// nothing to stop a full disk from being a SIGBUS), on a full disk.
func newMapOut(f *os.File) (*mapOut, error) {
	m := &mapOut{f: f}
	if err := m.grow(0, mapStepMin); err != nil {
		// Leave the file as it came (empty) for write(2).
		m.finish(0)
		return nil, err
	}
	return m, nil
}

// mapKeep is the start of the file the writer keeps mapped and cached:
// the index header, rewritten with every event, is in its first (huge)
// page.
const mapKeep = 2 << 20

// writeBehind hands the pages [from, to) of the file, which the writer
// has finished, to the kernel: written to disk, and dropped from the page
// cache once written (a variable so that tests can see the ranges).
var writeBehind = func(f *os.File, from, to int64) {
	// POSIX_FADV_DONTNEED starts writeback of the range's dirty pages and
	// drops the ones already clean; pages still being written stay (the
	// kernel reclaims them as it would any written page). An optimization
	// only: errors are ignored.
	_ = unix.Fadvise(int(f.Fd()), from, to-from, unix.FADV_DONTNEED)
}

// release is called on each growth with done, the offset below which the
// writer stores nothing more (except the header). The pages past mapKeep
// below done leave the process's memory (MADV_DONTNEED: they stay in the
// page cache, dirty, and reach the file as every written page does), so
// the writer's resident size stays about a growth step instead of the
// file's size. They are also written behind: writeBehind is given each
// range twice, at the growth that releases it (starting its writeback)
// and at the next one (dropping from the page cache what has been
// written since). The folios so freed are what the kernel hands out for
// the next steps: a mapped writer that let the page cache grow would take
// fresh 2 MiB blocks for each step, and on a virtual machine whose host
// reclaims the guest's free memory (free page reporting) every first
// touch of those is a fault of the host, 4–5 times the whole writer's
// cost (docs/performance-atf.md).
func (m *mapOut) release(done int64) {
	end := done &^ (mapKeep - 1)
	start := max(m.released, mapKeep)
	if end <= start {
		return
	}
	_ = unix.Madvise(m.data[start:end], unix.MADV_DONTNEED)
	writeBehind(m.f, max(m.behind, mapKeep), end)
	m.behind = start
	m.released = end
}

// grow makes the file hold at least need bytes: ftruncate to the next step,
// a larger mapping when the reserved one is too small, and then
// MADV_POPULATE_WRITE of the new pages. The populate is what makes a full
// disk an error here instead of a SIGBUS later: it takes the write fault of
// every new page inside the system call, so the file system reserves the
// page's blocks (ext4's delayed allocation, tmpfs's pages) or the call
// fails; the writer stores nothing past m.size, which only moves when the
// populate succeeded. On a file system that gives the page cache 2 MiB
// folios (ext4 and XFS on recent kernels, with MADV_HUGEPAGE) it also maps
// the step with a few huge pages instead of a fault per 4 KiB page.
//
// The file is not grown with fallocate (as it was): the populate reserves
// the blocks anyway, so fallocate only added unwritten extents to convert
// at writeback and kept file systems without it (EOPNOTSUPP) on write(2);
// the two measured the same CPU (docs/performance-atf.md).
//
// done is the offset below which the writer stores nothing more (except
// the header): see release.
func (m *mapOut) grow(done, need int64) error {
	if need <= m.size {
		return nil
	}
	m.release(done)
	size := nextMapSize(m.size, need)
	if int64(int(size)) != size {
		return newError(m.size, ErrLimit, "mapped output of %d bytes does not fit the address space", size)
	}
	if err := m.f.Truncate(size); err != nil {
		return fmt.Errorf("atf: growing %s from %d to %d bytes: %w", m.f.Name(), m.size, size, err)
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
		// maps 2 MiB at a time instead of 4 KiB pages one by one.
		_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
		m.data = b
	}
	if err := populateWrite(m.data[m.size:size]); err != nil {
		return m.populateError(size, err)
	}
	m.size = size
	return nil
}

// populateError is the error of a populate of the pages [m.size, size)
// that failed with err: the populate says only EFAULT (a store there would
// have been a SIGBUS), so fallocate of the range asks the file system for
// its reason (ENOSPC, EDQUOT); when it has none, the populate's error is
// the answer. The file keeps its new size; Close truncates it.
func (m *mapOut) populateError(size int64, err error) error {
	err = &os.SyscallError{Syscall: "madvise(MADV_POPULATE_WRITE)", Err: err}
	if ferr := unix.Fallocate(int(m.f.Fd()), 0, m.size, size-m.size); ferr != nil && ferr != unix.EOPNOTSUPP {
		err = &os.SyscallError{Syscall: "fallocate", Err: ferr}
	}
	return fmt.Errorf("atf: growing %s from %d to %d bytes: %w", m.f.Name(), m.size, size, err)
}

// cut truncates the file to end, its first page, and forgets the
// populated pages: the next grow starts over from the first step. The
// mapping stays; nothing may be stored into it before that grow.
func (m *mapOut) cut(end int64) error {
	if err := m.f.Truncate(end); err != nil {
		return err
	}
	m.size = 0
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
