//go:build amd64 && gc && !purego

package checksum

// blocks compresses the whole 128-byte blocks of p into h with the assembly
// compression function (baseline amd64, see asmgen).
func blocks(h *[8]uint64, c *[2]uint64, flag uint64, p []byte) { blocksAMD64(h, c, flag, p) }
