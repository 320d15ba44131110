package schema7

import (
	"bytes"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// TestReadKeyMatchesMsgp pins the inline fixstr paths of readKey and
// readString to msgp's readers on every key form and on truncated input.
func TestReadKeyMatchesMsgp(t *testing.T) {
	long := string(bytes.Repeat([]byte("k"), 40))
	inputs := [][]byte{
		msgp.AppendString(nil, ""),
		msgp.AppendString(nil, "tick_index"),
		msgp.AppendString(nil, string(bytes.Repeat([]byte("x"), 31))),
		msgp.AppendString(nil, long), // str8
		msgp.AppendBytes(nil, []byte("bin_key")),
		msgp.AppendInt(nil, 7),
		{},
		{0xa5, 'a', 'b'}, // truncated fixstr
		{0xd9},           // truncated str8
	}
	for _, in := range inputs {
		in = append(in, 0xc0) // a following value must be left in the rest
		for cut := 0; cut <= len(in); cut++ {
			b := in[:cut]
			k1, r1, e1 := readKey(b)
			k2, r2, e2 := msgp.ReadMapKeyZC(b)
			if !bytes.Equal(k1, k2) || !bytes.Equal(r1, r2) || (e1 == nil) != (e2 == nil) {
				t.Errorf("readKey(%x) = %q, %x, %v; msgp: %q, %x, %v", b, k1, r1, e1, k2, r2, e2)
			}
			s1, r1, e1 := readString(b)
			s2, r2, e2 := msgp.ReadStringBytes(b)
			// On error readString keeps the input, msgp does not.
			if s1 != s2 || (e1 == nil) != (e2 == nil) || (e1 == nil && !bytes.Equal(r1, r2)) {
				t.Errorf("readString(%x) = %q, %x, %v; msgp: %q, %x, %v", b, s1, r1, e1, s2, r2, e2)
			}
		}
	}
}
