package ctf2meta

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// plainVectors are plain metadata files (not packetized).
var plainVectors = []string{
	"lttng-2.15.1-ust-ctf2-json/trace/metadata",
	"lttng-2.15.1-ust-ctf1.8-plaintext/trace/metadata",
	"mutated-ctf2-framing/LF-after-each-fragment/trace/metadata",
	"mutated-ctf2-framing/preamble-not-first/trace/metadata",
	"mutated-ctf2-framing/declared-extension/trace/metadata",
	"mutated-ctf2-framing/no-data-stream-class/trace/metadata",
	"mutated-ctf2-framing/leading-LF-before-RS/trace/metadata",
	"third-party/babeltrace-2.1.2-tests-data/2/succeed/smalltrace/metadata",
	"third-party/babeltrace-2.1.2-tests-data/2/succeed/fl-bm/metadata",
	"third-party/babeltrace-2.1.2-tests-data/2/succeed/multi-domains/kernel/metadata",
	"third-party/babeltrace-2.1.2-tests-data/2/fail/meta-no-stream-cls/metadata",
	"third-party/babeltrace-2.1.2-tests-data/2/fail/empty-event-record/metadata",
	"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0-le/refs/base_metadata.json",
}

// allPlainMetadata returns every plain metadata text of the vectors: the
// plain files and the depacketized packetized ones.
func allPlainMetadata(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	for _, p := range plainVectors {
		out[p] = vectortest.Read(t, "ctf", p)
	}
	for _, v := range goodPacketized {
		raw := vectortest.Read(t, "ctf", v.path)
		plain, _, err := Depacketize(nil, raw)
		if err != nil {
			t.Fatal(err)
		}
		out[v.path] = plain
	}
	return out
}

func TestPacketizeRoundTrip(t *testing.T) {
	uuid := UUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	for name, plain := range allPlainMetadata(t) {
		for _, l := range []Layout{LayoutPMETA, LayoutCTF18, LayoutV20Short} {
			for _, bo := range []ByteOrder{LittleEndian, BigEndian} {
				for _, size := range []WriterOption{WithPacketSize(4096), WithPacketSize(HeaderSizePMETA + 1), WithContentSize(1000, 17)} {
					var buf bytes.Buffer
					w, err := NewWriter(&buf, WithLayout(l), WithByteOrder(bo), WithUUID(uuid), size)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := w.Write(plain); err != nil {
						if l == LayoutV20Short && plain[0] != RS && plain[0] != '/' {
							continue // content the 37-byte v2.0 layout cannot carry
						}
						t.Fatalf("%s %v %v: %v", name, l, bo, err)
					}
					if err := w.Close(); err != nil {
						t.Fatalf("%s %v %v: %v", name, l, bo, err)
					}
					got, info, err := Depacketize(nil, buf.Bytes(), WithStrict(true))
					if err != nil {
						t.Fatalf("%s %v %v: %v", name, l, bo, err)
					}
					if !bytes.Equal(got, plain) {
						t.Fatalf("%s %v %v: round trip differs", name, l, bo)
					}
					if info.Layout != l || info.ByteOrder != bo || info.UUID != uuid || info.Packets != w.Packets() {
						t.Fatalf("%s: info %+v", name, info)
					}
				}
			}
		}
	}
}

// TestRebuildConstructedVectors rebuilds the constructed packetized vectors
// byte for byte from their depacketized content.
func TestRebuildConstructedVectors(t *testing.T) {
	for _, c := range []struct {
		dir     string
		layout  Layout
		bo      ByteOrder
		content int
		padding int
	}{
		{"pmeta-le-multi", LayoutPMETA, LittleEndian, 4000, 100},
		{"pmeta-be-multi", LayoutPMETA, BigEndian, 4000, 100},
		{"pmeta-le-single", LayoutPMETA, LittleEndian, 33999, 0},
		{"v2.0-37byte-le-multi", LayoutV20Short, LittleEndian, 4000, 100},
		{"v1.8-37byte-json-content-le", LayoutCTF18, LittleEndian, 4000, 100},
	} {
		raw := vectortest.Read(t, "ctf", "constructed-from-bt2.1-json", c.dir, "trace", "metadata")
		plain, info, err := Depacketize(nil, raw)
		if err != nil {
			t.Fatal(err)
		}
		// Plain input is packetized, packetized input repacketized.
		for _, in := range [][]byte{plain, raw} {
			var buf bytes.Buffer
			pw, err := NewWriter(&buf, WithLayout(c.layout), WithByteOrder(c.bo), WithUUID(info.UUID), WithContentSize(c.content, c.padding))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ToPacketized(pw, bytes.NewReader(in)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), raw) {
				t.Errorf("%s: rebuilt file differs (%d vs %d bytes)", c.dir, buf.Len(), len(raw))
			}
		}
	}
	// LTTng 2.13 UST: 4096-byte packets, but its last packet's padding holds
	// stale ring-buffer text, so only the headers and content can match.
	raw := vectortest.Read(t, "ctf", "lttng-2.13.9-ust-ctf1.8-packetized-1pkt", "trace", "metadata")
	plain, info, _ := Depacketize(nil, raw)
	var buf bytes.Buffer
	pw, _ := NewWriter(&buf, WithLayout(LayoutCTF18), WithUUID(info.UUID))
	if _, err := ToPacketized(pw, bytes.NewReader(plain)); err != nil {
		t.Fatal(err)
	}
	if n := HeaderSizeCTF18 + len(plain); !bytes.Equal(buf.Bytes()[:n], raw[:n]) || buf.Len() != len(raw) {
		t.Error("LTTng 2.13 packet: header or content differs")
	}
}

func TestWriterFlushAndErrors(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, WithContentSize(8, 2))
	w.Write([]byte("abc"))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("defghijklmn"))
	w.Close()
	got, info, err := Depacketize(nil, buf.Bytes(), WithStrict(true))
	if err != nil || string(got) != "abcdefghijklmn" || info.Packets != 3 {
		t.Fatalf("%q %+v %v", got, info, err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("write after close: %v, want ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v, want nil", err)
	}
	if _, err := NewWriter(&buf, WithIndent("  ")); err == nil {
		t.Error("NewWriter accepted the fragment option WithIndent")
	}
	if _, err := NewFragmentWriter(&buf, WithPacketSize(512)); err == nil {
		t.Error("NewFragmentWriter accepted the packet option WithPacketSize")
	}
	if _, err := NewWriter(&buf, WithPacketSize(10)); err == nil {
		t.Error("tiny packet size accepted")
	}
	w, _ = NewWriter(&buf, WithLayout(LayoutV20Short))
	if _, err := w.Write([]byte("\x00\x00\x00abcdefgh")); err == nil {
		if err = w.Close(); err == nil {
			t.Error("ambiguous v2.0 content accepted")
		}
	}
}
