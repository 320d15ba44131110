package hugebuf

import (
	"testing"
	"unsafe"
)

func TestMakeShape(t *testing.T) {
	for _, tc := range []struct{ n, c int }{
		{0, 0}, {5, 10}, {0, Min - 1}, {Min, Min}, {3, Min + 1}, {Min + 7, 5 << 20}, {4 << 20, 4 << 20},
	} {
		b := Make(tc.n, tc.c)
		if len(b) != tc.n || cap(b) < tc.c || (cap(b) != tc.c && (tc.c < Min || cap(b) != roundUp(tc.c))) {
			t.Fatalf("Make(%d, %d): len %d cap %d", tc.n, tc.c, len(b), cap(b))
		}
		b = b[:cap(b)]
		for i, v := range b {
			if v != 0 {
				t.Fatalf("Make(%d, %d): byte %d is %d, not zero", tc.n, tc.c, i, v)
			}
		}
		for i := range b { // the whole capacity is writable
			b[i] = byte(i)
		}
		if tc.c >= Min && available() {
			if p := uintptr(unsafe.Pointer(unsafe.SliceData(b))); p%pageSize != 0 {
				t.Errorf("Make(%d, %d) with huge pages available: start %#x not aligned to %d", tc.n, tc.c, p, pageSize)
			}
		}
	}
}

func TestRoundUp(t *testing.T) {
	for _, tc := range [][2]int{{0, 0}, {1, pageSize}, {pageSize, pageSize}, {pageSize + 1, 2 * pageSize}} {
		if got := roundUp(tc[0]); got != tc[1] {
			t.Errorf("roundUp(%d) = %d, want %d", tc[0], got, tc[1])
		}
	}
}
