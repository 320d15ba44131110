package dial9

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

func TestWriterCloseIsIdempotentAndFinal(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf)
	must(t, err)
	h, err := w.Register("V", []FieldDef{{"v", TypeVarint}})
	must(t, err)
	must(t, w.WriteUints(h, 5, 1))
	must(t, w.Close())
	n := buf.Len()
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if buf.Len() != n {
		t.Fatal("second Close wrote bytes")
	}
	if err := w.WriteUints(h, 6, 2); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after Close: %v", err)
	}
	if _, err := w.Register("W", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Register after Close: %v", err)
	}
	if err := w.Flush(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Flush after Close: %v", err)
	}
	if buf.Len() != n {
		t.Fatal("calls after Close wrote bytes")
	}
	// Reset reopens it on a new writer.
	var buf2 bytes.Buffer
	must(t, w.Reset(&buf2))
	h, err = w.Register("V", []FieldDef{{"v", TypeVarint}})
	must(t, err)
	must(t, w.WriteUints(h, 7, 3))
	must(t, w.Close())
	r, err := NewBytesReader(buf2.Bytes())
	must(t, err)
	if !r.Next() || r.Event().Timestamp() != 7 || r.Next() || r.Err() != nil {
		t.Fatalf("after Reset: %v", r.Err())
	}
}

func TestWriterOptions(t *testing.T) {
	if _, err := NewWriter(nil); err == nil {
		t.Fatal("nil io.Writer accepted")
	}
	for _, o := range []Option{WithLimits(Limits{}), WithAnyVersion()} {
		if _, err := NewWriter(new(bytes.Buffer), o); err == nil || !strings.Contains(err.Error(), "reader option") {
			t.Fatalf("reader option accepted by NewWriter: %v", err)
		}
	}
	if _, err := NewWriter(new(bytes.Buffer), WithBufferSize(8)); err == nil {
		t.Fatal("tiny buffer accepted")
	}
	// WithBufferSize is the flush threshold.
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WithBufferSize(64))
	must(t, err)
	h, _ := w.Register("V", []FieldDef{{"v", TypeVarint}})
	for i := range 20 {
		must(t, w.WriteUints(h, uint64(i), 1))
	}
	if buf.Len() == 0 || len(w.Buffered()) >= 64 {
		t.Fatalf("WithBufferSize(64): %d written, %d buffered", buf.Len(), len(w.Buffered()))
	}
}

func TestNewAppendWriterNeedsAReaderAtItsEnd(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf)
	h, _ := w.Register("V", []FieldDef{{"v", TypeVarint}})
	_ = w.WriteUints(h, 5, 1)
	_ = w.WriteUints(h, 6, 2)
	must(t, w.Close())
	r, err := NewBytesReader(buf.Bytes())
	must(t, err)
	r.Next()
	if _, err := NewAppendWriter(new(bytes.Buffer), r); err == nil || !strings.Contains(err.Error(), "not at the end") {
		t.Fatalf("reader in the middle: %v", err)
	}
	r.Next()
	if _, err := NewAppendWriter(new(bytes.Buffer), r); err != nil {
		t.Fatalf("reader at its end: %v", err)
	}
	bad, _ := NewBytesReader(append(bytes.Clone(buf.Bytes()), 0x07))
	for bad.Next() {
	}
	if _, err := NewAppendWriter(new(bytes.Buffer), bad); !errors.Is(err, ErrUnknownFrame) {
		t.Fatalf("failed reader: %v", err)
	}
	if _, err := NewAppendWriter(new(bytes.Buffer), nil); err == nil {
		t.Fatal("nil reader accepted")
	}
	// A streaming reader at its end.
	sr, err := NewReader(bytes.NewReader(buf.Bytes()))
	must(t, err)
	for sr.Next() {
	}
	if _, err := NewAppendWriter(new(bytes.Buffer), sr); err != nil {
		t.Fatalf("streaming reader at its end: %v", err)
	}
}

func TestSentinelsArePrefixed(t *testing.T) {
	for _, e := range []error{ErrBadMagic, ErrUnsupportedVersion, ErrTruncated, ErrUnknownFrame, ErrUnknownType,
		ErrUnknownFieldType, ErrSchemaConflict, ErrTimestampOverflow, ErrCorrupt, ErrLimit, ErrEncode, ErrClosed} {
		if !strings.HasPrefix(e.Error(), "dial9: ") {
			t.Errorf("%q is not prefixed", e)
		}
	}
	// A FormatError with no message shows the sentinel once, after the offset.
	if got := newErr(7, ErrTruncated, "").Error(); got != "dial9: offset 7: truncated" {
		t.Fatalf("got %q", got)
	}
}

// appendAddresses copies the addresses' memory on little-endian machines;
// the portable loop must write the same bytes.
func TestAppendAddressesPortable(t *testing.T) {
	frames := []uint64{0, 1, 0x0102030405060708, ^uint64(0), 0x5555_5555_f000}
	fast := appendAddresses([]byte{9}, frames)
	saved := nativeLittleEndian
	nativeLittleEndian = false
	slow := appendAddresses([]byte{9}, frames)
	nativeLittleEndian = saved
	want := []byte{9}
	for _, f := range frames {
		want = binary.LittleEndian.AppendUint64(want, f)
	}
	if !bytes.Equal(fast, want) || !bytes.Equal(slow, want) {
		t.Fatalf("fast %x\nslow %x\nwant %x", fast, slow, want)
	}
	if got := appendAddresses(nil, nil); len(got) != 0 {
		t.Fatalf("no frames: %x", got)
	}
}
