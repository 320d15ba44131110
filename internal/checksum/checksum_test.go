package checksum

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strconv"
	"testing"

	"golang.org/x/crypto/blake2b"
)

func TestBlake2b64Vector(t *testing.T) {
	h := NewBlake2b64()
	got := h.Sum([]byte("abc"))
	var digest [8]byte
	binary.LittleEndian.PutUint64(digest[:], got)
	// b2sum -l 64 prints the digest bytes in order.
	if want := "d8bb14d833d59559"; bytesHex(digest[:]) != want {
		t.Fatalf("blake2b-64(abc) digest = %x, want %s", digest, want)
	}
	if got != 0x5995d533d814bbd8 {
		t.Fatalf("as little-endian uint64 = %#x", got)
	}
	// Reuse gives the same answer, and incremental equals one-shot.
	if h.Sum([]byte("abc")) != got {
		t.Fatal("second Sum differs")
	}
	h.Reset()
	h.Write([]byte("a"))
	h.Write([]byte("bc"))
	if h.Sum64() != got {
		t.Fatal("incremental differs")
	}
	empty := h.Sum(nil)
	if empty == got {
		t.Fatal("empty input hashed like abc")
	}
}

func bytesHex(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestCRC32Incremental(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 100)
	var c CRC32
	for i := 0; i < len(data); i += 37 {
		c.Write(data[i:min(i+37, len(data))])
	}
	if c.Sum32() != crc32.ChecksumIEEE(data) || CRC32IEEE(data) != c.Sum32() {
		t.Fatalf("crc %08x want %08x", c.Sum32(), crc32.ChecksumIEEE(data))
	}
	if CRC32IEEE([]byte("123456789")) != 0xCBF43926 {
		t.Fatal("check value")
	}
	c.Reset()
	if c.Sum32() != 0 {
		t.Fatal("reset")
	}
}

func TestAllocs(t *testing.T) {
	h := NewBlake2b64()
	data := make([]byte, 4096)
	var c CRC32
	ps := [][]byte{data, data[1:], data[:3000], data[5:], data, data, data[9:], data[:700], data}
	sums := make([]uint64, len(ps))
	if a := testing.AllocsPerRun(100, func() {
		_ = h.Sum(data)
		h.Sums(ps, sums)
		c.Write(data)
	}); a != 0 {
		t.Fatalf("allocs per run = %v", a)
	}
}

// BenchmarkBlake2b64 hashes whole buffers with Sum, as the CDT writer and
// readers do per chunk payload (a 256-row chunk of reference-shaped rows is
// ≈640 kB). cpu-MB/s is bytes per second of process CPU time, steadier than
// MB/s on a shared machine; the reference C code (CPython hashlib) does
// ≈830–920 MB per CPU-second on this machine class. "xcrypto" is
// golang.org/x/crypto/blake2b for comparison, "go" this package's unrolled
// Go compression function (what -tags purego and non-amd64 builds use).
func BenchmarkBlake2b64(b *testing.B) {
	for _, n := range []int{64, 4096, 65536, 640000} {
		data := testData(n, 5)
		h := NewBlake2b64()
		xh, _ := blake2b.New(8, nil)
		var out [8]byte
		for _, impl := range []struct {
			name string
			sum  func([]byte)
		}{
			{"ours", func(p []byte) { h.Sum(p) }},
			{"go", func(p []byte) { sumWith(blocksGeneric, p) }},
			{"xcrypto", func(p []byte) { xh.Reset(); xh.Write(p); xh.Sum(out[:0]) }},
		} {
			b.Run(impl.name+"/"+strconv.Itoa(n), func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				start, ok := processCPU()
				for b.Loop() {
					impl.sum(data)
				}
				if end, ok2 := processCPU(); ok && ok2 && end > start {
					b.ReportMetric(float64(n)*float64(b.N)/(end-start).Seconds()/1e6, "cpu-MB/s")
				}
			})
		}
	}
}

func BenchmarkCRC32(b *testing.B) {
	var c CRC32
	for _, n := range []int{64, 4096, 65536} {
		data := make([]byte, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				c.Write(data)
			}
		})
	}
}

// BenchmarkBlake2b64Sums hashes eight buffers of n bytes with one Sums call
// (the CDT reader verifies its chunks this way), against eight Sum calls
// in BenchmarkBlake2b64; cpu-MB/s counts the bytes of all eight.
func BenchmarkBlake2b64Sums(b *testing.B) {
	b.Run("uneven", benchSumsUneven)
	for _, n := range []int{4096, 65536, 640000} {
		data := testData(8*n, 6)
		ps := make([][]byte, 8)
		for i := range ps {
			ps[i] = data[i*n : (i+1)*n]
		}
		sums := make([]uint64, 8)
		h := NewBlake2b64()
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			b.ReportAllocs()
			start, ok := processCPU()
			for b.Loop() {
				h.Sums(ps, sums)
			}
			if end, ok2 := processCPU(); ok && ok2 && end > start {
				b.ReportMetric(float64(8*n)*float64(b.N)/(end-start).Seconds()/1e6, "cpu-MB/s")
			}
		})
	}
}

// benchSumsUneven is BenchmarkBlake2b64Sums on the lengths of the last read
// batch of the CDT typed-read benchmark: three 256-row chunks (≈640 kB,
// a little different each) and the trace's last, 184-row chunk.
func benchSumsUneven(b *testing.B) {
	lens := []int{641113, 638402, 640777, 460310}
	var ps [][]byte
	n := 0
	for i, l := range lens {
		ps = append(ps, testData(l, uint64(20+i)))
		n += l
	}
	sums := make([]uint64, len(ps))
	h := NewBlake2b64()
	b.SetBytes(int64(n))
	b.ReportAllocs()
	start, ok := processCPU()
	for b.Loop() {
		h.Sums(ps, sums)
	}
	if end, ok2 := processCPU(); ok && ok2 && end > start {
		b.ReportMetric(float64(n)*float64(b.N)/(end-start).Seconds()/1e6, "cpu-MB/s")
	}
}
