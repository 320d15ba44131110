package dial9

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// recoveryStream writes a stream with every kind of frame: schemas, pools,
// events with and without timestamps, a timestamp reset, and a second
// concatenated stream.
func recoveryStream(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	poll, _ := w.Register("PollStartEvent", []FieldDef{{Name: "worker_id", Type: TypeVarint}, {Name: "loc", Type: TypePooledString}, {Name: "s", Type: TypeString}})
	tick, _ := w.Register("Tick", []FieldDef{{Name: "n", Type: TypeU32}})
	ts := uint64(1000)
	for i := uint64(0); i < 12; i++ {
		loc := w.InternString("src/lib.rs:" + string(rune('a'+i%3)))
		ts += 700
		if i == 6 {
			ts += 1 << 25 // a reset frame
		}
		if err := w.Begin(poll, ts).Varint(i).PooledString(loc).String("hello").End(); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteUints(tick, ts+10, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Reset(&buf); err != nil {
		t.Fatal(err)
	}
	cs, _ := w.Register("ClockSync", []FieldDef{{Name: "ns", Type: TypeVarint}})
	for i := uint64(0); i < 3; i++ {
		if err := w.WriteUints(cs, 5000+i, 1<<40+i); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// frameSpan is one frame NextFrame returned on the whole stream.
type frameSpan struct {
	start, end int64
	event      bool
}

func spansOf(t testing.TB, data []byte) []frameSpan {
	t.Helper()
	d, err := NewBytesReader(data)
	if err != nil {
		t.Fatal(err)
	}
	var out []frameSpan
	for d.NextFrame() {
		out = append(out, frameSpan{d.FrameOffset(), d.FrameEnd(), d.Kind() == FrameEvent})
	}
	if d.Err() != nil {
		t.Fatal(d.Err())
	}
	return out
}

// readRecovering reads every event with WithRecovery and returns their
// timestamps; err is Err at the end.
func readRecovering(d *Reader) (ts []uint64, err error) {
	for d.Next() {
		ts = append(ts, d.Event().Timestamp())
	}
	return ts, d.Err()
}

// At every cut point of a plain stream, the three readers (bytes,
// streaming, streaming one byte at a time) deliver exactly the events wholly
// before the cut, end without error, and report the frame the cut went
// through: its offset, the bytes lost, and whether it held an event.
func TestRecoveryCutEverywhere(t *testing.T) {
	data := recoveryStream(t)
	spans := spansOf(t, data)
	var all []uint64
	{
		d, _ := NewBytesReader(data)
		all, _ = readRecovering(d)
	}
	for c := 5; c <= len(data); c++ {
		cut := data[:c]
		wantEvents := 0
		var straddle *frameSpan
		boundary := int64(5)
		for i := range spans {
			s := &spans[i]
			if s.end <= int64(c) {
				boundary = s.end
				if s.event {
					wantEvents++
				}
			} else if s.start < int64(c) {
				straddle = s
			}
		}
		readers := map[string]func() (*Reader, error){
			"bytes":  func() (*Reader, error) { return NewBytesReader(cut, WithRecovery()) },
			"stream": func() (*Reader, error) { return NewReader(bytes.NewReader(cut), WithRecovery(), WithBufferSize(16)) },
			"onebyte": func() (*Reader, error) {
				return NewReader(iotest.OneByteReader(bytes.NewReader(cut)), WithRecovery(), WithBufferSize(16))
			},
		}
		for name, open := range readers {
			d, err := open()
			if err != nil {
				t.Fatalf("%s cut %d: %v", name, c, err)
			}
			ts, err := readRecovering(d)
			if err != nil {
				t.Fatalf("%s cut %d: Err %v with WithRecovery", name, c, err)
			}
			if len(ts) != wantEvents {
				t.Fatalf("%s cut %d: %d events, want %d", name, c, len(ts), wantEvents)
			}
			for i := range ts {
				if ts[i] != all[i] {
					t.Fatalf("%s cut %d: event %d at %d, want %d", name, c, i, ts[i], all[i])
				}
			}
			rec := d.Recovery()
			if d.Next() || d.NextFrame() || d.Err() != nil {
				t.Fatalf("%s cut %d: the reader goes on after recovery", name, c)
			}
			if rec == nil {
				// A cut between frames is a clean end: nothing to tell.
				if straddle != nil || d.Offset() != int64(c) {
					t.Fatalf("%s cut %d: no report, straddled frame %+v, offset %d", name, c, straddle, d.Offset())
				}
				continue
			}
			if !errors.Is(rec.Reason, ErrTruncated) || rec.Events != int64(wantEvents) ||
				rec.ReadBytes+rec.LostBytes != int64(c) || rec.ReadBytes < boundary || rec.LostBytes <= 0 {
				t.Fatalf("%s cut %d: report %+v (boundary %d)", name, c, rec, boundary)
			}
			if straddle != nil {
				want := int64(0)
				if straddle.event {
					want = 1
				}
				if rec.ReadBytes != straddle.start || rec.LostEvents != want {
					t.Fatalf("%s cut %d: report %+v, straddled frame %+v", name, c, rec, straddle)
				}
			} else if rec.LostEvents != 0 {
				// A reset frame or a stream header was cut: no event lost.
				t.Fatalf("%s cut %d: report %+v in a reset or header", name, c, rec)
			}
			s := rec.Summary()
			if s.Format != "dial9" || s.Unit != "events" || s.Read != int64(wantEvents) || s.StopOffset != rec.ReadBytes ||
				s.LostBytes != rec.LostBytes || s.Clean() || !s.Lossy() {
				t.Fatalf("%s cut %d: summary %+v", name, c, s)
			}
		}
		// Without WithRecovery the same cut is a sticky ErrTruncated
		// exactly where WithRecovery reports one.
		d, _ := NewBytesReader(cut, WithRecovery())
		readRecovering(d)
		reported := d.Recovery() != nil
		if d, err := NewBytesReader(cut); err == nil {
			_, err := readRecovering(d)
			if (err != nil) != reported || err != nil && !errors.Is(err, ErrTruncated) || d.Recovery() != nil {
				t.Fatalf("cut %d without recovery: %v (reported with recovery: %v)", c, err, reported)
			}
		}
	}
}

// A corrupt frame tag anywhere: the events before it are delivered, the
// rest of the stream is lost (it cannot be resynchronised) and counted.
func TestRecoveryCorruptFrame(t *testing.T) {
	data := recoveryStream(t)
	spans := spansOf(t, data)
	for _, s := range spans {
		bad := bytes.Clone(data)
		bad[s.start] = 0x7f
		want := 0
		for _, o := range spans {
			if o.end <= s.start && o.event {
				want++
			}
		}
		for name, open := range map[string]func() (*Reader, error){
			"bytes":  func() (*Reader, error) { return NewBytesReader(bad, WithRecovery()) },
			"stream": func() (*Reader, error) { return NewReader(bytes.NewReader(bad), WithRecovery(), WithBufferSize(16)) },
		} {
			d, err := open()
			if err != nil {
				t.Fatal(err)
			}
			ts, err := readRecovering(d)
			rec := d.Recovery()
			if err != nil || len(ts) != want || rec == nil || !errors.Is(rec.Reason, ErrUnknownFrame) ||
				rec.ReadBytes != s.start || rec.LostBytes != int64(len(bad))-s.start || rec.LostEvents != -1 {
				t.Fatalf("%s: tag at %d: %d events (want %d), err %v, report %+v", name, s.start, len(ts), want, err, rec)
			}
		}
	}
}

// gzipMembers compresses each part as its own gzip member, as .bin.gz
// segments are written, and returns the concatenation and where the second
// member starts.
func gzipMembers(t testing.TB, parts ...[]byte) ([]byte, []int) {
	t.Helper()
	var out bytes.Buffer
	var starts []int
	for _, p := range parts {
		starts = append(starts, out.Len())
		zw := gzip.NewWriter(&out)
		if _, err := zw.Write(p); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes(), starts
}

// A .bin.gz cut at every byte: the reader delivers a prefix of the events,
// never fewer than at an earlier cut, ends without error and reports the
// cut member (lost events unknown); a cut exactly between members is a
// clean end with every event of the first member.
func TestRecoveryCutGzip(t *testing.T) {
	data := recoveryStream(t)
	spans := spansOf(t, data)
	// Split the plain stream at the second stream's header.
	split := 0
	for i := 1; i < len(spans); i++ {
		if spans[i].start != spans[i-1].end && bytes.HasPrefix(data[spans[i-1].end:], []byte(Magic)) {
			split = int(spans[i-1].end)
		}
	}
	if split == 0 {
		t.Fatal("no second stream")
	}
	gz, starts := gzipMembers(t, data[:split], data[split:])
	var all []uint64
	{
		d, _ := NewBytesReader(data)
		all, _ = readRecovering(d)
	}
	first := 0
	for _, s := range spans {
		if s.end <= int64(split) && s.event {
			first++
		}
	}
	prev := 0
	for c := 1; c <= len(gz); c++ {
		d, err := NewBytesReader(gz[:c], WithRecovery())
		if err != nil {
			if prev > 0 {
				t.Fatalf("cut %d: %v after %d events at an earlier cut", c, err, prev)
			}
			continue // the first header did not decompress yet
		}
		ts, err := readRecovering(d)
		if err != nil {
			t.Fatalf("cut %d: %v", c, err)
		}
		if len(ts) < prev {
			t.Fatalf("cut %d: %d events, %d at an earlier cut", c, len(ts), prev)
		}
		prev = len(ts)
		for i := range ts {
			if ts[i] != all[i] {
				t.Fatalf("cut %d: event %d differs", c, i)
			}
		}
		rec := d.Recovery()
		switch {
		case c == len(gz):
			if rec != nil || len(ts) != len(all) {
				t.Fatalf("whole file: %d events, report %+v", len(ts), rec)
			}
		case c == starts[1]:
			if rec != nil || len(ts) != first {
				t.Fatalf("cut between members: %d events (want %d), report %+v", len(ts), first, rec)
			}
		default:
			if rec == nil || !rec.Gzip || !errors.Is(rec.Reason, ErrTruncated) || rec.Events != int64(len(ts)) ||
				rec.LostEvents != -1 || rec.LostBytes < 0 || rec.CompressedBytes != int64(c) {
				t.Fatalf("cut %d: %d events, report %+v", c, len(ts), rec)
			}
		}
	}
	if prev != len(all) {
		t.Fatalf("%d events at the end, want %d", prev, len(all))
	}
}

// An I/O error is not a property of the stream: it stays an error.
func TestRecoveryKeepsIOErrors(t *testing.T) {
	data := recoveryStream(t)
	r := io.MultiReader(bytes.NewReader(data[:40]), iotest.ErrReader(errors.New("disk on fire")))
	d, err := NewReader(r, WithRecovery())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readRecovering(d); err == nil || d.Recovery() != nil {
		t.Fatalf("Err %v, report %+v", err, d.Recovery())
	}
	// A writer refuses the reader-only option.
	if _, err := NewWriter(io.Discard, WithRecovery()); err == nil {
		t.Fatal("NewWriter accepted WithRecovery")
	}
}

// A gzip stream over the decompression ratio limit stops at the limit with
// WithRecovery too: the rest is not inflated to be counted (LostBytes -1).
func TestRecoveryGzipRatioLimit(t *testing.T) {
	plain := append([]byte(Magic), Version)
	reset := []byte{tagReset, 1, 0, 0, 0, 0, 0, 0, 0}
	for len(plain) < 8<<20 {
		plain = append(plain, reset...)
	}
	gz, _ := gzipMembers(t, plain)
	if len(gz)*100+1<<20 > len(plain) {
		t.Fatalf("the bomb is not one: %d compressed bytes for %d", len(gz), len(plain))
	}
	d, err := NewBytesReader(gz, WithRecovery())
	if err != nil {
		t.Fatal(err)
	}
	ts, err := readRecovering(d)
	rec := d.Recovery()
	if err != nil || len(ts) != 0 || rec == nil || !errors.Is(rec.Reason, ErrLimit) || rec.LostBytes != -1 || rec.LostEvents != -1 {
		t.Fatalf("err %v, %d events, report %+v", err, len(ts), rec)
	}
	if s := rec.Summary(); s.LostBytes != -1 || !s.Lossy() {
		t.Fatalf("summary %+v", s)
	}
}
