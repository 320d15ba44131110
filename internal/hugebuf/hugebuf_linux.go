package hugebuf

import (
	"bytes"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

var thp = sync.OnceValue(func() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && (bytes.Contains(b, []byte("[always]")) || bytes.Contains(b, []byte("[madvise]")))
})

func available() bool { return thp() }

// makeHuge allocates c rounded up to whole huge pages plus the room to
// align the start (Go's large objects are aligned to its 8 KiB pages), and
// advises the aligned range.
func makeHuge(n, c int) []byte {
	span := roundUp(c)
	raw := make([]byte, span+pageSize-goPage)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	off := int((p+pageSize-1)&^(pageSize-1) - p)
	if off+span > len(raw) { // Go did not align to its own page: use what is aligned
		return raw[:n:c]
	}
	_ = unix.Madvise(raw[off:off+span], unix.MADV_HUGEPAGE) // a hint only
	return raw[off : off+n : off+span]
}

// goPage is the alignment of Go's large allocations.
const goPage = 8 << 10
