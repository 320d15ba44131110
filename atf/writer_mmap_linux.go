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
}

// mapReserve is the address space mapped first (a variable for tests); it doubles (mremap) when
// the file outgrows it.
var mapReserve = 64 << 20

func newMapOut(f *os.File) (*mapOut, error) {
	m := &mapOut{f: f}
	if err := m.grow(mapStepMin); err != nil {
		return nil, err
	}
	return m, nil
}

// grow makes the file hold at least need bytes: fallocate first (a full
// disk is an error here, not a SIGBUS later), then a larger mapping when
// the reserved one is too small.
func (m *mapOut) grow(need int64) error {
	if need <= m.size {
		return nil
	}
	size := nextMapSize(m.size, need)
	if int64(int(size)) != size {
		return newError(m.size, ErrLimit, "mapped output of %d bytes does not fit the address space", size)
	}
	if err := unix.Fallocate(int(m.f.Fd()), 0, m.size, size-m.size); err != nil {
		return fmt.Errorf("atf: growing %s from %d to %d bytes: %w", m.f.Name(), m.size, size, &os.SyscallError{Syscall: "fallocate", Err: err})
	}
	if size > int64(len(m.data)) {
		n := max(2*len(m.data), mapReserve)
		for int64(n) < size {
			n *= 2
		}
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
		m.data = b
	}
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
