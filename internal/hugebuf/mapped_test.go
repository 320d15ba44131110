package hugebuf

import (
	"testing"
	"unsafe"
)

// TestMapShape: Map gives zeroed, writable memory of whole huge pages,
// aligned where huge pages are offered, nil below Min; Drop zeroes it
// again and leaves it mapped.
func TestMapShape(t *testing.T) {
	if Map(Min-1) != nil {
		t.Fatal("Map below Min returned memory")
	}
	b := Map(Min + 5)
	if b == nil {
		t.Skip("nothing mapped here (not Linux)")
	}
	if len(b) != 0 || cap(b) != roundUp(Min+5) {
		t.Fatalf("Map(%d): len %d cap %d", Min+5, len(b), cap(b))
	}
	if available() {
		if p := uintptr(unsafe.Pointer(unsafe.SliceData(b))); p%pageSize != 0 {
			t.Errorf("start %#x not aligned to %d", p, pageSize)
		}
	}
	b = b[:cap(b)]
	for i, v := range b {
		if v != 0 {
			t.Fatalf("byte %d is %d, not zero", i, v)
		}
		b[i] = byte(i) | 1
	}
	Drop(b)
	for i, v := range b {
		if v != 0 {
			t.Fatalf("after Drop byte %d is %d, not zero", i, v)
		}
	}
	b[len(b)-1] = 7 // still mapped and writable
}
