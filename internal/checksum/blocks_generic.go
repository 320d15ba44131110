//go:build !amd64 || !gc || purego

package checksum

// blocks compresses the whole 128-byte blocks of p into h: the unrolled Go
// compression function, for builds without the assembly one.
func blocks(h *[8]uint64, c *[2]uint64, flag uint64, p []byte) { blocksGeneric(h, c, flag, p) }
