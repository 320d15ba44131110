package schema7

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// TestReadKeyMatchesMsgp pins the inline fixstr paths of the generated key
// reads (keyLen) and of readString to msgp's readers on every key form and on
// truncated input.
func TestReadKeyMatchesMsgp(t *testing.T) {
	readKey := func(b []byte) ([]byte, []byte, error) { // as strictgen writes it
		if n := keyLen(b); n > 0 {
			return b[1:n], b[n:], nil
		}
		return msgp.ReadMapKeyZC(b)
	}
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

// TestIntFastPaths pins Int's inline integer forms to msgp.ReadInt64Bytes.
func TestIntFastPaths(t *testing.T) {
	var inputs [][]byte
	for _, v := range []int64{0, 1, 127, 128, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32, 1<<63 - 1, -1, -32, -33, -128, -129, -1 << 31, -1 << 63} {
		inputs = append(inputs, appendInt(nil, v), msgp.AppendInt64(nil, v))
	}
	inputs = append(inputs, msgp.AppendUint64(nil, 1<<64-1), msgp.AppendFloat64(nil, 1), msgp.AppendNil(nil), []byte{})
	for _, in := range inputs {
		for cut := 0; cut <= len(in); cut++ {
			b := in[:cut]
			var z Int
			r1, e1 := z.UnmarshalMsg(b)
			v, r2, e2 := msgp.ReadInt64Bytes(b)
			if (e1 == nil) != (e2 == nil) || (e1 == nil && (int64(z) != v || !bytes.Equal(r1, r2))) {
				t.Errorf("Int.UnmarshalMsg(%x) = %d, %x, %v; msgp: %d, %x, %v", b, z, r1, e1, v, r2, e2)
			}
		}
	}
}

// TestIntsPrefix pins intsPrefix to decoding element by element: every
// element it takes decodes to the same value, and it stops at the first
// element in another form (or a truncated one), wherever it lies.
func TestIntsPrefix(t *testing.T) {
	vals := []int64{0, 1, 127, 128, 255, 256, 65535, 65536, 1<<32 - 1, -1, -32}
	var list []byte
	for _, v := range vals {
		list = appendInt(list, v)
	}
	for _, stop := range [][]byte{nil, msgp.AppendInt64(nil, 1<<40), msgp.AppendInt64(nil, -33), msgp.AppendFloat64(nil, 1), {0xcd, 1}} {
		for k := 0; k <= len(vals); k++ {
			var in []byte
			for i := range k {
				in = appendInt(in, vals[(i*7)%len(vals)])
			}
			in = append(in, stop...)
			in = append(in, list...)
			dst := make([]Int, 2*len(vals)+1)
			n, rest := intsPrefix(dst, in)
			b := in
			want := 0
			for want < len(dst) {
				var z Int
				r, err := z.UnmarshalMsg(b)
				if err != nil || len(b) == 0 || (b[0] != 0xcc && b[0] != 0xcd && b[0] != 0xce && int8(b[0]) < -32) {
					break
				}
				if dst[want] != z {
					t.Fatalf("stop %x, k %d: element %d = %d, want %d", stop, k, want, dst[want], z)
				}
				b = r
				want++
			}
			if n != want || !bytes.Equal(rest, b) {
				t.Fatalf("stop %x, k %d: intsPrefix took %d elements, want %d", stop, k, n, want)
			}
		}
	}
}

// TestAppendInts compares appendInts, which the generated encoders of []Int
// fields call, with Int.MarshalMsg element by element: fixints only, the
// other forms at the start, middle and end, and an empty slice, appended
// after existing bytes with and without spare capacity.
func TestAppendInts(t *testing.T) {
	cases := [][]Int{
		nil,
		{0, 1, 127},
		{128, 0, 1},
		{0, 1, -1, 2},
		{5, 6, 255, 256, 65536, -33, -32, math.MaxInt64, math.MinInt64},
		{1, 2, 3, 1 << 40},
	}
	for _, v := range cases {
		for _, spare := range []int{0, 64} {
			in := make([]byte, 3, 3+spare)
			copy(in, "abc")
			want := []byte("abc")
			for _, x := range v {
				want, _ = x.MarshalMsg(want)
			}
			if got := appendInts(in, v); !bytes.Equal(got, want) {
				t.Errorf("%v (spare %d): % x, want % x", v, spare, got, want)
			}
		}
	}
}

// intsPrefixOneByOne is intsPrefix written as the generated decoders read
// one element (through Int.UnmarshalMsg): what FuzzIntsPrefix compares it
// with.
func intsPrefixOneByOne(dst []Int, b []byte) (int, []byte) {
	for i := range dst {
		if len(b) == 0 || (b[0] != 0xcc && b[0] != 0xcd && b[0] != 0xce && int8(b[0]) < -32) {
			return i, b
		}
		var z Int
		r, err := z.UnmarshalMsg(b)
		if err != nil {
			return i, b
		}
		dst[i], b = z, r
	}
	return len(dst), b
}

// FuzzIntsPrefix compares intsPrefix with decoding element by element
// through Int.UnmarshalMsg on arbitrary bytes and destination lengths: the
// same count, values and rest, and nothing written past the count.
func FuzzIntsPrefix(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0xcc, 200, 11, 0xff, 0xc0}, uint8(20))
	f.Add([]byte{0, 0x7f, 0xe0, 0xcc, 0x80, 0xcd, 1, 2, 0xce, 1, 2, 3, 4, 5}, uint8(16))
	f.Add([]byte{0xcd, 1, 2, 0xce, 1, 2, 3}, uint8(9))
	f.Fuzz(func(t *testing.T, b []byte, n uint8) {
		got := make([]Int, n)
		want := make([]Int, n)
		for i := range got { // a sentinel where nothing may be written
			got[i], want[i] = -12345, -12345
		}
		gn, grest := intsPrefix(got, b)
		wn, wrest := intsPrefixOneByOne(want, b)
		if gn != wn || !bytes.Equal(grest, wrest) || !slices.Equal(got, want) {
			t.Fatalf("intsPrefix(%d, %x) = %d, %v, rest %x; one by one %d, %v, rest %x", n, b, gn, got, grest, wn, want, wrest)
		}
	})
}
