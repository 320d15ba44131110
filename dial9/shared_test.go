package dial9

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"testing"
)

// sharedEvent is what one goroutine of TestSharedWriterManyGoroutines
// wrote: everything is derived from (thread, seq), so the reader can check
// every field.
type sharedEvent struct{ thread, seq uint64 }

func (e sharedEvent) ts() uint64 {
	// Threads 0-3 share one clock (batches interleave within 16 ms, so most
	// anchors are deltas and some go backwards); threads 4+ each have
	// their own, seconds apart (every anchor is a reset), and thread 5
	// jumps by more than 2^24 ns now and then inside its batches.
	base := uint64(1_000_000_000)
	if e.thread >= 4 {
		base += e.thread * 7_000_000_000
	}
	ts := base + e.seq*700 + e.thread*13
	if e.thread == 5 {
		ts += (e.seq / 50) * 20_000_000
	}
	return ts
}

func (e sharedEvent) where() string { return fmt.Sprintf("src/task%d.rs:%d", e.seq%7, e.thread%3) }
func (e sharedEvent) own() string   { return fmt.Sprintf("thread-%d-name-%d", e.thread, e.seq%5) }
func (e sharedEvent) stack() []uint64 {
	return []uint64{0x5555_0000 + e.seq%4, 0x6666_0000 + e.thread%2, 0x7777}
}

const sharedEventsPerThread = 3000

func writeShared(t *testing.T, sw *SharedWriter, thread uint64, common Handle) {
	tw, err := sw.Thread()
	if err != nil {
		t.Error(err)
		return
	}
	// A schema registered by every thread (one id), and one per thread.
	poll, err := tw.Register("Poll", []FieldDef{{"thread", TypeVarint}, {"seq", TypeVarint}, {"where", TypePooledString}, {"name", TypePooledString}})
	if err != nil {
		t.Error(err)
		return
	}
	mine, err := tw.Register(fmt.Sprintf("Thread%d", thread), []FieldDef{{"seq", TypeU32}, {"stack", TypePooledStackFrames}, {"opt", Optional | TypeVarint}})
	if err != nil {
		t.Error(err)
		return
	}
	for seq := uint64(0); seq < sharedEventsPerThread; seq++ {
		ev := sharedEvent{thread, seq}
		switch seq % 4 {
		case 0, 1:
			err = tw.Begin(poll, ev.ts()).Varint(thread).Varint(seq).PooledString(tw.InternString(ev.where())).PooledString(tw.InternString(ev.own())).End()
		case 2:
			w := tw.Begin(mine, ev.ts()).U32(uint32(seq)).PooledStack(tw.InternStack(ev.stack()))
			if seq%8 == 2 {
				w.Absent()
			} else {
				w.Varint(seq * thread)
			}
			err = w.End()
		case 3: // registered on the SharedWriter, first used here
			err = tw.WriteUints(common, ev.ts(), thread, seq)
		}
		if err != nil {
			t.Error(err)
			return
		}
		if seq == sharedEventsPerThread/2 && thread%2 == 0 {
			if err := tw.Flush(); err != nil { // a short batch
				t.Error(err)
				return
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Error(err)
	}
}

// TestSharedWriterManyGoroutines writes from 12 goroutines (run it with
// -race) and checks that every event arrives exactly once, with its fields
// and timestamp, and that each thread's events keep their order.
func TestSharedWriterManyGoroutines(t *testing.T) {
	const threads = 12
	var out bytes.Buffer
	sw, err := NewSharedWriter(&out, WithBufferSize(512)) // many batches
	must(t, err)
	common, err := sw.Register("Common", []FieldDef{{"thread", TypeVarint}, {"seq", TypeVarint}})
	must(t, err)
	var wg sync.WaitGroup
	for i := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			writeShared(t, sw, uint64(i), common)
		}()
	}
	wg.Wait()
	must(t, sw.Close())
	if t.Failed() {
		return
	}

	r, err := NewBytesReader(out.Bytes())
	must(t, err)
	seen := map[sharedEvent]int{}
	next := make([]uint64, threads) // next seq expected per thread
	ids := map[string]uint16{}
	for r.NextFrame() {
		if r.Kind() == FrameSchema {
			s := r.Schema()
			if old, ok := ids[s.Name]; ok && old != s.ID {
				t.Fatalf("schema %s registered twice (%d, %d)", s.Name, old, s.ID)
			}
			ids[s.Name] = s.ID
			continue
		}
		if r.Kind() != FrameEvent {
			continue
		}
		e := r.Event()
		var ev sharedEvent
		switch {
		case e.Name() == "Poll":
			ev = sharedEvent{e.Uint(0), e.Uint(1)}
			where, ok1 := r.LookupString(e.Field(2).PoolID())
			own, ok2 := r.LookupString(e.Field(3).PoolID())
			if !ok1 || !ok2 || string(where) != ev.where() || string(own) != ev.own() {
				t.Fatalf("%v: pooled strings %q %q", ev, where, own)
			}
		case e.Name() == "Common":
			ev = sharedEvent{e.Uint(0), e.Uint(1)}
		case strings.HasPrefix(e.Name(), "Thread"):
			var th uint64
			fmt.Sscanf(e.Name(), "Thread%d", &th)
			ev = sharedEvent{th, e.Uint(0)}
			st, ok := r.LookupStack(e.Field(1).PoolID())
			if !ok || fmt.Sprint(st.AppendTo(nil)) != fmt.Sprint(ev.stack()) {
				t.Fatalf("%v: stack %v", ev, st.AppendTo(nil))
			}
			opt := e.Field(2)
			if (ev.seq%8 == 2) == opt.Present() || (opt.Present() && opt.Uint() != ev.seq*ev.thread) {
				t.Fatalf("%v: optional field %v %d", ev, opt.Present(), opt.Uint())
			}
		default:
			t.Fatalf("unexpected event %s", e.Name())
		}
		if ev.thread >= threads {
			t.Fatalf("thread %d", ev.thread)
		}
		if e.Timestamp() != ev.ts() {
			t.Fatalf("%v: timestamp %d, want %d", ev, e.Timestamp(), ev.ts())
		}
		if ev.seq != next[ev.thread] {
			t.Fatalf("thread %d: seq %d, want %d (order lost)", ev.thread, ev.seq, next[ev.thread])
		}
		next[ev.thread]++
		seen[ev]++
	}
	must(t, r.Err())
	if r.Headers() != 1 {
		t.Fatalf("%d stream headers", r.Headers())
	}
	if len(seen) != threads*sharedEventsPerThread {
		t.Fatalf("%d distinct events, want %d", len(seen), threads*sharedEventsPerThread)
	}
	for ev, n := range seen {
		if n != 1 {
			t.Fatalf("%v seen %d times", ev, n)
		}
	}
	if len(ids) != 2+threads {
		t.Fatalf("%d schemas: %v", len(ids), ids)
	}
}

// TestSharedWriterAnchor checks how a batch's first timestamped event joins
// the stream: a delta against the stream's base when it fits, a reset
// otherwise; the stream's base is then the batch's last timestamp.
func TestSharedWriterAnchor(t *testing.T) {
	var out bytes.Buffer
	sw, err := NewSharedWriter(&out)
	must(t, err)
	a, _ := sw.Thread()
	b, _ := sw.Thread()
	h, err := a.Register("V", []FieldDef{{"v", TypeVarint}})
	must(t, err)
	nots, err := b.Register("N", []FieldDef{{"v", TypeVarint}}, WithoutTimestamp())
	must(t, err)
	must(t, a.WriteUints(h, 1000, 1))
	must(t, a.WriteUints(h, 1500, 2))
	must(t, a.Flush()) // base 0 → delta 1000, no reset; base 1500
	must(t, b.WriteUints(nots, 0, 3))
	must(t, b.WriteUints(h, 900, 4))
	must(t, b.Flush()) // 900 < 1500: reset; base 900
	must(t, a.WriteUints(h, 2000, 5))
	must(t, a.WriteUints(h, 2000+0x1000000, 6)) // inside the batch: the Writer's own reset
	must(t, a.Flush())                          // 2000 − 900 fits: delta; base 2000+2^24
	must(t, b.WriteUints(h, 2000+0x1000000+0xFFFFFF, 7))
	must(t, b.Flush()) // exactly 0xFFFFFF after the base: delta
	must(t, b.Flush()) // an empty batch changes nothing
	must(t, a.WriteUints(h, 2000+2*0x1000000+0xFFFFFF, 8))
	must(t, a.Close()) // 0x1000000 after the base: reset
	must(t, b.Close())
	must(t, sw.Close())

	r, err := NewBytesReader(out.Bytes())
	must(t, err)
	var got []string
	for r.Next() {
		got = append(got, fmt.Sprintf("%d@%d", r.Event().Uint(0), r.Event().Timestamp()))
	}
	must(t, r.Err())
	want := []string{"1@1000", "2@1500", "3@1500", "4@900", "5@2000", fmt.Sprintf("6@%d", 2000+0x1000000),
		fmt.Sprintf("7@%d", 2000+0x1000000+0xFFFFFF), fmt.Sprintf("8@%d", 2000+2*0x1000000+0xFFFFFF)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if r.Resets() != 3 {
		t.Fatalf("%d reset frames, want 3 (b's 900, a's own jump, a's last batch)", r.Resets())
	}
}

// A discarded event (End with an error) at the start of a batch leaves the
// anchor for the next one.
func TestSharedWriterAnchorAfterDiscardedEvent(t *testing.T) {
	var out bytes.Buffer
	sw, _ := NewSharedWriter(&out)
	a, _ := sw.Thread()
	h, _ := a.Register("U", []FieldDef{{"u", TypeU8}})
	must(t, a.WriteUints(h, 0x5000000, 1))
	must(t, a.Flush())
	if err := a.WriteUints(h, 1, 300); !errors.Is(err, ErrEncode) {
		t.Fatalf("300 in a U8: %v", err)
	}
	a.Begin(h, 2) // never ended: discarded by the next call
	must(t, a.WriteUints(h, 0x5000010, 2))
	must(t, a.Close())
	must(t, sw.Close())
	r, _ := NewBytesReader(out.Bytes())
	var got []uint64
	for r.Next() {
		got = append(got, r.Event().Timestamp())
	}
	must(t, r.Err())
	if fmt.Sprint(got) != fmt.Sprint([]uint64{0x5000000, 0x5000010}) || r.Resets() != 1 {
		t.Fatalf("timestamps %x, %d resets", got, r.Resets())
	}
}

func TestSharedWriterErrorsAndClose(t *testing.T) {
	fw := &failWriter{}
	sw, err := NewSharedWriter(fw, WithBufferSize(64))
	must(t, err)
	a, _ := sw.Thread()
	b, _ := sw.Thread()
	h, _ := a.Register("V", []FieldDef{{"v", TypeVarint}})
	var werr error
	for i := 0; i < 100 && werr == nil; i++ {
		werr = a.WriteUints(h, uint64(i), 1)
	}
	if werr == nil || werr.Error() != "disk full" {
		t.Fatalf("write error not reported: %v", werr)
	}
	// Sticky for the stream: the other thread sees it when it hands over.
	must(t, b.WriteUints(h, 1, 1))
	if err := b.Flush(); err == nil || err.Error() != "disk full" {
		t.Fatalf("other thread: %v", err)
	}
	if _, err := sw.Thread(); err == nil {
		t.Fatal("Thread on a failed stream")
	}

	var out bytes.Buffer
	sw, _ = NewSharedWriter(&out)
	a, _ = sw.Thread()
	b, _ = sw.Thread()
	h, _ = a.Register("V", []FieldDef{{"v", TypeVarint}})
	must(t, a.Close())
	if err := a.Close(); err != nil {
		t.Fatalf("second thread Close: %v", err)
	}
	if _, err := a.Register("V", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Register after Close: %v", err)
	}
	if err := sw.Close(); err == nil || !strings.Contains(err.Error(), "1 ThreadWriters still open") {
		t.Fatalf("Close with an open thread: %v", err)
	}
	if err := sw.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	// A ThreadWriter learns that the stream is closed when it next takes
	// the lock (a hand-off, a registration, a pool miss).
	if err := b.WriteUints(h, 1, 1); err != nil {
		t.Fatalf("buffered write after the stream's Close: %v", err)
	}
	if id := b.InternString("new"); id != 0 {
		t.Fatalf("intern after Close: %d", id)
	}
	if err := b.Flush(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Flush after the stream's Close: %v", err)
	}
	if _, err := sw.Thread(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Thread after Close: %v", err)
	}
	if _, err := sw.Register("X", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Register after Close: %v", err)
	}
	if _, err := NewSharedWriter(&out, WithAnyVersion()); err == nil {
		t.Fatal("reader option accepted")
	}
}

// TestSharedWriterSchemaConflict: a conflicting registration on any thread
// is ErrSchemaConflict, and a fixed id is honoured stream-wide.
func TestSharedWriterSchemaConflict(t *testing.T) {
	sw, _ := NewSharedWriter(io.Discard)
	a, _ := sw.Thread()
	b, _ := sw.Thread()
	h, err := a.Register("S", []FieldDef{{"v", TypeVarint}}, WithTypeID(300))
	must(t, err)
	if h.ID() != 300 {
		t.Fatalf("id %d", h.ID())
	}
	if _, err := b.Register("S", []FieldDef{{"v", TypeU8}}); !errors.Is(err, ErrSchemaConflict) {
		t.Fatalf("conflict: %v", err)
	}
	h2, err := b.Register("S", []FieldDef{{"v", TypeVarint}})
	must(t, err)
	if h2 != h || b.Schema(h).ID != 300 {
		t.Fatalf("same schema, other handle: %v %v", h, h2)
	}
}

func TestAllocsThreadWriter(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	sw, err := NewSharedWriter(io.Discard, WithBufferSize(4096)) // a hand-off every ~250 events
	must(t, err)
	tw, err := sw.Thread()
	must(t, err)
	var w workload
	w.registerThread(tw)
	where := []byte("spawn-location")
	tw.InternStringBytes(where)
	tw.InternStack(w.stack[:])
	ts := uint64(1_000_000_000)
	i := 0
	allocs := testing.AllocsPerRun(20000, func() {
		ts += 500 + uint64(i%200)
		if err := w.writeThreadEvent(tw, i, ts); err != nil {
			t.Fatal(err)
		}
		tw.InternStringBytes(where)
		tw.InternStack(w.stack[:])
		i++
	})
	if allocs != 0 {
		t.Fatalf("%.2f allocations per event", allocs)
	}
	must(t, tw.Close())
	must(t, sw.Close())
}

// BenchmarkSharedWriter writes upstream's codec_iai event mix from 1, 2
// and 8 goroutines into one stream (io.Discard), each through its own
// ThreadWriter; events/s and events/cpu-s are for all goroutines together
// (this machine class has 2 cores).
func BenchmarkSharedWriter(b *testing.B) {
	const perOp = 1 << 18
	for _, g := range []int{1, 2, 8} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			sw, err := NewSharedWriter(io.Discard)
			if err != nil {
				b.Fatal(err)
			}
			threads := make([]*ThreadWriter, g)
			loads := make([]codecIAI, g)
			for i := range threads {
				threads[i], _ = sw.Thread()
				if err := loads[i].register(&threads[i].w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			cpu := startCPU()
			b.ResetTimer()
			for b.Loop() {
				var wg sync.WaitGroup
				for i := range threads {
					wg.Add(1)
					go func() {
						defer wg.Done()
						tw, w := threads[i], &loads[i]
						ts := uint64(1_000_000_000)
						for j := uint64(0); j < perOp/uint64(g); j++ {
							ts += 500 + j%200
							if err := w.event(&tw.w, j, ts); err != nil {
								panic(err)
							}
						}
						if err := tw.Flush(); err != nil {
							panic(err)
						}
					}()
				}
				wg.Wait()
			}
			events := float64(perOp/g*g) * float64(b.N)
			b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
			cpu.report(b, int(events))
		})
	}
}

// The largest timestamp is the one a pending anchor must not confuse with
// its placeholder base; a schema without timestamps at that value takes no
// anchor.
func TestSharedWriterMaxTimestamp(t *testing.T) {
	var out bytes.Buffer
	sw, _ := NewSharedWriter(&out)
	a, _ := sw.Thread()
	h, _ := a.Register("V", []FieldDef{{"v", TypeVarint}})
	n, _ := a.Register("N", []FieldDef{{"v", TypeVarint}}, WithoutTimestamp())
	must(t, a.WriteUints(h, 1000, 1))
	must(t, a.Flush())
	must(t, a.WriteUints(n, math.MaxUint64, 2)) // no anchor
	must(t, a.WriteUints(h, 2000, 3))           // the anchor: delta 1000
	must(t, a.Flush())
	a.Begin(n, math.MaxUint64).Varint(4).End()
	must(t, a.WriteUints(h, math.MaxUint64, 5)) // the anchor: a reset
	must(t, a.Flush())
	must(t, a.WriteUints(h, math.MaxUint64, 6)) // the anchor: delta 0
	must(t, a.Close())
	must(t, sw.Close())
	r, _ := NewBytesReader(out.Bytes())
	var got []string
	for r.Next() {
		got = append(got, fmt.Sprintf("%d@%d", r.Event().Uint(0), r.Event().Timestamp()))
	}
	must(t, r.Err())
	want := fmt.Sprint([]string{"1@1000", "2@1000", "3@2000", "4@2000", "5@18446744073709551615", "6@18446744073709551615"})
	if fmt.Sprint(got) != want || r.Resets() != 1 {
		t.Fatalf("got %v (%d resets), want %v (1 reset)", got, r.Resets(), want)
	}
}
