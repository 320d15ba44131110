package ctf2meta

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

const recoveryJSON = "\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"data-stream-class\",\"id\":7}" +
	"\x1e{\"type\":\"event-record-class\",\"data-stream-class-id\":7,\"id\":3,\"name\":\"tick\"}"

func recoveryPackets(t *testing.T, opts ...WriterOption) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := NewWriter(&b, append([]WriterOption{WithPacketSize(64)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(recoveryJSON))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readAllWays reads packetized input with Reader, Depacketize and
// FragmentReader and checks that the three reports agree.
func readAllWays(t *testing.T, in []byte, opts ...ReaderOption) (Recovery, Recovery) {
	t.Helper()
	r, _ := NewReader(bytes.NewReader(in), opts...)
	for r.Next() {
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	_, info, err := Depacketize(nil, in, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := info.Recovery(), r.Recovery(); got != want {
		t.Fatalf("Depacketize %+v, Reader %+v", got, want)
	}
	d, _ := NewFragmentReader(bytes.NewReader(in), opts...)
	for d.Next() {
	}
	if d.Err() != nil {
		t.Fatal(d.Err())
	}
	fr := d.Recovery()
	if fr.Fragments != 3 || fr.Packets != r.Recovery().Packets || fr.Bytes != r.Recovery().Bytes {
		t.Fatalf("FragmentReader %+v, Reader %+v", fr, r.Recovery())
	}
	return r.Recovery(), fr
}

func TestRecoveryPacketized(t *testing.T) {
	good := recoveryPackets(t)
	rec, fr := readAllWays(t, good)
	if rec.Packets != len(good)/64 || rec.Bytes != int64(len(good)) || len(rec.Lenient()) != 0 {
		t.Fatalf("clean: %+v", rec)
	}
	if s := rec.Summary(); !s.Clean() || s.Unit != "packets" || s.Read != int64(rec.Packets) || s.ReadBytes != int64(len(good)) {
		t.Fatalf("clean summary %+v", s)
	}
	if s := fr.Summary(); !s.Clean() || s.Unit != "fragments" || s.Read != 3 {
		t.Fatalf("clean fragment summary %+v", s)
	}

	// Trailing bytes: lost, the strict error as the reason.
	for n := 1; n < HeaderSizeCTF18; n++ {
		in := append(bytes.Clone(good), bytes.Repeat([]byte{0xab}, n)...)
		rec, _ := readAllWays(t, in)
		s := rec.Summary()
		if rec.TrailingBytes != n || rec.Bytes != int64(len(good)) || s.LostBytes != int64(n) || s.Lost != -1 ||
			s.StopOffset != int64(len(good)) || !errors.Is(s.Reason, ErrCorrupt) || !s.Lossy() {
			t.Fatalf("%d trailing: %+v, summary %+v", n, rec, s)
		}
		if _, _, err := Depacketize(nil, in, WithStrict(true)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("strict: %v", err)
		}
	}

	// Missing padding: nothing lost, a note.
	h, _ := NewHeader(LayoutPMETA, LittleEndian, UUID{1}, 4, 60)
	cut, _ := AppendPacket(nil, h, []byte("\x1e{}\n"), 60)
	cut = cut[:len(cut)-20]
	r, _ := NewReader(bytes.NewReader(cut))
	for r.Next() {
	}
	rec = r.Recovery()
	if s := rec.Summary(); rec.MissingPadding != 20 || rec.Bytes != int64(len(cut)) || s.Lossy() || s.Clean() ||
		len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "padding") {
		t.Fatalf("missing padding: %+v, summary %+v", rec, s)
	}

	// A non-zero checksum field: ignored and noted.
	ck := bytes.Clone(good)
	binary.LittleEndian.PutUint32(ck[64+20:], 0xdeadbeef)
	rec, _ = readAllWays(t, ck)
	if s := rec.Summary(); rec.IgnoredChecksums != 1 || s.Clean() || s.Lossy() || !strings.Contains(s.String(), "checksum") {
		t.Fatalf("checksum: %+v, summary %+v", rec, s)
	}

	// The 37-byte v2.0 layout: a note.
	short := recoveryPackets(t, WithLayout(LayoutV20Short))
	rec, _ = readAllWays(t, short)
	if s := rec.Summary(); !rec.ShortV20 || s.Clean() || s.Lossy() {
		t.Fatalf("short v2.0: %+v, summary %+v", rec, s)
	}
}

func TestRecoveryJSONLeadingWhitespace(t *testing.T) {
	d, _ := NewFragmentReader(strings.NewReader("  \n" + recoveryJSON))
	for d.Next() {
	}
	if d.Err() != nil {
		t.Fatal(d.Err())
	}
	rec := d.Recovery()
	s := rec.Summary()
	if rec.Kind != KindCTF2 || rec.Fragments != 3 || rec.LeadingWhitespace != 3 || rec.Bytes != int64(3+len(recoveryJSON)) ||
		s.Unit != "fragments" || s.Read != 3 || s.Clean() || s.Lossy() || len(s.Notes) != 1 {
		t.Fatalf("report %+v, summary %+v", rec, s)
	}
	d, _ = NewFragmentReader(strings.NewReader(recoveryJSON))
	for d.Next() {
	}
	if s := d.Recovery().Summary(); !s.Clean() || s.ReadBytes != int64(len(recoveryJSON)) {
		t.Fatalf("clean: %+v", s)
	}
}
