package events

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/cdt"
)

// cdtSource yields one KindCounter event per tick row, in footer order, named
// "tick", on one trace track: the time is the row's elapsed_ms (× 1 000 000)
// when it has one, Tick its tick_index, and the arguments are the row map's
// top-level entries (numbers, strings, booleans as typed values; channels and
// phase markers as composites rendered as JSON).
type cdtSource struct {
	rd      *cdt.File
	it      *cdt.Iterator
	closeFn func() error
	row     cdt.Row

	parsed bool
	fields []cdtField
	keys   map[string]string
	jw     appendWriter
}

// cdtField is one top-level entry of the current row.
type cdtField struct {
	name string
	v    Value
	raw  []byte // the msgpack value, for composites
}

func openCDT(ra io.ReaderAt, size int64, d Detection, o *options, closeFn func() error) (source, error) {
	if d.Variant == "v2" {
		return nil, fmt.Errorf("%w: CDT container v2 (crimson_debug_trace_v2); this build reads container v1", ErrUnsupported)
	}
	// A trace whose writer died before its footer is read from a forward
	// scan of its complete chunks (Reader.Recovered reports it).
	rd, err := cdt.Open(ra, size, cdt.WithConcurrency(o.concurrency), cdt.WithRecovery())
	if err != nil {
		return nil, err
	}
	close := func() error {
		err := rd.Close()
		if closeFn != nil {
			if cerr := closeFn(); err == nil {
				err = cerr
			}
		}
		return err
	}
	return &cdtSource{rd: rd, it: rd.Iter(math.MinInt64, math.MaxInt64), closeFn: close, keys: map[string]string{}}, nil
}

var cdtTrack = &Track{Kind: TrackTrace, ID: 0, Name: "ticks"}

func (s *cdtSource) next(e *Event) bool {
	if !s.it.Next() {
		return false
	}
	s.row = s.it.Row()
	s.parsed = false
	e.reset()
	e.kind, e.name, e.track = KindCounter, "tick", cdtTrack
	e.tick, e.hasTick = s.row.Tick, true
	if ms, ok := cdtElapsedMs(s.row.Raw); ok {
		e.hasTime = true
		switch {
		case ms > math.MaxInt64/1_000_000:
			e.time = math.MaxInt64
		case ms < math.MinInt64/1_000_000:
			e.time = math.MinInt64
		default:
			e.time = ms * 1_000_000
		}
	}
	return true
}

// cdtElapsedMs finds the integer elapsed_ms among the row map's top-level
// keys without decoding the row.
func cdtElapsedMs(raw []byte) (int64, bool) {
	n, b, err := msgp.ReadMapHeaderBytes(raw)
	if err != nil {
		return 0, false
	}
	for range n {
		var key []byte
		if key, b, err = msgp.ReadMapKeyZC(b); err != nil {
			return 0, false
		}
		if string(key) == "elapsed_ms" {
			v, _, err := msgp.ReadInt64Bytes(b)
			return v, err == nil
		}
		if b, err = msgp.Skip(b); err != nil {
			return 0, false
		}
	}
	return 0, false
}

// parse splits the current row's top-level map into fields (once per row).
func (s *cdtSource) parse() {
	if s.parsed {
		return
	}
	s.parsed = true
	s.fields = s.fields[:0]
	n, b, err := msgp.ReadMapHeaderBytes(s.row.Raw)
	if err != nil {
		return
	}
	for range n {
		var key []byte
		if key, b, err = msgp.ReadMapKeyZC(b); err != nil {
			return
		}
		rest, err := msgp.Skip(b)
		if err != nil {
			return
		}
		raw := b[:len(b)-len(rest)]
		b = rest
		name, ok := s.keys[string(key)]
		if !ok {
			name = string(key)
			if len(s.keys) < DefaultMaxNames {
				s.keys[name] = name
			}
		}
		s.fields = append(s.fields, cdtField{name: name, v: s.scalar(raw, len(s.fields)), raw: raw})
	}
}

// scalar types one msgpack value; maps, arrays and other types are
// composites.
func (s *cdtSource) scalar(raw []byte, i int) Value {
	switch msgp.NextType(raw) {
	case msgp.NilType:
		return Value{}
	case msgp.IntType:
		if v, _, err := msgp.ReadInt64Bytes(raw); err == nil {
			return intValue(v)
		}
	case msgp.UintType:
		if v, _, err := msgp.ReadUint64Bytes(raw); err == nil {
			return uintValue(v)
		}
	case msgp.Float64Type, msgp.Float32Type:
		if v, _, err := msgp.ReadFloat64Bytes(raw); err == nil {
			return floatValue(v)
		}
	case msgp.BoolType:
		if v, _, err := msgp.ReadBoolBytes(raw); err == nil {
			return boolValue(v)
		}
	case msgp.StrType:
		if v, _, err := msgp.ReadStringZC(raw); err == nil {
			return stringValue(v)
		}
	case msgp.BinType:
		if v, _, err := msgp.ReadBytesZC(raw); err == nil {
			return bytesValue(v)
		}
	}
	return compositeValue(s, i)
}

func (s *cdtSource) err() error { return s.it.Err() }

func (s *cdtSource) close() error {
	err := s.it.Close()
	if cerr := s.closeFn(); err == nil {
		err = cerr
	}
	return err
}

func (s *cdtSource) underlying() any { return s.rd }

// recovered reports a trace opened from a forward scan (no usable footer).
func (s *cdtSource) recovered() bool { return s.rd.Recovery() != nil }

func (s *cdtSource) numArgs() int {
	s.parse()
	return len(s.fields)
}

func (s *cdtSource) arg(i int) (string, Value) {
	s.parse()
	return s.fields[i].name, s.fields[i].v
}

// appendArgJSON renders a composite entry with msgp's JSON translation.
func (s *cdtSource) appendArgJSON(b []byte, i int) []byte {
	s.parse()
	s.jw.b = b
	if _, err := msgp.UnmarshalAsJSON(&s.jw, s.fields[i].raw); err != nil {
		return append(b, "null"...)
	}
	return s.jw.b
}

// appendRecord: {"tick_index": the row's tick}.
func (s *cdtSource) appendRecord(b []byte) []byte {
	b = append(b, `{"tick_index":`...)
	b = strconv.AppendInt(b, s.row.Tick, 10)
	return append(b, '}')
}

// appendWriter is an io.Writer appending to a byte slice.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
