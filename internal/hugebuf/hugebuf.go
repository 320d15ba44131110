// Package hugebuf allocates large byte buffers that the kernel may back
// with transparent huge pages.
//
// A buffer reused chunk after chunk (a CDT reader's decompression buffer,
// a writer's chunk buffer) is written once into new memory in a
// short-lived process such as tracecat, and on virtual machines each 4 KiB
// page fault costs microseconds: 8 300 faults and 130 ms of CPU to first
// touch 32 MiB on the benchmark machine, against 640 faults and 15 ms for
// the same memory in 2 MiB pages. Where Linux offers transparent huge
// pages on request (/sys/kernel/mm/transparent_hugepage/enabled is
// "always" or "madvise"), Make aligns a large buffer to 2 MiB inside an
// ordinary Go allocation and advises the kernel (MADV_HUGEPAGE) before
// anything touches it. The advice is a hint only: the memory stays Go
// memory, freed by the garbage collector; without huge pages it behaves as
// make.
//
// Map is the other kind: a buffer mapped outside the Go heap (Linux), for
// a caller that pools it and never frees it, so that large short-lived
// reads start no garbage collection (see cdt's batch arena).
package hugebuf

// Min is the capacity from which Make asks for huge pages; smaller
// buffers are plain make.
const Min = 1 << 20

// pageSize is the huge page size advised for (x86-64 and arm64 with 4 KiB
// base pages).
const pageSize = 2 << 20

// Make returns a zeroed byte slice of length n and capacity at least c
// (c ≥ n ≥ 0), as make([]byte, n, c) does; where the system offers huge
// pages and c ≥ Min it is backed by them, starts at a huge page boundary,
// and its capacity is c rounded up to whole huge pages (memory the pages
// hold anyway). The allocation is then up to one huge page larger than
// the capacity (the room to align its start), address space that is never
// touched.
func Make(n, c int) []byte {
	if c < Min || c > maxCap || !available() {
		return make([]byte, n, c)
	}
	return makeHuge(n, c)
}

// maxCap bounds the capacities Make aligns (the rounding must not
// overflow); larger requests are plain make.
// It is 1 TiB where int has 64 bits and 512 MiB where it has 32.
const maxCap = 1 << (29 + 11*(^uint(0)>>63))

// roundUp rounds n up to a multiple of pageSize.
func roundUp(n int) int { return (n + pageSize - 1) &^ (pageSize - 1) }
