package cdt

import (
	"errors"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// blockPayload builds a TickBlock with ticks first or last, plus extra bytes.
func blockPayload(ticksFirst bool, extra []byte) []byte {
	row := func(b []byte, tick int64) []byte {
		b = msgp.AppendMapHeader(b, 1)
		b = msgp.AppendString(b, "tick_index")
		return msgp.AppendInt64(b, tick)
	}
	ticks := func(b []byte) []byte {
		b = msgp.AppendString(b, "ticks")
		b = msgp.AppendArrayHeader(b, 2)
		b = row(b, 4)
		return row(b, 5)
	}
	b := msgp.AppendMapHeader(nil, 3)
	if ticksFirst {
		b = ticks(b)
	}
	b = msgp.AppendString(b, "start_tick")
	b = msgp.AppendInt64(b, 4)
	b = msgp.AppendString(b, "end_tick")
	b = msgp.AppendInt64(b, 5)
	if !ticksFirst {
		b = ticks(b)
	}
	return append(b, extra...)
}

func TestParseBlockKeyOrderAndTrailingBytes(t *testing.T) {
	for _, first := range []bool{true, false} {
		start, end, rows, err := parseBlock(0, blockPayload(first, nil), nil, DefaultLimits())
		if err != nil || start != 4 || end != 5 || len(rows) != 2 || rows[0].Tick != 4 || rows[1].Tick != 5 {
			t.Fatalf("ticksFirst=%v: %d %d %+v %v", first, start, end, rows, err)
		}
		_, _, _, err = parseBlock(0, blockPayload(first, []byte{0xc0}), nil, DefaultLimits())
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("ticksFirst=%v: trailing byte accepted: %v", first, err)
		}
		_, _, n, _, err := parseBlockLazy(0, blockPayload(first, nil), DefaultLimits())
		if err != nil || n != 2 {
			t.Fatalf("lazy ticksFirst=%v: %d %v", first, n, err)
		}
	}
}
