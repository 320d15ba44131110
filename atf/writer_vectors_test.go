package atf

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// rewriteThread replays a vector thread through our ThreadWriter (events and
// payloads as read back by our reader) and returns the files it writes.
func rewriteThread(t *testing.T, dir string, finalize bool, opts ...WriterOption) (index, detail []byte) {
	t.Helper()
	th, err := OpenThread(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	var ib, db memFile
	opts = append([]WriterOption{WithArch(ArchX86_64), WithOS(OSLinux), WithClock(ClockType(th.Index.Header().ClockType))}, opts...)
	tw, err := NewThreadWriter(&ib, func() (ioWS, error) { return &db, nil }, th.ID, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for seq, e := range numbered(th.Index.All(), t.Error) {
		d, ok, err := th.DetailFor(e, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got uint32
		switch {
		case !ok:
			got, err = tw.Write(e.Timestamp, e.FunctionID, e.Kind, e.CallDepth, nil)
		case len(d.Payload) >= DetailFunctionPayloadSize && len(d.Payload) != 516:
			// The ARM64 DetailFunctionPayload helper must reproduce it.
			p, stack, ok := DecodeDetailFunctionPayload(d.Payload)
			if !ok || DetailFunctionPayloadSize+len(stack) != len(d.Payload) {
				t.Fatalf("seq %d: payload does not decode as DetailFunctionPayload", seq)
			}
			if p.FunctionID != e.FunctionID {
				t.Fatalf("seq %d: payload function id %#x", seq, p.FunctionID)
			}
			got, err = tw.WriteFunction(e.Timestamp, e.Kind, e.CallDepth, &p, stack)
		default:
			got, err = tw.Write(e.Timestamp, e.FunctionID, e.Kind, e.CallDepth, d.Payload)
		}
		if err != nil || uint64(got) != seq {
			t.Fatalf("write %d: seq %d, %v", seq, got, err)
		}
	}
	if finalize {
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := tw.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	} else if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	return ib.b, db.b
}

// TestWriterReproducesReferenceBytes: with the reference's checksum choice (0)
// and host bytes, our writer produces the vector files byte for byte —
// finalized (normal) and crashed-after-flush (crash_flushed).
func TestWriterReproducesReferenceBytes(t *testing.T) {
	for _, c := range []struct {
		dir      string
		threads  []string
		finalize bool
	}{
		{normalDir, []string{"thread_0", "thread_1", "thread_2", "thread_3"}, true},
		{crashDir, []string{"thread_0", "thread_1"}, false},
	} {
		for _, name := range c.threads {
			dir := vectortest.Path(t, "atf", c.dir, name)
			index, detail := rewriteThread(t, dir, c.finalize, WithChecksum(false))
			if want := vectortest.Read(t, "atf", c.dir, name, "index.atf"); !bytes.Equal(index, want) {
				t.Errorf("%s/%s/index.atf differs:\n got %x\nwant %x", c.dir, name, index, want)
			}
			wantDetail := []byte(nil)
			if p := filepath.Join(dir, "detail.atf"); fileExists(p) {
				wantDetail = vectortest.Read(t, "atf", c.dir, name, "detail.atf")
			}
			if !bytes.Equal(detail, wantDetail) {
				t.Errorf("%s/%s/detail.atf differs (%d vs %d bytes)", c.dir, name, len(detail), len(wantDetail))
			}
		}
	}
}

// TestWriterChecksums: with the default CRC-32, the only bytes that differ
// from the reference are the footers' checksum fields, and they hold the
// CRC-32/IEEE value decoded.json computed for each events section.
func TestWriterChecksums(t *testing.T) {
	var decoded struct {
		Threads map[string]map[string]struct {
			CRC    uint32 `json:"crc32_ieee_of_events_section_if_it_were_computed"`
			Footer *struct {
				Offset *int64 `json:"offset"`
			} `json:"footer"`
		} `json:"threads"`
	}
	if err := json.Unmarshal(vectortest.Read(t, "atf", "normal", "decoded.json"), &decoded); err != nil {
		t.Fatal(err)
	}
	for name, files := range decoded.Threads {
		index, detail := rewriteThread(t, vectortest.Path(t, "atf", normalDir, name), true)
		for kind, got := range map[string][]byte{"index": index, "detail": detail} {
			want, ok := files[kind]
			if !ok {
				continue
			}
			ref := vectortest.Read(t, "atf", normalDir, name, kind+".atf")
			at := len(got) - FooterSize + 4 // checksum field of the footer
			if len(got) != len(ref) {
				t.Fatalf("%s %s: %d bytes, want %d", name, kind, len(got), len(ref))
			}
			if sum := binary.LittleEndian.Uint32(got[at:]); sum != want.CRC {
				t.Errorf("%s %s: checksum %#x, want %#x", name, kind, sum, want.CRC)
			}
			patched := bytes.Clone(got)
			copy(patched[at:at+4], ref[at:at+4])
			if !bytes.Equal(patched, ref) {
				t.Errorf("%s %s: differs from the reference beyond the checksum", name, kind)
			}
			// Our reader verifies it.
			var checked bool
			var err error
			if kind == "index" {
				r, oerr := OpenIndexBytes(got)
				if oerr != nil {
					t.Fatal(oerr)
				}
				checked, err = r.VerifyChecksum()
			} else {
				r, oerr := OpenDetailBytes(got)
				if oerr != nil {
					t.Fatal(oerr)
				}
				checked, err = r.VerifyChecksum()
			}
			if err != nil || checked != (want.CRC != 0) {
				t.Errorf("%s %s: verify %v %v", name, kind, checked, err)
			}
		}
	}
}

func TestManifestReproducesReferenceBytes(t *testing.T) {
	raw := vectortest.Read(t, "atf", normalDir, "manifest.json")
	m, err := ParseManifest(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.AppendJSON(nil); !bytes.Equal(got, raw) {
		t.Errorf("manifest differs:\n%s\nwant\n%s", got, raw)
	}
	for _, mod := range m.Modules {
		if ModuleID(mod.Path) != mod.ModuleID {
			t.Errorf("ModuleID(%q) = %d, want %d", mod.Path, ModuleID(mod.Path), mod.ModuleID)
		}
	}
	// The same manifest built from values (not parsed) is identical too.
	built := Manifest{ClockType: 1, Modules: m.Modules, Symbols: m.Symbols}
	for id := range uint32(4) {
		built.Threads = append(built.Threads, ManifestThread{ID: id, HasDetail: true})
	}
	if got := built.AppendJSON(nil); !bytes.Equal(got, raw) {
		t.Errorf("built manifest differs:\n%s", got)
	}
}
