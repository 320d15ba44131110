//go:build amd64 && gc && !purego

package checksum

import "golang.org/x/sys/cpu"

// useAVX512 selects the eight-lane AVX-512 function: the CPU has AVX-512F and
// AVX-512VL and the OS saves their registers (x/sys/cpu checks both).
var useAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL

// blocks compresses the whole 128-byte blocks of p into h with the baseline
// amd64 assembly function (see asmgen); for one message it is faster than
// vector code on the project's Zen 5 machines.
func blocks(h *[8]uint64, c *[2]uint64, flag uint64, p []byte) { blocksAMD64(h, c, flag, p) }

func lanes() int {
	if useAVX512 {
		return 8
	}
	return 1
}

// blocks8 compresses n blocks of eight messages at once (see
// blocks8AVX512); without AVX-512 (only tests set Lanes then) lane by lane.
func blocks8(h *[8][8]uint64, c0 uint64, p *[8]*byte, n int) {
	if useAVX512 {
		blocks8AVX512(h, c0, p, n)
		return
	}
	blocks8Generic(h, c0, p, n)
}
