package ctf2meta

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

func pkt(t *testing.T, l Layout, bo ByteOrder, content string, padding int) []byte {
	h, err := NewHeader(l, bo, UUID{7}, len(content), padding)
	if err != nil {
		t.Fatal(err)
	}
	b, err := AppendPacket(nil, h, []byte(content), padding)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// both runs Depacketize and the streaming Reader, which must agree.
func both(t *testing.T, raw []byte, opts ...ReaderOption) ([]byte, StreamInfo, error) {
	t.Helper()
	plain, info, err := Depacketize(nil, raw, opts...)
	r, _ := NewReader(bytes.NewReader(raw), opts...)
	var got []byte
	for r.Next() {
		got = append(got, r.Packet().Content...)
	}
	if (err == nil) != (r.Err() == nil) || (err != nil && err.Error() != r.Err().Error()) {
		t.Fatalf("Depacketize: %v; Reader: %v", err, r.Err())
	}
	if err == nil && (!bytes.Equal(got, plain) || r.Info() != info) {
		t.Fatalf("readers disagree: %+v vs %+v", info, r.Info())
	}
	// The bytes reader agrees too, and its contents are views into raw.
	in := bytes.Clone(raw)
	br, _ := NewBytesReader(in, opts...)
	got = got[:0]
	for br.Next() {
		c := br.Packet().Content
		if len(c) > 0 && (&c[0] != &in[br.Packet().Offset+int64(br.Packet().Header.HeaderSize())]) {
			t.Fatal("NewBytesReader copied a packet's content")
		}
		got = append(got, c...)
	}
	if (err == nil) != (br.Err() == nil) || (err != nil && err.Error() != br.Err().Error()) {
		t.Fatalf("Depacketize: %v; bytes Reader: %v", err, br.Err())
	}
	if err == nil && (!bytes.Equal(got, plain) || br.Info() != info) {
		t.Fatalf("bytes reader disagrees: %+v vs %+v", info, br.Info())
	}
	if !bytes.Equal(in, raw) {
		t.Fatal("NewBytesReader modified its input")
	}
	// Reset after NewBytesReader reads the new stream with a buffer of its own.
	br.Reset(bytes.NewReader(raw))
	for br.Next() {
	}
	if !bytes.Equal(in, raw) || (err == nil) != (br.Err() == nil) {
		t.Fatalf("Reset of a bytes Reader: input modified or %v", br.Err())
	}
	return plain, info, err
}

func TestPacketEdgeCases(t *testing.T) {
	le := func(s string, pad int) []byte { return pkt(t, LayoutPMETA, LittleEndian, s, pad) }
	good := append(le("\x1e{}", 3), le("abc", 0)...)
	set32 := func(b []byte, off int, v uint32) []byte {
		c := bytes.Clone(b)
		binary.LittleEndian.PutUint32(c[off:], v)
		return c
	}
	for _, c := range []struct {
		name string
		raw  []byte
		want string
		sent error
		opts []ReaderOption
	}{
		{"good", good, "", nil, nil},
		{"empty input", nil, "", nil, nil},
		{"empty content packets", append(le("", 0), le("", 5)...), "", nil, nil},
		{"3 bytes", []byte{0x57, 0x1d, 0xd1}, "packet 0: input ends after 3 byte(s)", ErrTruncated, nil},
		{"not packetized", []byte("/* CTF 1.8 */ trace { major = 1; minor = 8; };"), "not packetized metadata", ErrBadMagic, nil},
		{"truncated header", good[:40], "packet 0: input ends after 40 byte(s) of a 44-byte packet header", ErrTruncated, nil},
		{"truncated content", good[:45], "packet 0: content ends at byte 47", ErrTruncated, nil},
		{"missing padding", good[:48], "", nil, nil},
		{"missing padding strict", good[:48], "packet 0: input ends 2 byte(s) before the end of its padding", ErrTruncated, []ReaderOption{WithStrict(true)}},
		{"second packet cut in header", append(bytes.Clone(good), good[:20]...), "packet 2: input ends after 20 byte(s)", ErrTruncated, nil},
		{"trailing garbage", append(bytes.Clone(good), "\n\n"...), "", nil, nil},
		{"trailing garbage strict", append(bytes.Clone(good), "\n\n"...), "2 trailing byte(s) after packet 1", ErrCorrupt, []ReaderOption{WithStrict(true)}},
		{"long trailing garbage", append(bytes.Clone(good), strings.Repeat("x", 50)...), "packet 2: magic 78 78 78 78", ErrBadMagic, nil},
		{"byte order change", append(le("ab", 0), pkt(t, LayoutPMETA, BigEndian, "cd", 0)...), "packet 1: header byte order big-endian differs from packet 0's little-endian", ErrCorrupt, nil},
		{"layout change", append(le("ab", 0), pkt(t, LayoutCTF18, LittleEndian, "cd", 0)...), "packet 1: header layout", ErrCorrupt, nil},
		{"header size 384", set32(le("12345678", 0), 40, 384), "header size field is 384 bits", ErrCorrupt, nil},
		{"total not mult 8", set32(le("ab", 0), 28, 44*8+17), "total size 369 bits is not a multiple of 8", ErrCorrupt, nil},
		{"zero sizes", set32(set32(le("ab", 0), 24, 0), 28, 0), "is less than", ErrCorrupt, nil},
		{"encryption", func() []byte { b := le("ab", 0); b[33] = 2; return b }(), "encryption scheme 2", ErrUnsupported, nil},
		{"checksum scheme", func() []byte { b := le("ab", 0); b[34] = 1; return b }(), "checksum scheme 1", ErrUnsupported, nil},
		{"checksum ignored", set32(le("ab", 0), 20, 0xdeadbeef), "", nil, nil},
		{"checksum strict", set32(le("ab", 0), 20, 0xdeadbeef), "non-zero checksum field 0xdeadbeef", ErrUnsupported, []ReaderOption{WithStrict(true)}},
		{"limit", le(strings.Repeat("x", 5000), 0), "exceeds the limit of 4096", ErrLimit, []ReaderOption{WithLimits(Limits{MaxPacketBytes: 4096})}},
		{"version 2.0 short content", pkt(t, LayoutV20Short, LittleEndian, "{}", 0), "", nil, nil},
	} {
		_, _, err := both(t, c.raw, c.opts...)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !errors.Is(err, c.sent) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %v containing %q", c.name, err, c.sent, c.want)
		}
	}
	_, info, _ := both(t, good[:48])
	if info.MissingPadding != 2 {
		t.Errorf("missing padding %d", info.MissingPadding)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestReaderIOErrors(t *testing.T) {
	r, _ := NewReader(errReader{})
	if r.Next() || r.Err() == nil || r.Err().Error() != "disk on fire" {
		t.Errorf("read error: %v", r.Err())
	}
	r, _ = NewReader(zeroReader{})
	if r.Next() || !errors.Is(r.Err(), io.ErrNoProgress) {
		t.Errorf("no progress: %v", r.Err())
	}
	s, _ := NewSeqReader(zeroReader{})
	if s.Next() || !errors.Is(s.Err(), io.ErrNoProgress) {
		t.Errorf("seq no progress: %v", s.Err())
	}
	// The content reader reports errors too.
	raw := pkt(t, LayoutPMETA, LittleEndian, "hello", 0)
	r, _ = NewReader(bytes.NewReader(raw[:len(raw)-1]))
	if _, err := io.ReadAll(r.Content()); !errors.Is(err, ErrTruncated) {
		t.Errorf("content reader: %v", err)
	}
	r, _ = NewReader(bytes.NewReader(append(bytes.Clone(raw), raw...)))
	if b, err := io.ReadAll(r.Content()); err != nil || string(b) != "hellohello" {
		t.Errorf("content reader: %q %v", b, err)
	}
}

func TestDetect(t *testing.T) {
	for in, want := range map[string]Kind{
		"": KindUnknown, "\x57\x1d\xd1\x75": KindPacketized, "\x75\xd1\x1d\x57xx": KindPacketized,
		"\x1e{": KindCTF2, "/* CTF 1.8 */": KindTSDL, "typealias integer": KindTSDL, "\n\x1e{": KindTSDL,
	} {
		if got := Detect([]byte(in)); got != want {
			t.Errorf("Detect(%q) = %v, want %v", in, got, want)
		}
	}
	if ContentVersion([]byte("\x1e{}")) != "2.0" || ContentVersion([]byte("/* CTF 1.8 */")) != "1.8" {
		t.Error("ContentVersion")
	}
}

func TestHeaderEncoding(t *testing.T) {
	h, _ := NewHeader(LayoutPMETA, BigEndian, UUID{0xab}, 10, 2)
	b := AppendHeader(nil, &h)
	want := "75d11d57ab00000000000000000000000000000000000000000001b0000001c0000000020000000000000160"
	if got := hexs(b); got != want {
		t.Errorf("header\n got  %s\n want %s", got, want)
	}
	if h.TotalSize() != 56 || h.ContentSize() != 10 || h.PaddingSize() != 2 {
		t.Error("sizes")
	}
	if _, err := NewHeader(Layout(9), LittleEndian, UUID{}, 0, 0); err == nil {
		t.Error("bad layout accepted")
	}
}

func hexs(b []byte) string {
	const d = "0123456789abcdef"
	var s []byte
	for _, c := range b {
		s = append(s, d[c>>4], d[c&15])
	}
	return string(s)
}

// TestHeaderFastPath checks that the fast path for packets after the first
// decodes exactly as the full decode does, on every one-byte change of
// packet 1's header, in both byte orders, both fast layouts and strict mode.
func TestHeaderFastPath(t *testing.T) {
	for _, l := range []Layout{LayoutCTF18, LayoutPMETA, LayoutV20Short} {
		for _, bo := range []ByteOrder{LittleEndian, BigEndian} {
			for _, strict := range []bool{false, true} {
				stream := append(pkt(t, l, bo, "\x1e{\"a\":1}", 5), pkt(t, l, bo, "{\"b\":2}...", 3)...)
				p1 := len(pkt(t, l, bo, "\x1e{\"a\":1}", 5))
				o, _ := buildOptions([]ReaderOption{WithStrict(strict)})
				for i := p1; i < p1+l.HeaderSize(); i++ {
					for k, v := range []byte{0, 1, 0x7f, 0x80, 0xff, stream[i] ^ 1, stream[i] + 8, 0, 1, 9} {
						b := bytes.Clone(stream)
						b[i] = v
						if k >= 7 {
							// Two bytes at once: this one and the next.
							b[min(i+1, len(b)-1)] ^= v + 1
						}
						fast, slow := newHeaderCheck(&o), newHeaderCheck(&o)
						fast.decode(b, 0, 0)
						slow.decode(b, 0, 0)
						slow.fast = false
						if fast.fast != (l != LayoutV20Short) {
							t.Fatalf("%v: fast path %v after packet 0", l, fast.fast)
						}
						for _, cut := range []int{len(b), p1 + HeaderSizeCTF18, p1 + 20} {
							hf, nf, ef := fast.decode(b[p1:cut], 1, int64(p1))
							hs, ns, es := slow.decode(b[p1:cut], 1, int64(p1))
							if hf != hs || nf != ns || (ef == nil) != (es == nil) || (ef != nil && ef.Error() != es.Error()) {
								t.Fatalf("%v %v strict=%v byte %d = %#x cut %d:\n fast %+v %d %v\n slow %+v %d %v", l, bo, strict, i-p1, v, cut, hf, nf, ef, hs, ns, es)
							}
						}
					}
				}
			}
		}
	}
}
