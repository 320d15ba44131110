package ctf2meta

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// goodPacketized lists the packetized vectors that must depacketize, with the
// values the vectors README gives.
var goodPacketized = []struct {
	path     string
	packets  int
	layout   Layout
	bo       ByteOrder
	bytes    int
	sha      string
	trailing int
}{
	{"lttng-2.13.9-ust-ctf1.8-packetized-1pkt/trace/metadata", 1, LayoutCTF18, LittleEndian, 3464, "bfb82c5fb907efb0066725c0df72a417a3f0423375ae60af0ea6baf048b8ec2e", 0},
	{"constructed-from-bt2.1-json/pmeta-le-multi/trace/metadata", 9, LayoutPMETA, LittleEndian, 33999, shaBT21, 0},
	{"constructed-from-bt2.1-json/pmeta-be-multi/trace/metadata", 9, LayoutPMETA, BigEndian, 33999, shaBT21, 0},
	{"constructed-from-bt2.1-json/pmeta-le-single/trace/metadata", 1, LayoutPMETA, LittleEndian, 33999, shaBT21, 0},
	{"constructed-from-bt2.1-json/v2.0-37byte-le-multi/trace/metadata", 9, LayoutV20Short, LittleEndian, 33999, shaBT21, 0},
	{"constructed-from-bt2.1-json/v1.8-37byte-json-content-le/trace/metadata", 9, LayoutCTF18, LittleEndian, 33999, shaBT21, 0},
	{"mutated-from-lttng-ctf1.8/all-headers-big-endian/trace/metadata", 6, LayoutCTF18, BigEndian, 21118, sha2139many, 0},
	{"mutated-from-lttng-ctf1.8/trailing-10-bytes/trace/metadata", 6, LayoutCTF18, LittleEndian, 21118, sha2139many, 10},
	{"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0-le/metadata", 6, LayoutPMETA, LittleEndian, 671, shaActf, 0},
	{"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0-be/metadata", 6, LayoutPMETA, BigEndian, 671, shaActf, 0},
	{"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0-be_partial_data_nok/metadata", 6, LayoutPMETA, BigEndian, 610, "66feb14206063fe15a420732587dc261ac0de57940ed48d0f3d931d76ee7a54c", 0},
	{"third-party/babeltrace-2.1.2-tests-data/1/succeed/2packets/metadata", 1, LayoutCTF18, LittleEndian, 2686, sha2packets, 0},
	{"third-party/babeltrace-2.1.2-tests-data/1/succeed/meta-trailing-byte/metadata", 1, LayoutCTF18, LittleEndian, 2686, sha2packets, 1},
	{"third-party/babeltrace-2.1.2-tests-data/1/succeed/multi-domains/ust/metadata", 2, LayoutCTF18, LittleEndian, 2712, "02d72cb6f1401a84d37bfff573bbfa5c5b6e5185957d050f148999120dab4b23", 0},
	{"third-party/babeltrace-2.1.2-tests-data/1/succeed/multi-domains/kernel/metadata", 4, LayoutCTF18, LittleEndian, 6210, "b9096e96d420b5ece3ddaed33d76e1286e2ba0e305fa1a65d0c0015420f8c07d", 0},
	{"third-party/babeltrace-2.1.2-tests-data/1/succeed/lttng-tracefile-rotation/kernel/metadata", 4, LayoutCTF18, LittleEndian, 10338, "65c15e3e1f92ea9bc4e598498e5f3ce76a1d7719fdbafea33d7cafb8001fbf6f", 0},
	{"third-party/babeltrace-2.1.2-tests-data/1/fail/invalid-packet-size/trace/metadata", 4, LayoutCTF18, LittleEndian, 14351, "1f323374314eca2b09c75526ad336c6f92e4f8f06465120f06a30274b3127f94", 0},
}

const (
	shaBT21     = "6f019200a46938802bfe7da2ebec59aeec340670323362bc0c65a49a5dcb8673"
	sha2139many = "7611906c274b18daf3acae86f315a90ff4c7ee931dd04b157c5d852f62dc8a37"
	shaActf     = "7acfc3ce3acca4f552a179dc11227591375478a2a4687190edf30cfea8a90135"
	sha2packets = "71a5b11b887c24bb9b635154012f096a72f56792a32a6dad9a9ab298a5af76f9"
)

// badPacketized lists the packetized vectors every reader must reject.
var badPacketized = []struct {
	path     string
	sentinel error
	offset   int64
	packet   int
	contains string
}{
	{"mutated-from-lttng-ctf1.8/compression-scheme-1/trace/metadata", ErrUnsupported, 0, 0, "compression scheme 1"},
	{"mutated-from-lttng-ctf1.8/version-1.9/trace/metadata", ErrUnsupportedVersion, 0, 0, "version 1.9"},
	{"mutated-from-lttng-ctf1.8/content-size-not-mult8/trace/metadata", ErrCorrupt, 0, 0, "content size 32764 bits is not a multiple of 8"},
	{"mutated-from-lttng-ctf1.8/content-lt-header/trace/metadata", ErrCorrupt, 0, 0, "content size 288 bits is less than the 296-bit header"},
	{"mutated-from-lttng-ctf1.8/uuid-mismatch-pkt2/trace/metadata", ErrCorrupt, 8192, 2, "UUID eb54b572-b36f-47a8-914b-c46867d5db44 differs from packet 0's 1454b572-b36f-47a8-914b-c46867d5db44"},
	{"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0_bad_major_nok/metadata", ErrUnsupportedVersion, 0, 0, "version 1.0"},
	{"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0_bad_total_sz_nok/metadata", ErrCorrupt, 0, 0, "total size 344 bits is less than the content size 352 bits"},
	{"third-party/babeltrace-2.1.2-tests-data/1/fail/lttng-modules-2.0-pre1/metadata", ErrUnsupportedVersion, 0, 0, "version 116.121"},
	{"third-party/babeltrace-2.1.2-tests-data/1/fail/packet-based-metadata/metadata", ErrUnsupportedVersion, 0, 0, "version 116.121"},
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func TestDepacketizeVectors(t *testing.T) {
	for _, v := range goodPacketized {
		t.Run(v.path, func(t *testing.T) {
			raw := vectortest.Read(t, "ctf", v.path)
			plain, info, err := Depacketize(nil, raw)
			if err != nil {
				t.Fatal(err)
			}
			if len(plain) != v.bytes || sha(plain) != v.sha {
				t.Errorf("depacketized %d bytes sha %s, want %d %s", len(plain), sha(plain), v.bytes, v.sha)
			}
			if info.Packets != v.packets || info.Layout != v.layout || info.ByteOrder != v.bo || info.TrailingBytes != v.trailing {
				t.Errorf("info %+v", info)
			}
			// The streaming reader, with a reader that returns one byte at a time
			// for the worst case of buffering.
			for _, src := range []interface{ Read([]byte) (int, error) }{bytes.NewReader(raw), &oneByteReader{raw}} {
				r, _ := NewReader(src)
				var got []byte
				for p := range r.All() {
					if p == nil {
						break
					}
					got = append(got, p.Content...)
				}
				if r.Err() != nil {
					t.Fatal(r.Err())
				}
				if !bytes.Equal(got, plain) || r.Info() != info {
					t.Errorf("streaming: %d bytes, info %+v; want %+v", len(got), r.Info(), info)
				}
			}
			var buf bytes.Buffer
			if _, err := ToPlain(&buf, bytes.NewReader(raw)); err != nil || !bytes.Equal(buf.Bytes(), plain) {
				t.Errorf("ToPlain: %v", err)
			}
		})
	}
}

type oneByteReader struct{ b []byte }

func (o *oneByteReader) Read(p []byte) (int, error) {
	if len(o.b) == 0 {
		return 0, errEOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = o.b[0]
	o.b = o.b[1:]
	return 1, nil
}

var errEOF = io.EOF

func TestRejectedPacketVectors(t *testing.T) {
	for _, v := range badPacketized {
		t.Run(v.path, func(t *testing.T) {
			raw := vectortest.Read(t, "ctf", v.path)
			_, _, err := Depacketize(nil, raw)
			checkErr(t, err, v.sentinel, v.offset, v.packet, v.contains)
			r, _ := NewReader(bytes.NewReader(raw))
			for r.Next() {
			}
			checkErr(t, r.Err(), v.sentinel, v.offset, v.packet, v.contains)
			if !r.Next() && r.Err() == nil {
				t.Error("error not sticky")
			}
		})
	}
}

func checkErr(t *testing.T, err, sentinel error, off int64, pkt int, contains string) {
	t.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, sentinel) {
		t.Fatalf("got %v, want a FormatError wrapping %v", err, sentinel)
	}
	if fe.Offset != off || !strings.Contains(fe.Msg, fmt.Sprintf("packet %d:", pkt)) || !strings.Contains(fe.Msg, contains) {
		t.Errorf("got %q (offset %d), want offset %d packet %d containing %q", fe.Msg, fe.Offset, off, pkt, contains)
	}
}

func TestStrictRejectsWhatBabeltraceRejects(t *testing.T) {
	for _, c := range []struct {
		path     string
		sentinel error
		contains string
	}{
		{"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0-le/metadata", ErrUnsupported, "non-zero checksum field 0x539"},
		{"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0-be/metadata", ErrUnsupported, "non-zero checksum field 0x39050000"},
		{"mutated-from-lttng-ctf1.8/trailing-10-bytes/trace/metadata", ErrCorrupt, "10 trailing byte(s) after packet 5"},
		{"third-party/babeltrace-2.1.2-tests-data/1/succeed/meta-trailing-byte/metadata", ErrCorrupt, "1 trailing byte(s)"},
	} {
		raw := vectortest.Read(t, "ctf", c.path)
		_, _, err := Depacketize(nil, raw, WithStrict(true))
		if !errors.Is(err, c.sentinel) || !strings.Contains(err.Error(), c.contains) {
			t.Errorf("%s: strict Depacketize: %v", c.path, err)
		}
		r, _ := NewReader(bytes.NewReader(raw), WithStrict(true))
		for r.Next() {
		}
		if !errors.Is(r.Err(), c.sentinel) || !strings.Contains(r.Err().Error(), c.contains) {
			t.Errorf("%s: strict Reader: %v", c.path, r.Err())
		}
	}
	raw := vectortest.Read(t, "ctf", "constructed-from-bt2.1-json/v2.0-37byte-le-multi/trace/metadata")
	if _, _, err := Depacketize(nil, raw, WithShortV20(false)); !errors.Is(err, ErrUnsupportedVersion) {
		t.Errorf("WithShortV20(false): %v", err)
	}
}

// TestPacketsTxt compares every header field with the vectors' packets.txt.
func TestPacketsTxt(t *testing.T) {
	root := vectortest.Dir(t, "ctf")
	n := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != "packets.txt" {
			return err
		}
		want := parsePacketsTxt(t, p)
		meta := filepath.Join(filepath.Dir(p), "trace", "metadata")
		if _, err := os.Stat(meta); err != nil {
			meta = filepath.Join(filepath.Dir(p), "metadata")
		}
		raw, err := os.ReadFile(meta)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, meta)
		r, _ := NewReader(bytes.NewReader(raw))
		var got []string
		for r.Next() {
			got = append(got, formatPacketLine(r.Packet()))
		}
		if r.Err() != nil {
			// Rejected files: compare the headers before the failing packet.
			if len(got) > len(want) {
				t.Errorf("%s: %d packets decoded, packets.txt lists %d", rel, len(got), len(want))
			}
			want = want[:min(len(want), len(got))]
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d packets, packets.txt lists %d", rel, len(got), len(want))
		}
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Errorf("%s packet %d:\n got  %s\n want %s", rel, i, got[i], want[i])
			}
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Errorf("only %d packets.txt files checked", n)
	}
}

// parsePacketsTxt returns the good packet lines of packets.txt, normalised
// like formatPacketLine.
func parsePacketsTxt(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "pkt") || strings.Contains(line, "BAD MAGIC") {
			continue
		}
		fields := strings.Fields(line)
		kv := map[string]string{}
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			kv[k] = v
		}
		if kv["padding_bytes"] == "NEG" {
			continue
		}
		// The 37-byte v2.0 layout has no reserved/header-size fields.
		if kv["ver"] == "2.0" && kv["hdr_bits"] != "352" {
			delete(kv, "reserved")
			delete(kv, "hdr_bits")
		}
		s := fmt.Sprintf("off=%s bo=%s uuid=%s checksum=%s content_bits=%s total_bits=%s comp=%s enc=%s cks=%s ver=%s", kv["off"], kv["bo"], kv["uuid"], kv["checksum"], kv["content_bits"], kv["total_bits"], kv["comp"], kv["enc"], kv["cks"], kv["ver"])
		if r, ok := kv["reserved"]; ok {
			s += " reserved=" + r + " hdr_bits=" + kv["hdr_bits"]
		}
		out = append(out, s+" padding_bytes="+kv["padding_bytes"])
	}
	return out
}

func formatPacketLine(p *Packet) string {
	h := &p.Header
	s := fmt.Sprintf("off=%d bo=%s uuid=%s checksum=0x%x content_bits=%d total_bits=%d comp=%d enc=%d cks=%d ver=%d.%d", p.Offset, strings.ToUpper(h.ByteOrder.Short()), h.UUID, h.Checksum, h.ContentBits, h.TotalBits, h.CompressionScheme, h.EncryptionScheme, h.ChecksumScheme, h.Major, h.Minor)
	if h.Layout == LayoutPMETA {
		s += " reserved=" + hex.EncodeToString(h.Reserved[:]) + " hdr_bits=" + strconv.Itoa(int(h.HeaderBits))
	}
	return s + " padding_bytes=" + strconv.Itoa(h.PaddingSize())
}

// TestPlainVectorHashes checks the plain metadata files against the README
// (depacketized = the file itself) and the metadata.sha256 files.
func TestPlainVectorHashes(t *testing.T) {
	for path, want := range map[string]string{
		"lttng-2.15.1-ust-ctf2-json/trace/metadata":                                       "20840020726e1d1cf39a8fff9129a540f218135cde8561a6b4e7a19b8302df2e",
		"lttng-2.15.1-ust-ctf1.8-plaintext/trace/metadata":                                "c4aa8de3926d47138f4abb73f9e8b0ba817ce8e6d73203dfc150623dcb7e3628",
		"mutated-ctf2-framing/LF-after-each-fragment/trace/metadata":                      "2ef311ebd0df76bc68726a239f39d540fb2e0ce3573a9cc95cf864f23b537633",
		"mutated-ctf2-framing/preamble-not-first/trace/metadata":                          "4a6c8562c601f0e2cfb0d4b9a98449ac1afc5581874ee8fa22035766b01c7dee",
		"mutated-ctf2-framing/declared-extension/trace/metadata":                          "cf4d58cbb960afab0aeb7f158b2d0dfe3e8f651baf72167de77664e6a637975c",
		"mutated-ctf2-framing/no-data-stream-class/trace/metadata":                        "133983282edcc2c4c788f95240b477b0600f494e1682c83bcfe430e460b65f22",
		"mutated-ctf2-framing/leading-LF-before-RS/trace/metadata":                        "b564f16c3c4fbcfa3e26fea5f35784ef5c02e1420164da8d8b1c680543416528",
		"third-party/babeltrace-2.1.2-tests-data/2/succeed/smalltrace/metadata":           "476e8f7afb93e2cbe1f908733291f54e181a03b255ee1077823e8a3c8ffb0130",
		"third-party/babeltrace-2.1.2-tests-data/2/succeed/fl-bm/metadata":                "f7e3ee4970b4514b2b4535888284032180546816b910a5693496142970e7d4c0",
		"third-party/babeltrace-2.1.2-tests-data/2/succeed/multi-domains/kernel/metadata": "d0b2f88578a54f0283cb00cbc4c4cb4bfd982d69340453e94a65ebe9d1b9f665",
	} {
		raw := vectortest.Read(t, "ctf", path)
		if Detect(raw) == KindPacketized {
			t.Errorf("%s: detected as packetized", path)
		}
		var buf bytes.Buffer
		info, err := ToPlain(&buf, bytes.NewReader(raw))
		if err != nil || info.Packets != 0 || sha(buf.Bytes()) != want {
			t.Errorf("%s: ToPlain sha %s (%v), want %s", path, sha(buf.Bytes()), err, want)
		}
	}
	for _, dir := range []string{"lttng-2.13.9-ust-ctf1.8-packetized-1pkt", "lttng-2.15.1-ust-ctf2-json", "lttng-2.15.1-ust-ctf1.8-plaintext"} {
		line := string(vectortest.Read(t, "ctf", dir, "metadata.sha256"))
		want, _, _ := strings.Cut(line, " ")
		if got := sha(vectortest.Read(t, "ctf", dir, "trace", "metadata")); got != want {
			t.Errorf("%s: metadata sha %s, metadata.sha256 says %s", dir, got, want)
		}
	}
}

// TestActfReferenceMetadata: actf's packetized files depacketize to its
// refs/base_metadata.json.
func TestActfReferenceMetadata(t *testing.T) {
	for _, dir := range []string{"CTF2-PMETA-1.0-le", "CTF2-PMETA-1.0-be", "CTF2-PMETA-1.0-be_partial_data_nok"} {
		raw := vectortest.Read(t, "ctf", "third-party", "actf-testdata-CTF2-PMETA-1.0", dir, "metadata")
		ref := vectortest.Read(t, "ctf", "third-party", "actf-testdata-CTF2-PMETA-1.0", dir, "refs", "base_metadata.json")
		plain, info, err := Depacketize(nil, raw)
		if err != nil || !bytes.Equal(plain, ref) {
			t.Errorf("%s: %v, equal to refs/base_metadata.json: %v", dir, err, bytes.Equal(plain, ref))
		}
		if info.UUID.String() != "01020304-0506-0708-090a-0b0c0d0e0f10" || info.Packets != 6 {
			t.Errorf("%s: %+v", dir, info)
		}
		// Checksums 0x539 / 0x39050000 are ignored by default.
		r, _ := NewReader(bytes.NewReader(raw))
		empty := 0
		for r.Next() {
			if r.Packet().Header.Checksum == 0 {
				t.Errorf("%s: checksum 0", dir)
			}
			if len(r.Packet().Content) == 0 {
				empty++
			}
		}
		if empty != 2 {
			t.Errorf("%s: %d empty packets, want 2", dir, empty)
		}
	}
}
