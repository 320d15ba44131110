package main

// Chrome trace-event JSON from the event layer, for every event format: one
// thread per track (named by a thread_name metadata event), begins and ends as
// B/E slices, complete events as X, instants as thread-scoped "i" events,
// counters as "C", every argument in args; ts in µs with ns precision.
//
// Viewers close the innermost open slice of a thread at an E event and
// take its name from the B; some (speedscope) need the E named and every B
// closed. So each track keeps a stack of open slices: an E carries the name
// of the B it closes (and never goes back in time before it), an end that
// names a deeper open slice first closes the slices above it at its time, an
// end with no open slice becomes an instant, and slices still open at the end of the
// input are closed at the last time seen on their track. Pairs are thus
// balanced per track and in order, whatever the input.

import (
	"bufio"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tracecodec/tracecodec/atf"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/wtfcff"
)

// chromeMaxDepth bounds a track's stack of open slices; deeper begins and
// their ends are written as instants.
const chromeMaxDepth = 1 << 16

type chromeTrack struct {
	tid      uint64
	open     []chromeSlice
	overflow int
	last     int64 // the latest time seen on the track
}

// openIndex is the position of the innermost open slice called name, or -1
// when none is (or name is empty: the end does not say what it closes).
func (t *chromeTrack) openIndex(name string) int {
	if name == "" {
		return -1
	}
	for i := len(t.open) - 1; i >= 0; i-- {
		if t.open[i].name == name {
			return i
		}
	}
	return -1
}

type chromeSlice struct {
	name string
	ts   int64
}

type trackID struct {
	kind events.TrackKind
	id   uint64
}

// chromeCounters writes a counter event's values: it appends one complete
// Chrome event per value to b (each a JSON object, comma-separated) and
// reports how many it wrote. nil writes one "C" event with the event's
// numeric arguments.
type chromeCounters func(b []byte, ev *events.Event, pid, tid uint64, ts int64) ([]byte, int, error)

// writeChrome streams the input's events as Chrome trace-event JSON.
// otherData, when set, is called once the events are read and may return a
// JSON object for the document's "otherData" (what viewers show as the
// trace's metadata), or nil.
func writeChrome(in *input, out io.Writer, counters chromeCounters, otherData func(*events.Reader) []byte) error {
	r, err := openEvents(in, events.WithScopeData()) // WTF: appended scope data for the E events
	if err != nil {
		return err
	}
	defer r.Close()
	pid := uint64(1)
	if s, ok := r.Underlying().(*atf.Session); ok {
		if p, ok := strings.CutPrefix(filepath.Base(s.Dir), "pid_"); ok {
			if n, err := strconv.ParseUint(p, 10, 32); err == nil {
				pid = n
			}
		}
	}
	cat := r.Format()
	w := bufio.NewWriterSize(out, 256<<10)
	if _, err := w.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`); err != nil {
		return err
	}
	tracks := map[trackID]*chromeTrack{}
	ranges := map[uint64]string{} // open WTF time ranges by id
	var order []*chromeTrack
	var b []byte
	n := 0
	emit := func() error {
		if n > 0 {
			if err := w.WriteByte(','); err != nil {
				return err
			}
		}
		n++
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
		_, err := w.Write(b)
		return err
	}
	for i := 0; r.Next(); i++ {
		if i&0xffff == 0 {
			if err := in.interrupted(); err != nil {
				return err
			}
		}
		ev := r.Event()
		if ev.Kind() == events.KindMetadata {
			continue // WTF definitions and zone records are not events in a viewer
		}
		tr := ev.Track()
		t, ok := tracks[trackID{tr.Kind, tr.ID}]
		if !ok {
			t = &chromeTrack{tid: tr.ID}
			tracks[trackID{tr.Kind, tr.ID}] = t
			order = append(order, t)
			b = append(b[:0], `{"name":"thread_name","ph":"M","pid":`...)
			b = strconv.AppendUint(b, pid, 10)
			b = append(b, `,"tid":`...)
			b = strconv.AppendUint(b, t.tid, 10)
			b = append(b, `,"args":{"name":`...)
			b = events.AppendJSONString(b, tr.Name)
			b = append(b, "}}"...)
			if err := emit(); err != nil {
				return err
			}
		}
		ts := t.last
		if ev.HasTime() {
			ts = ev.Time()
		}
		if cat == "wtf" {
			handled, err := wtfChromeSpecial(&b, ev, t, ranges, pid, ts)
			if err != nil {
				return err
			}
			if handled {
				t.last = max(t.last, ts)
				if len(b) > 0 {
					if err := emit(); err != nil {
						return err
					}
				}
				continue
			}
		}
		name, ph := ev.Name(), "i"
		switch ev.Kind() {
		case events.KindBegin:
			if t.overflow > 0 || len(t.open) >= chromeMaxDepth {
				t.overflow++
				break
			}
			t.open = append(t.open, chromeSlice{name, ts})
			ph = "B"
		case events.KindEnd:
			switch {
			case t.overflow > 0:
				t.overflow--
			case len(t.open) > 0:
				// An end that names a slice deeper in the stack (an ATF return
				// whose callee never returned, e.g. after an exception) closes
				// the slices above that one first, at the end's time, so the
				// named slice ends where the trace says it does.
				if i := t.openIndex(ev.Name()); i >= 0 {
					for len(t.open) > i+1 {
						s := t.open[len(t.open)-1]
						t.open = t.open[:len(t.open)-1]
						b = appendChromeHead(b[:0], s.name, cat, "E", pid, t.tid, max(ts, s.ts))
						b = append(b, `,"args":{"closed_by_outer_end":true}}`...)
						if err := emit(); err != nil {
							return err
						}
					}
				}
				s := t.open[len(t.open)-1]
				t.open = t.open[:len(t.open)-1]
				name, ph, ts = s.name, "E", max(ts, s.ts)
			}
		case events.KindComplete:
			ph = "X"
		case events.KindCounter:
			ph = "C"
		}
		t.last = max(t.last, ts)
		if ph == "C" && counters != nil {
			var k int
			var err error
			if b, k, err = counters(b[:0], ev, pid, t.tid, ts); err != nil {
				return err
			}
			if k > 0 {
				if err := emit(); err != nil {
					return err
				}
				n += k - 1
			}
			continue
		}
		b = appendChromeHead(b[:0], name, cat, ph, pid, t.tid, ts)
		if ph == "X" {
			b = append(b, `,"dur":`...)
			b = appendMicros(b, ev.Duration())
		}
		if scope := ev.WTFScope(); ph == "E" && scope != nil && len(scope.Appended) > 2 {
			// Data appended to a WTF scope goes into its E event's
			// arguments, which viewers merge into the slice.
			b = append(b, `,"args":`...)
			b = append(b, scope.Appended...)
			b = append(b, '}')
			if err := emit(); err != nil {
				return err
			}
			continue
		}
		b = append(b, `,"args":{`...)
		k := 0
		for name, v := range ev.Args {
			if ph == "C" && !v.Number() {
				continue // counters plot numbers only
			}
			if k > 0 {
				b = append(b, ',')
			}
			k++
			b = events.AppendJSONString(b, name)
			b = append(b, ':')
			b = v.AppendJSON(b)
		}
		b = append(b, "}}"...)
		if err := emit(); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	// Close what is still open, innermost first, at the track's last time.
	for _, t := range order {
		for len(t.open) > 0 {
			s := t.open[len(t.open)-1]
			t.open = t.open[:len(t.open)-1]
			b = appendChromeHead(b[:0], s.name, cat, "E", pid, t.tid, max(t.last, s.ts))
			b = append(b, `,"args":{"closed_at_end":true}}`...)
			if err := emit(); err != nil {
				return err
			}
		}
	}
	if _, err := w.WriteString("\n]"); err != nil {
		return err
	}
	if otherData != nil {
		if od := otherData(r); od != nil {
			w.WriteString(`,"otherData":`)
			w.Write(od)
		}
	}
	if _, err := w.WriteString("}\n"); err != nil {
		return err
	}
	return w.Flush()
}

// appendChromeHead starts one trace event object (without its closing brace).
func appendChromeHead(b []byte, name, cat, ph string, pid, tid uint64, ts int64) []byte {
	b = append(b, `{"name":`...)
	b = events.AppendJSONString(b, name)
	b = append(b, `,"cat":"`...)
	b = append(b, cat...)
	b = append(b, `","ph":"`...)
	b = append(b, ph...)
	b = append(b, '"')
	if ph == "i" {
		b = append(b, `,"s":"t"`...)
	}
	b = append(b, `,"pid":`...)
	b = strconv.AppendUint(b, pid, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendUint(b, tid, 10)
	b = append(b, `,"ts":`...)
	return appendMicros(b, ts)
}

// appendMicros writes ns as µs with three decimals ("1234.567").
func appendMicros(b []byte, ns int64) []byte {
	u := uint64(ns)
	if ns < 0 {
		b = append(b, '-')
		u = uint64(-ns)
	}
	b = strconv.AppendUint(b, u/1000, 10)
	frac := u % 1000
	return append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
}

// wtfChromeSpecial writes what WTF says that the uniform model does not:
// time ranges (wtf.timeRange#begin/end) become async b/e slices matched by
// id, and scope data (wtf.scope#appendData, APPEND_SCOPE_DATA events inside
// a scope) is left out here because it is written on the scope's E event. It
// reports whether ev was handled; *b holds the event to write, if any.
func wtfChromeSpecial(b *[]byte, ev *events.Event, t *chromeTrack, ranges map[uint64]string, pid uint64, ts int64) (bool, error) {
	w := ev.WTF()
	if w == nil {
		return false, nil
	}
	*b = (*b)[:0]
	switch {
	case w.Type.Flags&wtfcff.FlagAppendScopeData != 0 && (w.Name() == "wtf.scope#appendData" || len(t.open) > 0):
		return true, nil
	case w.Name() == "wtf.timeRange#begin" && w.NumArgs() == 3:
		id := w.Arg(0).Uint()
		if _, ok := ranges[id]; !ok && len(ranges) >= chromeMaxDepth {
			return false, nil // too many open ranges: an instant
		}
		ranges[id] = string(w.Arg(1).Bytes())
		*b = appendChromeAsync(*b, ranges[id], "b", id, pid, t.tid, ts)
		*b = append(*b, `,"args":{"value":`...)
		*b = w.Arg(2).AppendJSON(*b)
		*b = append(*b, "}}"...)
		return true, nil
	case w.Name() == "wtf.timeRange#end" && w.NumArgs() == 1:
		id := w.Arg(0).Uint()
		name, ok := ranges[id]
		if !ok {
			return false, nil // an end without a begin: an instant
		}
		delete(ranges, id)
		*b = appendChromeAsync(*b, name, "e", id, pid, t.tid, ts)
		*b = append(*b, '}')
		return true, nil
	}
	return false, nil
}

func appendChromeAsync(b []byte, name, ph string, id, pid, tid uint64, ts int64) []byte {
	b = append(b, `{"name":`...)
	b = events.AppendJSONString(b, name)
	b = append(b, `,"cat":"wtf.timeRange","ph":"`...)
	b = append(b, ph...)
	b = append(b, `","id":`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `,"pid":`...)
	b = strconv.AppendUint(b, pid, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendUint(b, tid, 10)
	b = append(b, `,"ts":`...)
	return appendMicros(b, ts)
}
