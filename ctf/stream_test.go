package ctf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/ctf2meta"
)

// bitWriter appends bit fields, LSB-first (little-endian) or MSB-first
// (big-endian), as CTF lays them out.
type bitWriter struct {
	b   []byte
	pos int
}

func (w *bitWriter) put(v uint64, n int, be bool) {
	for i := 0; i < n; i++ {
		var bit uint64
		if be {
			bit = v >> (n - 1 - i) & 1
		} else {
			bit = v >> i & 1
		}
		if w.pos/8 >= len(w.b) {
			w.b = append(w.b, 0)
		}
		if bit != 0 {
			if be {
				w.b[w.pos/8] |= 0x80 >> (w.pos % 8)
			} else {
				w.b[w.pos/8] |= 1 << (w.pos % 8)
			}
		}
		w.pos++
	}
}

func traceFromTSDL(tb testing.TB, tsdl string, opts ...Option) *Trace {
	tb.Helper()
	m, err := ctf2meta.ParseTSDL([]byte(tsdl))
	if err != nil {
		tb.Fatal(err)
	}
	tr, err := NewTrace(m, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// Unaligned bit fields in both byte orders, signed and unsigned, up to 64
// bits, and a 64-bit field straddling nine bytes.
func TestBitFields(t *testing.T) {
	sizes := []int{3, 13, 5, 27, 64, 11, 1, 63, 7}
	signed := []bool{false, false, true, false, false, true, false, false, true}
	vals := []uint64{5, 0x1abc, 0x1f, 0x5a5a5a5, 0xfedcba9876543210, 0x7ff, 1, 0x7123456789abcdef, 0x40}
	for _, bo := range []string{"le", "be"} {
		tsdl := "trace { major = 1; minor = 8; byte_order = " + bo + "; };\nevent { name = \"e\"; fields := struct {\n"
		for i, n := range sizes {
			sg := "false"
			if signed[i] {
				sg = "true"
			}
			tsdl += "integer { size = " + itoa(n) + "; align = 1; signed = " + sg + "; } f" + itoa(i) + ";\n"
		}
		tsdl += "}; };"
		tr := traceFromTSDL(t, tsdl)
		var w bitWriter
		for i, n := range sizes {
			w.put(vals[i], n, bo == "be")
		}
		s := tr.AddStream("s", w.b)
		if !s.Next() {
			t.Fatalf("%s: %v", bo, s.Err())
		}
		e := s.Event()
		for i, n := range sizes {
			f := e.Fields[int(e.Payload)+1+i]
			want := vals[i]
			if signed[i] && n < 64 && want>>(n-1)&1 != 0 {
				want |= ^uint64(0) << n
			}
			if f.V != want {
				t.Errorf("%s: field %d (%d bits): %#x, want %#x", bo, i, n, f.V, want)
			}
		}
	}
}

// patchPacket rewrites the events_discarded and packet_seq_num of packet k
// of a generated stream.
func patchPacket(data []byte, pktSize, k int, disc, seq uint64) {
	off := k * pktSize
	binary.LittleEndian.PutUint64(data[off+64:], seq)
	binary.LittleEndian.PutUint64(data[off+72:], disc)
}

// Discarded event records (the counter growing) and lost packets (a gap in
// the sequence numbers) are reported as losses.
func TestLosses(t *testing.T) {
	data, _ := genStreamBytes(0, 3000, 40, 4096)
	if len(data)/4096 < 5 {
		t.Fatalf("%d packets", len(data)/4096)
	}
	for k := 0; k < len(data)/4096; k++ {
		seq, disc := uint64(k), uint64(0)
		if k >= 2 {
			disc = 7
		}
		if k >= 4 {
			seq += 3
		}
		patchPacket(data, 4096, k, disc, seq)
	}
	tr := traceFromTSDL(t, genMetadata(40))
	s := tr.AddStream("s", data)
	for s.Next() {
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	ls := s.Losses()
	if len(ls) != 2 || ls[0].Packet != 2 || ls[0].Events != 7 || ls[1].Packet != 4 || ls[1].Packets != 3 {
		t.Fatalf("losses %+v", ls)
	}
	if r := s.Recovery(); r.Lost != 7 || r.Read != 3000 || r.StopOffset != -1 {
		t.Errorf("recovery %+v (StopOffset -1: the stream was read to its end)", r)
	}
}

// A file cut inside its last packet: every complete event record is read,
// the rest is reported, no error.
func TestCutLastPacket(t *testing.T) {
	data, _ := genStreamBytes(0, 3000, 40, 4096)
	tr := traceFromTSDL(t, genMetadata(40))
	full := tr.AddStream("full", data)
	n := countAll(full.Next)
	cut := data[:len(data)-4096+1500]
	s := tr.AddStream("cut", cut)
	m := 0
	for s.Next() {
		m++
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	r := s.Recovery()
	if m >= n || m < n-200 || len(r.Notes) == 0 || r.LostBytes == 0 || r.LostBytes > 100 || r.StopOffset < 0 || r.StopOffset > int64(len(cut)) {
		t.Fatalf("%d of %d events, recovery %+v", m, n, r)
	}
}

// A stream whose first packet is cut in its header is an error; bad
// magic is refused with WithStrictMagic.
func TestPacketHeaderErrors(t *testing.T) {
	data, _ := genStreamBytes(0, 100, 40, 4096)
	tr := traceFromTSDL(t, genMetadata(40), WithStrictMagic())
	cases := []struct {
		data []byte
		want error
	}{
		{data[:20], ErrTruncated},
		{append([]byte{0, 0, 0, 0}, data[4:]...), ErrBadMagic},
	}
	for i, c := range cases {
		s := tr.AddStream("x", c.data)
		for s.Next() {
		}
		if !errors.Is(s.Err(), c.want) {
			t.Errorf("case %d: %v, want %v", i, s.Err(), c.want)
		}
	}
}

// countAll calls next until it returns false; it returns how many times
// it returned true.
func countAll(next func() bool) int {
	n := 0
	for next() {
		n++
	}
	return n
}

// Packet headers holding a UUID other than the metadata's are read, as
// babeltrace2 2.1 reads them, and noted in Stream.Recovery (with the
// count, the first packet and its UUID); WithStrictUUID refuses them with
// ErrUUID, in Next and in Scan alike.
func TestPacketUUIDMismatch(t *testing.T) {
	data, _ := genStreamBytes(0, 300, 40, 1024)
	tr := traceFromTSDL(t, genMetadata(40))
	clean := tr.AddStream("clean", data)
	want := countAll(clean.Next)
	if clean.Err() != nil || len(clean.Recovery().Notes) != 0 {
		t.Fatalf("clean stream: %v %v", clean.Err(), clean.Recovery().Notes)
	}
	packets := clean.Packet().Index + 1
	bad := append([]byte(nil), data...)
	for off := 0; off < len(bad); off += 1024 {
		bad[off+4] ^= 0xff // every packet's UUID (after the magic)
	}
	note := fmt.Sprintf("%d packet headers hold a UUID other than the metadata's %s (the first: packet 0, ", packets, tr.Meta.Preamble.UUID.String())
	checkLenientHeaders(t, tr, traceFromTSDL(t, genMetadata(40), WithStrictUUID()), bad, want, note, ErrUUID, "packet 0: UUID")
}

// Packet headers whose magic number is not 0xc1fc1fc1 are read, as
// babeltrace2 2.1 reads them (it never checks the magic number), and noted
// in Stream.Recovery (the count, the first packet and its value), once per
// packet however often its header is decoded; WithStrictMagic refuses them
// with ErrBadMagic, in Next and in Scan alike.
func TestPacketMagicMismatch(t *testing.T) {
	data, _ := genStreamBytes(0, 300, 40, 1024)
	tr := traceFromTSDL(t, genMetadata(40))
	clean := tr.AddStream("clean", data)
	want := countAll(clean.Next)
	if clean.Err() != nil || len(clean.Recovery().Notes) != 0 || clean.Packet().Index < 3 {
		t.Fatalf("clean stream: %v %v, %d packets", clean.Err(), clean.Recovery().Notes, clean.Packet().Index+1)
	}
	bad := append([]byte(nil), data...)
	bad[1024], bad[3*1024+3] = 0, 0 // packets 1 and 3 (little-endian: c1 1f fc c1)
	const note = "2 packet headers hold a magic number other than 0xc1fc1fc1 (the first: packet 1, 0xc1fc1f00)"
	checkLenientHeaders(t, tr, traceFromTSDL(t, genMetadata(40), WithStrictMagic()), bad, want, note, ErrBadMagic, "packet 1: magic 0xc1fc1f00")
}

// checkLenientHeaders reads data stream bad with tr (by Next and by Scan):
// want events, no error, one Recovery note starting with note, the same
// after Packets and Reset; with strict (tr with the strict option) Next
// and Scan fail with sentinel, the error containing msg.
func checkLenientHeaders(t *testing.T, tr, strict *Trace, bad []byte, want int, note string, sentinel error, msg string) {
	t.Helper()
	for _, scan := range []bool{false, true} {
		s := tr.AddStream("bad", bad)
		next := s.Next
		if scan {
			next = s.Scan
		}
		if n := countAll(next); s.Err() != nil || n != want {
			t.Fatalf("scan %v: %d events, %v; want %d", scan, n, s.Err(), want)
		}
		notes := s.Recovery().Notes
		if len(notes) != 1 || !strings.HasPrefix(notes[0], note) {
			t.Errorf("scan %v: notes %q, want %q…", scan, notes, note)
		}
		if _, err := s.Packets(); err != nil {
			t.Fatal(err)
		}
		s.Reset()
		for s.Next() {
		}
		if notes2 := s.Recovery().Notes; len(notes2) != 1 || notes2[0] != notes[0] {
			t.Errorf("after Reset: notes %q, want %q", notes2, notes)
		}
	}
	for _, scan := range []bool{false, true} {
		s := strict.AddStream("bad", bad)
		next := s.Next
		if scan {
			next = s.Scan
		}
		countAll(next)
		if !errors.Is(s.Err(), sentinel) || !strings.Contains(s.Err().Error(), msg) {
			t.Errorf("strict, scan %v: %v", scan, s.Err())
		}
	}
}

// Every prefix and every single-byte corruption of a small stream ends in
// a clean error or a valid decode, within linear work.
func TestTruncateAndCorruptSweep(t *testing.T) {
	data, _ := genStreamBytes(0, 60, 40, 1024)
	tr := traceFromTSDL(t, genMetadata(40))
	run := func(b []byte) {
		s := tr.AddStream("x", b)
		n := 0
		for s.Next() {
			n++
			if n > len(b) {
				t.Fatalf("more events than bytes")
			}
		}
		if err := s.Err(); err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T %v", err, err)
			}
		}
		tr.Streams = tr.Streams[:0]
	}
	for i := 0; i <= len(data); i++ {
		run(data[:i])
	}
	for i := range data {
		c := append([]byte(nil), data...)
		c[i] ^= 0xff
		run(c)
	}
}

// FuzzStream decodes arbitrary bytes as a data stream of the generated
// LTTng-shaped metadata: a clean error or events, never a panic or a hang.
func FuzzStream(f *testing.F) {
	data, _ := genStreamBytes(0, 30, 40, 512)
	f.Add(data)
	f.Add(data[:300])
	tr := traceFromTSDL(f, genMetadata(40))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := newStream(tr, "f", b)
		n := 0
		for s.Next() {
			n++
			if n > len(b) {
				t.Fatal("more events than bytes")
			}
		}
		if err := s.Err(); err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T %v", err, err)
			}
		}
	})
}

// FuzzTrace decodes arbitrary TSDL metadata and data stream bytes together:
// the metadata is refused cleanly or compiled, the data decoded or refused,
// the same way by the compiled decoder, Scan and the field walk.
func FuzzTrace(f *testing.F) {
	data, _ := genStreamBytes(0, 10, 4, 512)
	f.Add([]byte(genMetadata(4)), data)
	f.Add([]byte("trace { byte_order = be; };\nevent { name = \"e\"; fields := struct { integer { size = 3; } n; integer { size = 8; } s[n]; string x; }; };"), []byte{0x60, 1, 2, 3, 'a', 0})
	f.Add([]byte("trace { byte_order = le; };\nstream { event.header := struct { enum : integer { size = 8; } { a = 0, b = 1 } id; variant <id> { integer { size = 8; } a; string b; } v; }; };\nevent { name = \"e\"; id = 0; fields := struct { floating_point { exp_dig = 8; mant_dig = 24; } f; }; };"), []byte{0, 7, 0, 0, 128, 63})
	f.Fuzz(func(t *testing.T, meta, b []byte) {
		m, err := ctf2meta.ParseTSDL(meta)
		if err != nil {
			return
		}
		tr, err := NewTrace(m, WithLimits(Limits{MaxFieldsPerEvent: 1 << 12, MaxFieldClasses: 1 << 14}))
		if err != nil {
			if !errors.Is(err, ErrMetadata) && !errors.Is(err, ErrLimit) {
				t.Fatalf("NewTrace: %v", err)
			}
			return
		}
		checkModes(t, tr, b) // compiled, Scan, packet buffer = the field walk
		s := tr.AddStream("f", b)
		n := 0
		var p Pretty
		var line []byte
		for s.Next() {
			line = p.Append(line[:0], s.Event())
			if n++; n > 8*len(b)+1 {
				t.Fatal("more events than bytes")
			}
		}
	})
}

// Random access: seeking to a packet of the LTTng index decodes the same
// events as reading the stream from the start.
func TestSeekPacketByIndex(t *testing.T) {
	data, idx := genStreamBytes(0, 3000, 40, 4096)
	tr := traceFromTSDL(t, genMetadata(40))
	s := tr.AddStream("s", data)
	ix, err := ParseIndex(idx)
	if err != nil {
		t.Fatal(err)
	}
	s.Index = ix
	if err := s.CheckIndex(); err != nil {
		t.Fatal(err)
	}
	type ev struct {
		pkt    int
		cycles uint64
		name   string
	}
	var all []ev
	for s.Next() {
		all = append(all, ev{s.Packet().Index, s.Event().Cycles, s.Event().Class.Name})
	}
	k := len(ix) / 2
	s.SeekPacket(k, ix[k].Offset)
	var from []ev
	for s.Next() {
		from = append(from, ev{s.Packet().Index, s.Event().Cycles, s.Event().Class.Name})
	}
	first := 0
	for first < len(all) && all[first].pkt < k {
		first++
	}
	if len(from) != len(all)-first || from[0] != all[first] || from[len(from)-1] != all[len(all)-1] {
		t.Fatalf("seek to packet %d: %d events (first %+v), want %d (first %+v)", k, len(from), from[0], len(all)-first, all[first])
	}
	if ix[k].Begin > from[0].cycles || s.Packet().Index != len(ix)-1 {
		t.Errorf("index begin %d, first event %d", ix[k].Begin, from[0].cycles)
	}
}

// A stream read from a file decodes a packet's header again once the
// packet is loaded whole (after CheckIndex's header-only pass, or for a
// packet beyond the read-ahead): its UUID mismatch still counts once.
func TestPacketUUIDMismatchFileCountsOnce(t *testing.T) {
	s := openDamagedStream(t, func(b []byte) []byte {
		for off := 0; off < len(b); off += 1 << 17 {
			b[off+4] ^= 0xff // every packet's UUID (after the magic)
		}
		return b
	}, false)
	for _, scan := range []bool{false, true} {
		if err := s.CheckIndex(); err != nil {
			t.Fatal(err)
		}
		next := s.Next
		if scan {
			next = s.Scan
		}
		countAll(next)
		packets := s.Packet().Index + 1
		notes := s.Recovery().Notes
		if s.Err() != nil || packets < 2 || len(notes) != 1 || !strings.HasPrefix(notes[0], fmt.Sprintf("%d packet headers hold a UUID", packets)) {
			t.Errorf("scan %v: %v, %d packets, notes %q", scan, s.Err(), packets, notes)
		}
	}
}

// TestCutPacketNotedOnceAfterCheckIndex reads a data stream file whose last
// packet is cut after CheckIndex (which walks the packets and seeks back),
// twice: the Recovery summary is the same as that of one plain pass — the
// cut packet as its Reason (ErrTruncated), the lost bytes and events read
// counted once.
func TestCutPacketNotedOnceAfterCheckIndex(t *testing.T) {
	s := openDamagedStream(t, func(b []byte) []byte { return b[:len(b)-1000] }, true) // the last packet is cut (its index entry would disagree)
	n := countAll(s.Scan)
	want := s.Recovery()
	if s.Err() != nil || len(want.Notes) != 0 || !errors.Is(want.Reason, ErrTruncated) || !strings.Contains(want.Reason.Error(), "packet 3 is cut: the file ends 1000 bytes before its declared size of 131072 bytes") || want.Read != int64(n) {
		t.Fatalf("one pass: %v, %d events, recovery %+v", s.Err(), n, want)
	}
	for _, scan := range []bool{false, true} {
		if _, err := s.Packets(); err != nil {
			t.Fatal(err)
		}
		next := s.Next
		if scan {
			next = s.Scan
		}
		if got := countAll(next); got != n {
			t.Fatalf("scan %v: %d events, want %d", scan, got, n)
		}
		got := s.Recovery()
		if !slices.Equal(got.Notes, want.Notes) || got.Reason.Error() != want.Reason.Error() || got.LostBytes != want.LostBytes || got.Read != want.Read || got.StopOffset != want.StopOffset {
			t.Errorf("scan %v: recovery %+v, want %+v", scan, got, want)
		}
	}
}

// openDamagedStream generates a one-stream trace of 20 000 events in
// 128 KiB packets, replaces its data stream file's bytes by damage(bytes),
// removes its index when noIndex, and opens the stream.
func openDamagedStream(t *testing.T, damage func([]byte) []byte, noIndex bool) *Stream {
	t.Helper()
	dir := t.TempDir()
	genTrace(t, dir, 20000, 1, 40, 1<<17)
	name := filepath.Join(dir, "channel0_0")
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, damage(b), 0o644); err != nil {
		t.Fatal(err)
	}
	if noIndex {
		if err := os.RemoveAll(filepath.Join(dir, "index")); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr.Streams[0]
}
