package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

func TestCTFStatsVectors(t *testing.T) {
	const bt21 = "6f019200a46938802bfe7da2ebec59aeec340670323362bc0c65a49a5dcb8673"
	for _, c := range []struct {
		path      string
		packets   int
		bytes     int
		sha       string
		byteOrder any
		version   string
		fragments int
	}{
		{"lttng-2.13.9-ust-ctf1.8-packetized-1pkt/trace", 1, 3464, "bfb82c5fb907efb0066725c0df72a417a3f0423375ae60af0ea6baf048b8ec2e", "le", "1.8", 0},
		{"lttng-2.15.1-ust-ctf2-json/trace/metadata", 0, 69715, "20840020726e1d1cf39a8fff9129a540f218135cde8561a6b4e7a19b8302df2e", nil, "2.0", 44},
		{"lttng-2.15.1-ust-ctf1.8-plaintext/trace", 0, 16676, "c4aa8de3926d47138f4abb73f9e8b0ba817ce8e6d73203dfc150623dcb7e3628", nil, "1.8", 0},
		{"constructed-from-bt2.1-json/pmeta-le-multi/trace/metadata", 9, 33999, bt21, "le", "2.0", 44},
		{"constructed-from-bt2.1-json/pmeta-be-multi/trace/metadata", 9, 33999, bt21, "be", "2.0", 44},
		{"constructed-from-bt2.1-json/pmeta-le-single/trace/metadata", 1, 33999, bt21, "le", "2.0", 44},
		{"constructed-from-bt2.1-json/v2.0-37byte-le-multi/trace/metadata", 9, 33999, bt21, "le", "2.0", 44},
		{"constructed-from-bt2.1-json/v1.8-37byte-json-content-le/trace/metadata", 9, 33999, bt21, "le", "2.0", 44},
		{"mutated-from-lttng-ctf1.8/all-headers-big-endian/trace/metadata", 6, 21118, "7611906c274b18daf3acae86f315a90ff4c7ee931dd04b157c5d852f62dc8a37", "be", "1.8", 0},
		{"mutated-from-lttng-ctf1.8/trailing-10-bytes/trace/metadata", 6, 21118, "7611906c274b18daf3acae86f315a90ff4c7ee931dd04b157c5d852f62dc8a37", "le", "1.8", 0},
		{"mutated-ctf2-framing/LF-after-each-fragment/trace/metadata", 0, 69759, "2ef311ebd0df76bc68726a239f39d540fb2e0ce3573a9cc95cf864f23b537633", nil, "2.0", 44},
		{"mutated-ctf2-framing/leading-LF-before-RS/trace/metadata", 0, 69716, "b564f16c3c4fbcfa3e26fea5f35784ef5c02e1420164da8d8b1c680543416528", nil, "2.0", 44},
		{"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0-be", 6, 671, "7acfc3ce3acca4f552a179dc11227591375478a2a4687190edf30cfea8a90135", "be", "2.0", 3},
		{"third-party/babeltrace-2.1.2-tests-data/2/succeed/smalltrace/metadata", 0, 1195, "476e8f7afb93e2cbe1f908733291f54e181a03b255ee1077823e8a3c8ffb0130", nil, "2.0", 4},
	} {
		p := vectortest.Path(t, "ctf", c.path)
		code, out, errb := run(t, nil, "stats", "--json", p)
		if code != exitOK {
			t.Errorf("%s: exit %d: %s", c.path, code, errb)
			continue
		}
		var st map[string]any
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if st["format"] != "ctf" || st["packets"] != float64(c.packets) || st["metadata_bytes"] != float64(c.bytes) || st["metadata_sha256"] != c.sha ||
			st["byte_order"] != c.byteOrder || st["version"] != c.version {
			t.Errorf("%s: %s", c.path, out)
		}
		if c.fragments > 0 && st["fragments"] != float64(c.fragments) {
			t.Errorf("%s: fragments %v", c.path, st["fragments"])
		}
		if code, out, _ := run(t, nil, "validate", p); code != exitOK || !strings.HasPrefix(out, "ok") {
			t.Errorf("%s: validate %d %s", c.path, code, out)
		}
	}
}

func TestCTFValidateRejects(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"mutated-from-lttng-ctf1.8/compression-scheme-1/trace", "offset 0: packet 0: compression scheme 1 is not supported"},
		{"mutated-from-lttng-ctf1.8/version-1.9/trace/metadata", "offset 0: packet 0: unsupported metadata packet version 1.9"},
		{"mutated-from-lttng-ctf1.8/content-size-not-mult8/trace/metadata", "offset 0: packet 0: content size 32764 bits is not a multiple of 8"},
		{"mutated-from-lttng-ctf1.8/content-lt-header/trace/metadata", "offset 0: packet 0: content size 288 bits is less than"},
		{"mutated-from-lttng-ctf1.8/uuid-mismatch-pkt2/trace/metadata", "offset 8192: packet 2: UUID eb54b572"},
		{"mutated-ctf2-framing/preamble-not-first/trace/metadata", "offset 0: fragment #1 (trace-class): expecting the preamble fragment first"},
		{"mutated-ctf2-framing/declared-extension/trace/metadata", "offset 0: fragment #1 (preamble): declares extension `ext` of namespace `my.ns`"},
		{"mutated-ctf2-framing/no-data-stream-class/trace/metadata", "offset 2236: missing data-stream-class fragment"},
		{"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0-be_partial_data_nok/metadata", "offset 609: depacketized metadata: fragment #3: JSON text ends prematurely"},
		{"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0_bad_major_nok/metadata", "unsupported metadata packet version 1.0"},
		{"third-party/actf-testdata-CTF2-PMETA-1.0/CTF2-PMETA-1.0_bad_total_sz_nok/metadata", "total size 344 bits is less than the content size 352 bits"},
	} {
		p := vectortest.Path(t, "ctf", c.path)
		code, _, errb := run(t, nil, "validate", p)
		if code != exitInvalid || !strings.HasPrefix(errb, p+": ") || !strings.Contains(errb, c.want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", c.path, code, errb, c.want)
		}
	}
}

func TestCTFDump(t *testing.T) {
	p := vectortest.Path(t, "ctf", "constructed-from-bt2.1-json/pmeta-le-multi/trace/metadata")
	code, out, errb := run(t, nil, "dump", "--json", p)
	if code != exitOK {
		t.Fatal(errb)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 9+44 {
		t.Fatalf("%d lines", len(lines))
	}
	var first, last map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if first["record"] != "packet" || first["layout"] != "pmeta-44" || first["content_bytes"] != float64(4000) || first["padding_bytes"] != float64(100) {
		t.Errorf("first line %s", lines[0])
	}
	if last["record"] != "fragment" || last["type"] != "event-record-class" || last["index"] != float64(44) || last["name"] != "anchors_many:event_039" {
		t.Errorf("last line %s", lines[len(lines)-1])
	}
	code, out, _ = run(t, nil, "dump", "--type", "packet", "--from", "index:8", p)
	if code != exitOK || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "packet 8 offset 33152: pmeta-44 le") {
		t.Errorf("filtered dump: %q", out)
	}
	for _, bad := range [][]string{{"--from", "8"}, {"--to", "tick:3"}, {"--thread", "1"}} {
		if code, _, errOut := run(t, nil, append(append([]string{"dump"}, bad...), p)...); code != exitUsage {
			t.Errorf("dump %v on CTF metadata: exit %d (%s), want 2", bad, code, errOut)
		}
	}
	code, out, _ = run(t, nil, "dump", "--type", "clock-class", vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json/trace"))
	if code != exitOK || !strings.HasPrefix(out, "fragment #3 offset ") || !strings.Contains(out, "id=monotonic") {
		t.Errorf("clock-class dump: %q", out)
	}
	code, out, _ = run(t, nil, "dump", vectortest.Path(t, "ctf", "mutated-from-lttng-ctf1.8/trailing-10-bytes/trace/metadata"))
	if code != exitOK || !strings.Contains(out, "# warning: 10 trailing byte(s)") || !strings.Contains(out, "tsdl: 21118 bytes") {
		t.Errorf("tsdl dump: %q", out)
	}
}

func TestCTFConvertRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json/trace/metadata")
	orig, _ := os.ReadFile(src)
	for _, to := range []string{"packetized", "packetized,be,size=1024", "packetized,1.8", "packetized,2.0-37,be"} {
		pk := filepath.Join(dir, "pk")
		if code, _, errb := run(t, nil, "convert", "--to", to, src, pk); code != exitInvalid || !strings.Contains(errb, "babeltrace2 reads CTF 2 only as a plain file") {
			t.Fatalf("%s without --force: exit %d: %s", to, code, errb)
		}
		if code, _, errb := run(t, nil, "convert", "--force", "--to", to, src, pk); code != exitOK {
			t.Fatalf("%s: %s", to, errb)
		}
		if code, out, _ := run(t, nil, "detect", pk); code != exitOK || !strings.Contains(out, "packetized metadata") {
			t.Errorf("%s: detect %q", to, out)
		}
		back := filepath.Join(dir, "plain")
		if code, _, errb := run(t, nil, "convert", "--to", "plain", pk, back); code != exitOK {
			t.Fatal(errb)
		}
		got, _ := os.ReadFile(back)
		if string(got) != string(orig) {
			t.Errorf("%s: round trip differs", to)
		}
	}
	// Repacketize packetized TSDL with another byte order; the UUID follows.
	src = vectortest.Path(t, "ctf", "lttng-2.13.9-ust-ctf1.8-packetized-1pkt/trace/metadata")
	pk := filepath.Join(dir, "be")
	if code, _, errb := run(t, nil, "convert", "--to", "packetized,be", src, pk); code != exitOK {
		t.Fatal(errb)
	}
	_, out, _ := run(t, nil, "stats", "--json", pk)
	if !strings.Contains(out, `"byte_order":"be"`) || !strings.Contains(out, `"uuid":"dd28fbed-e949-4dd0-b464-a81041e5ba3c"`) || !strings.Contains(out, `"header_version":"1.8"`) ||
		!strings.Contains(out, "bfb82c5fb907efb0066725c0df72a417a3f0423375ae60af0ea6baf048b8ec2e") {
		t.Errorf("stats of repacketized: %s", out)
	}
	if code, _, errb := run(t, nil, "convert", "--to", "packetized,xx", src, pk); code != exitInvalid || !strings.Contains(errb, "unknown option") {
		t.Errorf("bad option: %d %s", code, errb)
	}
}

// TestCTFConvertTSDLInV20Headers: babeltrace 2.0 and 2.1 reject TSDL text
// in version-2.0 packets, so convert refuses to write them unless --force.
func TestCTFConvertTSDLInV20Headers(t *testing.T) {
	dir := t.TempDir()
	for _, src := range []string{
		vectortest.Path(t, "ctf", "lttng-2.13.9-ust-ctf1.8-packetized-1pkt/trace/metadata"), // packetized TSDL
		vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf1.8-plaintext/trace/metadata"),       // plain TSDL
	} {
		for _, to := range []string{"packetized,2.0", "packetized,2.0-37", "packetized,be,2.0,size=1024"} {
			pk := filepath.Join(dir, "pk")
			os.Remove(pk)
			code, _, errb := run(t, nil, "convert", "--to", to, src, pk)
			if code != exitInvalid || !strings.Contains(errb, "babeltrace 2.0 and 2.1 reject such packets") || !strings.Contains(errb, "--force") {
				t.Errorf("%s %s: exit %d, %q", src, to, code, errb)
			}
			if _, err := os.Stat(pk); err == nil {
				t.Errorf("%s %s: output written although refused", src, to)
			}
			if code, _, errb := run(t, nil, "convert", "--force", "--to", to, src, pk); code != exitOK {
				t.Errorf("%s %s --force: exit %d, %s", src, to, code, errb)
			}
			if code, out, _ := run(t, nil, "stats", "--json", pk); code != exitOK || !strings.Contains(out, `"header_version":"2.0"`) || !strings.Contains(out, `"version":"1.8"`) {
				t.Errorf("%s %s --force: stats %s", src, to, out)
			}
		}
		// Metadata holds no events: it does not convert to a viewer's format.
		if code, _, errb := run(t, nil, "convert", "--to", "chrome", src, filepath.Join(dir, "c.json")); code != exitUsage || !strings.Contains(errb, "no Chrome trace form") {
			t.Errorf("%s chrome: exit %d, %q", src, code, errb)
		}
		// TSDL in 1.8 headers, the default, needs no --force.
		if code, _, errb := run(t, nil, "convert", "--to", "packetized", src, filepath.Join(dir, "ok")); code != exitOK {
			t.Errorf("%s packetized: %s", src, errb)
		}
	}
}

// ctfSampleDump is the SHA-256 of the text babeltrace2 2.1.2 prints for the
// CTF sample (TZ=UTC: tracecat dump prints UTC times).
const ctfSampleDump = "8fd46e65864f40ea65611d36e7a1031e239a0f242e29cffdec63e0614ef6324f"

// TestCTFSample: sample ctf writes a CTF 1.8 trace folder — plain TSDL with
// the "/* CTF 1.8 */" signature, a data stream per CPU with its LTTng index —
// under a temporary name; detect, validate --strict, stats, dump and convert
// --to chrome read its 400 events, and dump prints the text babeltrace2
// prints for it (run with BABELTRACE2 set, it is compared live). An existing
// OUT and standard output are refused.
func TestCTFSample(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sample-ctf")
	if code, _, errb := run(t, nil, "sample", "ctf", p); code != exitOK {
		t.Fatal(errb)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left beside the sample: %v", entries)
	}
	for _, f := range []string{"metadata", "channel0_0", "channel0_1", "index/channel0_0.idx", "index/channel0_1.idx"} {
		if fi, err := os.Stat(filepath.Join(p, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(p, "metadata")); !strings.HasPrefix(string(b), "/* CTF 1.8 */\n") {
		t.Errorf("metadata lacks the CTF 1.8 signature: %.40q", b)
	}
	if code, out, _ := run(t, nil, "detect", p); code != exitOK || out != p+": ctf (trace)\n" {
		t.Errorf("detect: %q", out)
	}
	if code, out, errb := run(t, nil, "validate", "--strict", p); code != exitOK || !strings.Contains(out, "6 event classes; 400 event records in 2 data streams") || errb != "" {
		t.Errorf("validate --strict: exit %d %q %q", code, out, errb)
	}
	code, out, errb := run(t, nil, "stats", "--json", p)
	if code != exitOK {
		t.Fatal(errb)
	}
	var st struct {
		Events       int            `json:"events"`
		DataStreams  int            `json:"data_streams"`
		ByName       map[string]int `json:"events_by_name"`
		ByStream     map[string]int `json:"events_by_stream"`
		Version      string         `json:"version"`
		TSDLSigature bool           `json:"tsdl_signature"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Events != 400 || st.DataStreams != 2 || len(st.ByName) != 6 ||
		st.ByStream["channel0_0"] != 200 || st.ByStream["channel0_1"] != 200 || st.Version != "1.8" || !st.TSDLSigature {
		t.Errorf("stats: %+v (%v) in %s", st, err, out)
	}
	code, dump, errb := run(t, nil, "dump", p)
	if code != exitOK || strings.Count(dump, "\n") != 400 || !strings.Contains(dump, `s = "str-1"`) || !strings.Contains(dump, "seq = [ [0] = 1, [1] = 2 ]") {
		t.Fatalf("dump: exit %d %s, %d lines:\n%.300s", code, errb, strings.Count(dump, "\n"), dump)
	}
	if sum := sha256.Sum256([]byte(dump)); hex.EncodeToString(sum[:]) != ctfSampleDump {
		t.Errorf("dump differs from babeltrace2's text (sha256 %x):\n%.400s", sum, dump)
	}
	if bt := os.Getenv("BABELTRACE2"); bt != "" {
		cmd := exec.Command(bt, p)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		if ref, err := cmd.Output(); err != nil || string(ref) != dump {
			t.Errorf("babeltrace2: %v; its text differs from dump's:\n%.400s", err, ref)
		}
	}
	chrome := filepath.Join(dir, "sample-ctf.json")
	if code, _, errb := run(t, nil, "convert", "--to", "chrome", p, chrome); code != exitOK {
		t.Fatal(errb)
	}
	if b, err := os.ReadFile(chrome); err != nil || !validChromeTrace(b) || !strings.Contains(string(b), `"gen:str_1"`) {
		t.Errorf("convert --to chrome: %v %.200s", err, b)
	}
	// An existing OUT stays as it is; standard output cannot hold a folder.
	if code, _, errb := run(t, nil, "sample", "ctf", p); code != exitInvalid || !strings.Contains(errb, "exists") {
		t.Errorf("sample over an existing folder: exit %d %q", code, errb)
	}
	if code, _, errb := run(t, nil, "sample", "ctf", chrome); code != exitInvalid || !strings.Contains(errb, "exists") {
		t.Errorf("sample over an existing file: exit %d %q", code, errb)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left beside the sample: %v", entries)
	}
	if code, _, errb := run(t, nil, "sample", "ctf", "-"); code != exitUsage || !strings.Contains(errb, "trace folder") {
		t.Errorf("sample to standard output: exit %d %q", code, errb)
	}
}

// ctfSampleMetadata writes the CTF sample's metadata file alone (plain TSDL)
// to path, for tests of a metadata file named directly.
func ctfSampleMetadata(t *testing.T, path string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "trace")
	if code, _, errb := run(t, nil, "sample", "ctf", dir); code != exitOK {
		t.Fatal(errb)
	}
	b, err := os.ReadFile(filepath.Join(dir, "metadata"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCTFIndex(t *testing.T) {
	p := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json", "trace", "index", "channel0_0.idx")
	if code, out, errb := run(t, nil, "validate", p); code != exitOK || out != "ok (LTTng packet index 1.1, 1 packet(s))\n" {
		t.Errorf("validate: %d %q %q", code, out, errb)
	}
	code, out, _ := run(t, nil, "stats", "--json", p)
	if code != exitOK || !strings.Contains(out, `"kind":"lttng-index","index_version":"1.1","packets":1,"first_timestamp":1823053459238,"last_timestamp":1823071747569`) {
		t.Errorf("stats: %s", out)
	}
	code, out, _ = run(t, nil, "dump", p)
	if code != exitOK || !strings.HasPrefix(out, "index 0: offset 0 packet=32768 content=672 bits") {
		t.Errorf("dump: %q", out)
	}
	// Corruptions: content larger than the packet, a cut entry, a bad magic.
	b, _ := os.ReadFile(p)
	dir := t.TempDir()
	for _, c := range []struct {
		edit func([]byte) []byte
		want string
	}{
		{func(b []byte) []byte { b[16+23] = 0xf8; b[16+22] = 0xff; return b }, "offset 16: index entry 0: content size 65528 bits exceeds the packet size 32768 bits"},
		{func(b []byte) []byte { return b[:len(b)-3] }, "not a whole 72-byte entry"},
	} {
		f := filepath.Join(dir, "bad.idx")
		os.WriteFile(f, c.edit(append([]byte(nil), b...)), 0o644)
		if code, _, errb := run(t, nil, "validate", f); code != exitInvalid || !strings.Contains(errb, c.want) {
			t.Errorf("corrupt index: %d %q, want %q", code, errb, c.want)
		}
	}
}

// TestCTFDataStreamMatchesIndex decodes LTTng 2.15 data stream packet
// headers, given as lone files, with the metadata beside them — CTF 2, and
// CTF 1.8 TSDL translated into the same model — and compares them with
// LTTng's index.
func TestCTFDataStreamMatchesIndex(t *testing.T) {
	for _, tr := range []string{"lttng-2.15.1-ust-ctf2-json", "lttng-2.15.1-ust-ctf1.8-plaintext"} {
		for _, ch := range []string{"channel0_0", "channel0_1"} {
			checkCTFStreamMatchesIndex(t, tr, ch)
		}
	}
	// A cut data stream is reported with the packet's offset.
	b, _ := os.ReadFile(vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json", "trace", "channel0_0"))
	dir := t.TempDir()
	meta, _ := os.ReadFile(vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json", "trace", "metadata"))
	os.WriteFile(filepath.Join(dir, "metadata"), meta, 0o644)
	os.WriteFile(filepath.Join(dir, "channel0_0"), b[:1000], 0o644)
	if code, _, errb := run(t, nil, "validate", filepath.Join(dir, "channel0_0")); code != exitInvalid || !strings.Contains(errb, "offset 0: packet 0: total size 4096 bytes, only 1000 remain") {
		t.Errorf("cut stream: %d %q", code, errb)
	}
}

func checkCTFStreamMatchesIndex(t *testing.T, tr, ch string) {
	stream := vectortest.Path(t, "ctf", tr, "trace", ch)
	index := vectortest.Path(t, "ctf", tr, "trace", "index", ch+".idx")
	code, out, errb := run(t, nil, "dump", "--json", stream)
	if code != exitOK {
		t.Fatal(errb)
	}
	_, iout, _ := run(t, nil, "dump", "--json", index)
	var p, ix map[string]any
	json.Unmarshal([]byte(out), &p)
	json.Unmarshal([]byte(iout), &ix)
	if p["offset"] != ix["offset"] || p["total_bits"] != ix["packet_bits"] || p["content_bits"] != ix["content_bits"] ||
		p["timestamp_begin"] != ix["timestamp_begin"] || p["timestamp_end"] != ix["timestamp_end"] || p["seq_num"] != ix["packet_seq_num"] {
		t.Errorf("%s/%s: stream %s\nindex %s", tr, ch, out, iout)
	}
	if code, out, _ := run(t, nil, "validate", stream); code != exitOK || !strings.Contains(out, "1 packet(s)") {
		t.Errorf("%s/%s: validate %q", tr, ch, out)
	}
}

// TestCTFTSDLEventClasses: the TSDL `event {` block counts and signatures of
// the README.
func TestCTFTSDLEventClasses(t *testing.T) {
	for _, c := range []struct {
		path   string
		events int
		signed bool
	}{
		{"lttng-2.13.9-ust-ctf1.8-packetized-1pkt/trace", 2, true},
		{"lttng-2.15.1-ust-ctf1.8-plaintext/trace/metadata", 40, true},
		{"mutated-from-lttng-ctf1.8/all-headers-big-endian/trace", 40, true},
		{"third-party/babeltrace-2.1.2-tests-data/1/succeed/2packets/metadata", 1, true},
		{"third-party/babeltrace-2.1.2-tests-data/1/succeed/multi-domains/kernel/metadata", 1, false},
		{"third-party/babeltrace-2.1.2-tests-data/1/succeed/lttng-tracefile-rotation/kernel/metadata", 19, false},
		{"third-party/babeltrace-2.1.2-tests-data/1/fail/invalid-packet-size/trace/metadata", 27, true},
	} {
		code, out, errb := run(t, nil, "stats", "--json", vectortest.Path(t, "ctf", c.path))
		var st map[string]any
		if code != exitOK || json.Unmarshal([]byte(out), &st) != nil {
			t.Fatalf("%s: %d %s", c.path, code, errb)
		}
		if st["event_classes"] != float64(c.events) || st["tsdl_signature"] != c.signed || st["version"] != "1.8" {
			t.Errorf("%s: %s", c.path, out)
		}
	}
}

// createOutputDir (sample's folder output): the folder is written beside
// the target under a temporary name, renamed by commit(true), removed by
// commit(false); an existing target is refused before anything is made.
func TestCreateOutputDir(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	tmp, commit, err := createOutputDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(tmp) != dir || !strings.HasPrefix(filepath.Base(tmp), ".out.tmp") {
		t.Errorf("temporary folder %s", tmp)
	}
	os.WriteFile(filepath.Join(tmp, "f"), []byte("x"), 0o644)
	if err := commit(false); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left after commit(false): %v", entries)
	}
	tmp, commit, err = createOutputDir(out)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tmp, "f"), []byte("x"), 0o644)
	if err := commit(true); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "f")); err != nil || string(b) != "x" {
		t.Errorf("after commit(true): %q %v", b, err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("mode: %v %v", fi.Mode(), err)
	}
	if _, _, err := createOutputDir(out); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("existing target: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left beside the output: %v", entries)
	}
}

// A lone data stream file (beside its CTF 2 metadata) whose packet magic
// number is wrong is read as a trace folder's is (TestCTFValidateMagicRead)
// and as babeltrace2 2.1.2 reads it: validate warns, --strict fails, stats
// and dump read its packet and print the note on the recovery line. It
// failed ("packet magic 0xc1fc1f00, want 0xc1fc1fc1").
func TestCTFDataStreamMagicRead(t *testing.T) {
	orig, p := damagedCTFStream(t, func(b []byte) {
		b[0] = 0 // packet 0's magic: 0xc1fc1f00
	})
	const note = "1 packet headers hold a magic number other than 0xc1fc1fc1 (the first: packet 0, 0xc1fc1f00); read as babeltrace2 2.1 does"
	if errb := checkNotedStream(t, orig, p, note); !strings.Contains(errb, "recovery: ") {
		t.Errorf("validate: no recovery line in %q", errb)
	}
	if code, out, errb := run(t, nil, "stats", "--json", p); code != exitOK || !strings.Contains(out, `"packets":1,`) || !strings.Contains(out, note) || !strings.Contains(errb, note) {
		t.Errorf("stats: exit %d %q %q", code, out, errb)
	}
	if code, out, errb := run(t, nil, "stats", "--json", orig); code != exitOK || strings.Contains(out, "magic") || errb != "" {
		t.Errorf("stats of the undamaged stream: exit %d %q %q", code, out, errb)
	}
}

// TestCTFDataStreamUUIDRead: a lone data stream file whose packet UUID
// differs from its metadata's is read, as the trace folder reads it
// (ctf.OpenDir, babeltrace2 2.1): validate warns, --strict fails, dump gives
// the undamaged file's packets. It failed ("metadata stream UUID … differs").
func TestCTFDataStreamUUIDRead(t *testing.T) {
	orig, p := damagedCTFStream(t, func(b []byte) {
		b[4] ^= 0xff // the first byte of packet 0's UUID, after the magic number
	})
	const note = "1 packet headers hold a UUID other than the metadata's (the first: packet 0, "
	checkNotedStream(t, orig, p, note)
}

// checkNotedStream checks what the damaged lone data stream p, a copy of
// orig, gives with note as its recovery note: validate warns with it (one
// packet, ok), --strict fails with it, dump --json prints orig's records
// and the note. It returns validate's standard error.
func checkNotedStream(t *testing.T, orig, p, note string) string {
	t.Helper()
	code, out, verr := run(t, nil, "validate", p)
	if code != exitOK || !strings.HasPrefix(out, "ok (CTF data stream, 1 packet(s);") || !strings.Contains(verr, p+": warning: "+note) {
		t.Errorf("validate: exit %d %q %q", code, out, verr)
	}
	if code, _, errb := run(t, nil, "validate", "--strict", p); code != exitInvalid || !strings.Contains(errb, p+": strict: "+note) {
		t.Errorf("validate --strict: exit %d %q", code, errb)
	}
	_, want, _ := run(t, nil, "dump", "--json", orig)
	if code, got, errb := run(t, nil, "dump", "--json", p); code != exitOK || got != want || !strings.Contains(errb, note) {
		t.Errorf("dump: exit %d %q (want the undamaged stream's %q) %q", code, got, want, errb)
	}
	return verr
}

// damagedCTFStream copies the LTTng 2.15 CTF 2 vector's channel0_0 and
// metadata into a temporary folder, the stream's bytes changed by damage;
// it returns the vector's stream path and the copy's.
func damagedCTFStream(t *testing.T, damage func([]byte)) (orig, p string) {
	t.Helper()
	orig = vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json", "trace", "channel0_0")
	b, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 4 || string(b[:4]) != "\xc1\x1f\xfc\xc1" {
		t.Fatalf("%s does not start with the little-endian packet magic number: % x", orig, b[:min(len(b), 4)])
	}
	meta, err := os.ReadFile(vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf2-json", "trace", "metadata"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p = filepath.Join(dir, "channel0_0")
	damage(b)
	if os.WriteFile(filepath.Join(dir, "metadata"), meta, 0o644) != nil || os.WriteFile(p, b, 0o644) != nil {
		t.Fatal("write")
	}
	return orig, p
}
