package ctfload_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect/ctfload"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// source is the file at path as tracecat hands it to ctfload.
func source(t *testing.T, path string) ctfload.Source {
	t.Helper()
	d, err := events.Detect(path)
	if err != nil {
		t.Fatal(err)
	}
	return ctfload.Source{Path: path, Variant: d.Variant, Bytes: func() ([]byte, error) { return os.ReadFile(path) }}
}

// TestCTFReadOnlyRegularMetadata: the metadata file of a trace folder is read
// only when it is a regular file (a link to /dev/zero would grow without
// bound).
func TestCTFReadOnlyRegularMetadata(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "metadata")); err != nil {
		t.Skip(err)
	}
	_, err := ctfload.Read(ctfload.Source{Path: dir, IsDir: true})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "metadata")+": not a regular file") {
		t.Fatalf("got %v", err)
	}
}

// TestCTFLoadStreamedMatchesLoad: validate's streamed load of a plain CTF 2
// metadata file (LoadStreamed) reports what Load, which reads the file
// whole, reports — fragments, leading whitespace, bytes, recovery, the
// error — on every CTF vector and on cut copies of each plain CTF 2 one; it
// declines (streamed false) what it does not stream.
func TestCTFLoadStreamedMatchesLoad(t *testing.T) {
	dir := vectortest.Dir(t, "ctf")
	var paths []string
	filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() && de.Name() == "metadata" {
			paths = append(paths, p)
		}
		return nil
	})
	tmp := t.TempDir()
	streamedAny := 0
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases := []string{p}
		if ctfload.IsJSON(b) {
			for _, n := range []int{len(b) / 3, len(b) / 2, len(b) - 1} {
				c := filepath.Join(tmp, fmt.Sprintf("%d-%d", i, n))
				if err := os.WriteFile(c, b[:n], 0o644); err != nil {
					t.Fatal(err)
				}
				cases = append(cases, c)
			}
		}
		for _, c := range cases {
			in1 := source(t, c)
			in2 := in1
			m1, err1 := ctfload.Load(in1)
			m2, streamed, err2 := ctfload.LoadStreamed(in2)
			if !streamed {
				if ctfload.IsJSON(b) && ctf2meta.Detect(b) != ctf2meta.KindPacketized {
					t.Errorf("%s: plain CTF 2 not streamed", c)
				}
				continue
			}
			streamedAny++
			if fmt.Sprint(err1) != fmt.Sprint(err2) {
				t.Errorf("%s: Load error %v, streamed %v", c, err1, err2)
				continue
			}
			if err1 != nil {
				continue
			}
			if len(m1.Meta.Fragments) != len(m2.Meta.Fragments) || m1.Leading != m2.Leading || m1.Size != m2.Size ||
				fmt.Sprint(m1.Warnings()) != fmt.Sprint(m2.Warnings()) || fmt.Sprint(*m1.Recovery()) != fmt.Sprint(*m2.Recovery()) {
				t.Errorf("%s: Load %d fragments, %d leading, %d bytes, %v, %v; streamed %d, %d, %d, %v, %v", c,
					len(m1.Meta.Fragments), m1.Leading, m1.Size, m1.Warnings(), *m1.Recovery(),
					len(m2.Meta.Fragments), m2.Leading, m2.Size, m2.Warnings(), *m2.Recovery())
			}
		}
	}
	if streamedAny == 0 {
		t.Fatal("no plain CTF 2 metadata among the vectors")
	}
}

// Packets whose magic number is not 0xc1fc1fc1 (StreamPackets reads them,
// as babeltrace2 2.1 does) are counted by MagicRecovery — how many, the
// first packet and its value — and refused by CheckMagic with
// ctf.ErrBadMagic at the first one's offset; packets without a magic
// number field, or with the right one, are clean.
func TestMagicRecoveryAndCheck(t *testing.T) {
	const good = 0xc1fc1fc1
	ps := []ctfload.PacketInfo{
		{Offset: 0, TotalBits: 4096 * 8, Magic: good, HasMagic: true},
		{Offset: 4096, TotalBits: 4096 * 8, Magic: 0xc1fc1f00, HasMagic: true},
		{Offset: 8192, TotalBits: 1024 * 8, Magic: 0, HasMagic: true},
	}
	rec := ctfload.MagicRecovery(ps)
	const note = "2 packet headers hold a magic number other than 0xc1fc1fc1 (the first: packet 1, 0xc1fc1f00); read as babeltrace2 2.1 does"
	if rec == nil || len(rec.Notes) != 1 || rec.Notes[0] != note || rec.Read != 3 || rec.ReadBytes != 9216 || rec.Unit != "packets" || rec.Reason != nil || rec.Lossy() {
		t.Errorf("MagicRecovery: %+v", rec)
	}
	err := ctfload.CheckMagic(ps)
	if !errors.Is(err, ctf.ErrBadMagic) || !strings.Contains(err.Error(), "offset 4096: packet 1: magic 0xc1fc1f00, expecting 0xc1fc1fc1") {
		t.Errorf("CheckMagic: %v", err)
	}
	// A UUID other than the metadata's is noted too, after the magic numbers.
	u := ctf2meta.UUID{1, 2, 3}
	ps = append(ps, ctfload.PacketInfo{Offset: 9216, TotalBits: 8, UUID: u, UUIDDiffers: true})
	rec = ctfload.MagicRecovery(ps)
	if rec == nil || len(rec.Notes) != 2 || rec.Notes[0] != note || rec.Read != 4 ||
		rec.Notes[1] != "1 packet headers hold a UUID other than the metadata's (the first: packet 3, "+u.String()+"); read as babeltrace2 2.1 does" {
		t.Errorf("MagicRecovery with a UUID: %+v", rec)
	}
	if rec := ctfload.MagicRecovery(ps[3:]); rec == nil || len(rec.Notes) != 1 || !strings.Contains(rec.Notes[0], "UUID") {
		t.Errorf("MagicRecovery, UUID only: %+v", rec)
	}
	for _, clean := range [][]ctfload.PacketInfo{nil, ps[:1], {{TotalBits: 8, Magic: 5}}} {
		if r, err := ctfload.MagicRecovery(clean), ctfload.CheckMagic(clean); r != nil || err != nil {
			t.Errorf("%+v: %+v %v", clean, r, err)
		}
	}
}
