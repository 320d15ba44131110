//go:build !amd64 || !gc || purego

package checksum

// blocks compresses the whole 128-byte blocks of p into h: the unrolled Go
// compression function, for builds without the assembly one.
func blocks(h *[8]uint64, c *[2]uint64, flag uint64, p []byte) { blocksGeneric(h, c, flag, p) }

func lanes() int { return 1 }

// blocks8 compresses each lane with the Go function (only tests set Lanes
// above 1 in these builds, to check the multi-lane bookkeeping).
func blocks8(h *[8][8]uint64, c0 uint64, p *[8]*byte, n int) { blocks8Generic(h, c0, p, n) }
