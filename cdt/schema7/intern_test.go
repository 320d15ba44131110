package schema7

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// TestInternReturnsItsInput interns strings of every length up to beyond
// internMaxLen, through intern and through internAt with and without bytes
// after the string (the one-load path reads them and must mask them off),
// twice each, and checks that every result equals its input. The inputs
// include strings longer than 16 bytes that share their first and last
// eight bytes and length (the same slot and words: only the full comparison
// tells them apart) and short ones that differ only in their last byte.
func TestInternReturnsItsInput(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var inputs [][]byte
	for n := 0; n <= internMaxLen+8; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		inputs = append(inputs, b)
		if n > 0 { // the same but the last byte
			c := bytes.Clone(b)
			c[n-1] ^= 0x55
			inputs = append(inputs, c)
		}
		if n > 16 { // the same words, another middle byte
			c := bytes.Clone(b)
			c[8] ^= 0xff
			inputs = append(inputs, c)
		}
	}
	for round := range 2 {
		for _, b := range inputs {
			tail := append(bytes.Clone(b), 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8)
			for _, got := range []struct {
				how string
				s   string
			}{
				{"intern", intern(b)},
				{"internAt, bytes after", internAt(tail, len(b))},
				{"internAt, nothing after", internAt(bytes.Clone(b), len(b))},
			} {
				if got.s != string(b) {
					t.Fatalf("round %d, %s(%x) = %x", round, got.how, b, got.s)
				}
			}
		}
	}
}

// TestInternShares checks that a short string read again is the same
// string (no new allocation) and that a long one is not interned.
func TestInternShares(t *testing.T) {
	for _, s := range []string{"", "a", "pool_kind", "creature_pool_16b", "0x00000000004a6f10", string(bytes.Repeat([]byte("z"), internMaxLen))} {
		buf := append([]byte(s), "........"...)
		first := internAt(buf, len(s))
		if n := testing.AllocsPerRun(10, func() {
			if got := internAt(buf, len(s)); got != s {
				panic(fmt.Sprintf("internAt = %q, want %q", got, s))
			}
		}); n != 0 {
			t.Errorf("%q: %v allocations per repeated intern", s, n)
		}
		if first != s {
			t.Errorf("%q: interned as %q", s, first)
		}
	}
	long := bytes.Repeat([]byte("y"), internMaxLen+1)
	if n := testing.AllocsPerRun(10, func() { _ = intern(long) }); n != 1 {
		t.Errorf("a %d-byte string: %v allocations, want 1 (not interned)", len(long), n)
	}
}

// FuzzReadString compares readString (fixstr through internAt, other forms
// through msgp, both interned) with msgp.ReadStringBytes on arbitrary input,
// read twice so that the second read takes the interning table's hit path.
func FuzzReadString(f *testing.F) {
	f.Add(msgp.AppendString(nil, "pool_kind"))
	f.Add(append(msgp.AppendString(nil, "ab"), 0xc0, 1, 2, 3, 4, 5, 6, 7))
	f.Add(msgp.AppendString(nil, "0x00000000004a6f10_caller_address_x"))
	f.Add([]byte{0xa5, 'a', 'b'})
	f.Fuzz(func(t *testing.T, b []byte) {
		want, wrest, werr := msgp.ReadStringBytes(b)
		for range 2 {
			got, rest, err := readString(b)
			if (err == nil) != (werr == nil) || got != want || (err == nil && !bytes.Equal(rest, wrest)) {
				t.Fatalf("readString(%x) = %q, %x, %v; msgp: %q, %x, %v", b, got, rest, err, want, wrest, werr)
			}
		}
	})
}
