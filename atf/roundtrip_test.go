package atf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeThread writes n events; every third carries a payload of i%50 bytes
// (none when that is 0).
func writeThread(t testing.TB, n int, id uint32, ts func(i int) uint64, opts ...WriterOption) (index, detail *memFile) {
	t.Helper()
	index, detail = &memFile{}, &memFile{}
	tw, err := NewThreadWriter(index, func() (ioWS, error) { return detail, nil }, id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	payload := make([]byte, 64)
	for i := range n {
		var p []byte
		if i%3 == 0 {
			p = payload[:i%50]
			for j := range p {
				p[j] = byte(i + j)
			}
		}
		if _, err := tw.Write(ts(i), FunctionID(7, uint32(i%5+1)), EventKind(i%3+1), uint32(i%9), p); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return index, detail
}

func TestRoundTripLinksAndHeaders(t *testing.T) {
	const n = 5000
	index, detail := writeThread(t, n, 9, func(i int) uint64 { return 1000 + uint64(i)*10 }, WithBufferSize(100))
	ir, err := OpenIndex(index, int64(len(index.b)))
	if err != nil {
		t.Fatal(err)
	}
	dr, err := OpenDetail(detail, int64(len(detail.b)))
	if err != nil {
		t.Fatal(err)
	}
	if ir.Len() != n || ir.Recovered() || dr.Recovered() {
		t.Fatalf("len %d recovered %v %v", ir.Len(), ir.Recovered(), dr.Recovered())
	}
	h := ir.Header()
	if !h.HasDetailFile() || h.EventCount != n || h.FooterOffset != 64+32*n || h.TimeStartNs != 1000 || h.TimeEndNs != 1000+10*(n-1) || h.ThreadID != 9 {
		t.Errorf("index header %+v", h)
	}
	if checked, err := ir.VerifyChecksum(); !checked || err != nil {
		t.Errorf("index checksum %v %v", checked, err)
	}
	if checked, err := dr.VerifyChecksum(); !checked || err != nil {
		t.Errorf("detail checksum %v %v", checked, err)
	}
	dh := dr.Header()
	th := NewThread(9, ir, dr)
	var minSeq, maxSeq uint64 = 1 << 62, 0
	var bytesLen uint64
	for seq, e := range numbered(ir.All(), t.Error) {
		i := int(seq)
		if e.Timestamp != 1000+uint64(i)*10 || e.Kind != EventKind(i%3+1) || e.ThreadID != 9 || e.CallDepth != uint32(i%9) {
			t.Fatalf("event %d: %+v", i, e)
		}
		d, ok, err := th.DetailFor(e, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantDetail := i%3 == 0 && i%50 != 0
		if ok != wantDetail {
			t.Fatalf("event %d: detail %v", i, ok)
		}
		if !ok {
			continue
		}
		minSeq, maxSeq = min(minSeq, seq), max(maxSeq, seq)
		bytesLen += uint64(d.TotalLength)
		if d.IndexSeq != uint32(seq) || d.Timestamp != e.Timestamp || len(d.Payload) != i%50 || d.Type != DetailTypeFor(e.Kind) || d.ThreadID != 9 {
			t.Fatalf("detail of %d: %+v", i, d)
		}
		for j, b := range d.Payload {
			if b != byte(i+j) {
				t.Fatalf("payload of %d differs", i)
			}
		}
	}
	if dh.IndexSeqStart != minSeq || dh.IndexSeqEnd != maxSeq || dh.EventCount != dr.Len() || dh.BytesLength != bytesLen {
		t.Errorf("detail header %+v (min %d max %d bytes %d)", dh, minSeq, maxSeq, bytesLen)
	}
	if ps, err := th.Check(); err != nil || len(ps) != 0 {
		t.Errorf("Check: %v %v", ps, err)
	}
}

func TestCloseTwiceAndUseAfterClose(t *testing.T) {
	var f memFile
	w, err := NewIndexWriter(&f, 1)
	if err != nil {
		t.Fatal(err)
	}
	w.Append(IndexEvent{Timestamp: 5})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	snapshot := bytes.Clone(f.b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(IndexEvent{}); !errors.Is(err, ErrClosed) {
		t.Errorf("append after close: %v", err)
	}
	if !bytes.Equal(f.b, snapshot) || len(f.b) != 64+32+64 {
		t.Error("second Close changed the file")
	}
}

func TestUnfinalizedDetailRecoversWhatReferenceDrops(t *testing.T) {
	var f memFile
	w, err := NewDetailWriter(&f, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Append(DetailFunctionCall, 0, 0, 10, make([]byte, 8))
	w.Append(DetailFunctionReturn, 0, 1, 20, make([]byte, 8))
	w.Flush()
	// 128 bytes: the reference's scan stops at len-64 and finds nothing.
	if len(f.b) != 128 {
		t.Fatalf("%d bytes", len(f.b))
	}
	d, err := OpenDetailBytes(f.b)
	if err != nil || d.Len() != 2 || !d.Recovered() || d.Discarded() != 0 {
		t.Fatalf("len %d recovered %v discarded %d err %v", d.Len(), d.Recovered(), d.Discarded(), err)
	}
	// Every cut of a third record recovers exactly the first two.
	w.Append(DetailFunctionCall, 0, 2, 30, make([]byte, 40))
	w.Flush()
	for cut := 129; cut < len(f.b); cut++ {
		d, err := OpenDetailBytes(f.b[:cut])
		if err != nil || d.Len() != 2 || d.Discarded() != int64(cut-128) {
			t.Fatalf("cut %d: len %d discarded %d err %v", cut, d.Len(), d.Discarded(), err)
		}
	}
}

func TestFinalizedCorruptionIsAnError(t *testing.T) {
	index, detail := writeThread(t, 30, 1, func(i int) uint64 { return uint64(i) })
	// A lying footer count.
	b := bytes.Clone(index.b)
	fo := len(b) - FooterSize
	binary.LittleEndian.PutUint64(b[fo+8:], 1<<40)
	if _, err := OpenIndexBytes(b); !errors.Is(err, ErrCorrupt) {
		t.Errorf("lying index footer count: %v", err)
	}
	// A damaged footer magic: the header still says where the events end.
	b = bytes.Clone(index.b)
	b[fo] = 'X'
	r, err := OpenIndexBytes(b)
	if err != nil || r.Len() != 30 || !r.Recovered() || r.Discarded() != 64 {
		t.Errorf("damaged footer magic: %v", err)
	}
	// events_offset beyond the file, and inside the header.
	b = bytes.Clone(index.b)
	binary.LittleEndian.PutUint64(b[32:], uint64(len(b)+1))
	if _, err := OpenIndexBytes(b); !errors.Is(err, ErrCorrupt) {
		t.Errorf("events_offset beyond file: %v", err)
	}
	binary.LittleEndian.PutUint64(b[32:], 8)
	if _, err := OpenIndexBytes(b); !errors.Is(err, ErrCorrupt) {
		t.Errorf("events_offset in header: %v", err)
	}
	// A detail record whose length overruns its section, in a finalized file.
	b = bytes.Clone(detail.b)
	binary.LittleEndian.PutUint32(b[64:], 1<<20)
	var fe *FormatError
	if _, err := OpenDetailBytes(b); !errors.Is(err, ErrCorrupt) || !errors.As(err, &fe) || fe.Offset != 64 {
		t.Errorf("overrunning record: %v", err)
	}
	binary.LittleEndian.PutUint32(b[64:], 3)
	if _, err := OpenDetailBytes(b); !errors.Is(err, ErrCorrupt) {
		t.Errorf("short record: %v", err)
	}
	// A checksum mismatch is found on request.
	b = bytes.Clone(index.b)
	b[64] ^= 1
	r, err = OpenIndexBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.VerifyChecksum(); !errors.Is(err, ErrChecksum) {
		t.Errorf("checksum: %v", err)
	}
	// Limits.
	if _, err := OpenIndexBytes(index.b, WithLimits(Limits{MaxIndexEvents: 10})); !errors.Is(err, ErrLimit) {
		t.Errorf("index limit: %v", err)
	}
	if _, err := OpenDetailBytes(detail.b, WithLimits(Limits{MaxDetailEvents: 2})); !errors.Is(err, ErrLimit) {
		t.Errorf("detail limit: %v", err)
	}
}

func TestTimeRangeQueries(t *testing.T) {
	sortedIdx, _ := writeThread(t, 1000, 0, func(i int) uint64 { return uint64(i / 2 * 10) }) // duplicates
	unsortedIdx, _ := writeThread(t, 1000, 1, func(i int) uint64 { return uint64((i * 7919) % 1000 * 5) })
	for _, c := range []struct {
		name   string
		b      []byte
		sorted bool
	}{{"sorted", sortedIdx.b, true}, {"unsorted", unsortedIdx.b, false}} {
		for _, mem := range []bool{true, false} {
			var r *IndexFile
			var err error
			if mem {
				r, err = OpenIndexBytes(c.b)
			} else {
				r, err = OpenIndex(bytes.NewReader(c.b), int64(len(c.b)))
			}
			if err != nil {
				t.Fatal(err)
			}
			if s, err := r.Sorted(); s != c.sorted || err != nil {
				t.Fatalf("%s: Sorted %v %v", c.name, s, err)
			}
			for _, q := range [][2]uint64{{0, 0}, {0, 4995}, {15, 15}, {13, 2001}, {2000, 1000}, {4990, 1 << 60}, {5000, 6000}} {
				var want []uint64
				for seq, e := range numbered(r.All(), t.Error) {
					if e.Timestamp >= q[0] && e.Timestamp < q[1] {
						want = append(want, seq)
					}
				}
				var got []uint64
				it := r.Iter(q[0], q[1])
				for it.Next() {
					got = append(got, it.Seq())
				}
				if it.Err() != nil || !equalU64(got, want) {
					t.Errorf("%s mem=%v range %v: %d events, want %d", c.name, mem, q, len(got), len(want))
				}
				// Range yields the same events.
				n := 0
				for e, err := range r.Range(q[0], q[1]) {
					if err != nil || n >= len(want) || e != mustEvent(t, r, want[n]) {
						t.Fatalf("%s mem=%v Range %v: event %d differs (%v)", c.name, mem, q, n, err)
					}
					n++
				}
				if n != len(want) {
					t.Errorf("%s mem=%v Range %v: %d events, want %d", c.name, mem, q, n, len(want))
				}
			}
		}
	}
}

func equalU64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMergeOrdersAcrossThreads(t *testing.T) {
	var readers []*IndexFile
	for k := range 5 {
		idx, _ := writeThread(t, 300+k*17, uint32(k), func(i int) uint64 { return uint64(i*(k+1)) + uint64(k%2) })
		r, err := OpenIndex(bytes.NewReader(idx.b), int64(len(idx.b)))
		if err != nil {
			t.Fatal(err)
		}
		readers = append(readers, r)
	}
	readers = append(readers, nil)
	var total uint64
	for _, r := range readers[:5] {
		total += r.Len()
	}
	m := NewMerger(readers)
	var n uint64
	var pts uint64
	pth, pseq := -1, uint64(0)
	for m.Next() {
		ts := m.Event().Timestamp
		if ts < pts || (ts == pts && m.Thread() < pth) {
			t.Fatalf("out of order at %d: ts %d thread %d after ts %d thread %d", n, ts, m.Thread(), pts, pth)
		}
		if e, _ := readers[m.Thread()].Event(m.Seq()); e != m.Event().IndexEvent || m.Event().Thread != m.Thread() || m.Event().Seq != m.Seq() {
			t.Fatal("merged event differs from Event(seq)")
		}
		pts, pth, pseq = ts, m.Thread(), m.Seq()
		n++
	}
	_ = pseq
	if n != total || m.Err() != nil {
		t.Errorf("merged %d of %d, %v", n, total, m.Err())
	}
	// A range merge yields exactly the in-range subset.
	m = NewMergerRange(readers, 100, 200)
	var k uint64
	for m.Next() {
		if ts := m.Event().Timestamp; ts < 100 || ts >= 200 {
			t.Fatalf("ts %d out of range", ts)
		}
		k++
	}
	var want uint64
	for _, r := range readers[:5] {
		for e, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			if e.Timestamp >= 100 && e.Timestamp < 200 {
				want++
			}
		}
	}
	if k != want {
		t.Errorf("range merge %d, want %d", k, want)
	}
}

func TestSessionWriterRoundTrip(t *testing.T) {
	root := t.TempDir()
	start := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	sw, err := CreateSession(root, 4242, start, WithClock(ClockBoottime))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "session_20250304_050607", "pid_4242"); sw.Dir() != want {
		t.Fatalf("dir %s, want %s", sw.Dir(), want)
	}
	mod := ModuleID("/bin/app")
	sw.SetSymbols([]Module{{ModuleID: mod, Path: "/bin/app"}}, []Symbol{{FunctionID: FunctionID(mod, 1), ModuleID: mod, SymbolIndex: 1, Name: "main"}})
	for id := range uint32(3) {
		tw, err := sw.Thread(id)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 10 * int(id) {
			var p *DetailFunctionPayload
			if id == 2 && i%2 == 0 {
				p = &DetailFunctionPayload{FunctionID: FunctionID(mod, 1), XRegs: [8]uint64{uint64(i)}}
				_, err = tw.WriteFunction(uint64(100+i), KindCall, 1, p, []byte{1, 2, 3})
			} else {
				_, err = tw.Write(uint64(100+i+int(id)), FunctionID(mod, 1), KindReturn, 1, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := OpenSession(filepath.Join(root, "session_20250304_050607"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := s.Manifest
	if m == nil || len(m.Threads) != 3 || m.Threads[2] != (ManifestThread{2, true}) || m.Threads[1].HasDetail || m.ClockType != ClockBoottime || m.FormatVersion != "2.1" {
		t.Fatalf("manifest %+v", m)
	}
	if m.TimeStartNs != 100 || m.TimeEndNs != 121 {
		t.Errorf("manifest time %d..%d", m.TimeStartNs, m.TimeEndNs)
	}
	if s.EventCount() != 30 || s.DetailCount() != 10 || s.Recovered() {
		t.Errorf("events %d detail %d recovered %v", s.EventCount(), s.DetailCount(), s.Recovered())
	}
	if _, err := os.Stat(filepath.Join(sw.Dir(), "thread_1", "detail.atf")); !os.IsNotExist(err) {
		t.Error("detail.atf created for a thread without payloads")
	}
	th, _ := s.Thread(2)
	if ps, err := s.Check(); err != nil || len(ps) != 0 {
		t.Errorf("Check: %v %v", ps, err)
	}
	d, ok, err := th.DetailFor(mustEvent(t, th.Index, 4), nil)
	p, stack, pok := DecodeDetailFunctionPayload(d.Payload)
	if !ok || err != nil || !pok || p.XRegs[0] != 4 || !bytes.Equal(stack, []byte{1, 2, 3}) || p.StackSize != 3 {
		t.Errorf("payload %+v %x", p, stack)
	}
}

func mustEvent(t *testing.T, r *IndexFile, seq uint64) IndexEvent {
	t.Helper()
	e, err := r.Event(seq)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
