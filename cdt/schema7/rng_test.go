package schema7

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/cdt"
)

func TestRngStreamRowSchema8(t *testing.T) {
	v8 := msgp.AppendMapHeader(nil, 5)
	for _, kv := range []struct {
		k string
		v int64
	}{{"tick_call_index", 1}, {"value_15", 28052}, {"state_before_u32", 2427270273}, {"state_after_u32", 3985917248}, {"caller_static_u32", 0x004281a2}} {
		v8 = msgp.AppendString(v8, kv.k)
		v8 = appendInt(v8, kv.v)
	}
	var row RngStreamRow
	if _, err := row.UnmarshalMsg(v8); err != nil {
		t.Fatal(err)
	}
	if !row.Schema8 || row.CallerStaticU32 != (NullInt{0x004281a2, true}) || row.Value15 != 28052 {
		t.Fatalf("decoded %+v", row)
	}
	again, _ := row.MarshalMsg(nil)
	if !bytes.Equal(again, v8) {
		t.Fatalf("v8 row re-encodes as %x", again)
	}
	if got := string(AppendJSON(nil, &row)); got != `{"tick_call_index":1,"value_15":28052,"state_before_u32":2427270273,"state_after_u32":3985917248,"caller_static_u32":4358562}` {
		t.Fatalf("json %s", got)
	}
	// Mixing the layouts is an unknown field for either schema.
	mixed := append(bytes.Clone(v8[:1]), v8[1:]...)
	mixed[0] = 0x86
	mixed = msgp.AppendString(mixed, "branch_id")
	mixed = msgp.AppendNil(mixed)
	if _, err := row.UnmarshalMsg(mixed); !errors.Is(err, ErrUnknownField) {
		t.Fatalf("mixed layout: %v", err)
	}
	// A v8 trace opens with the default options and diffs with the v8 key.
	meta := NewTraceMeta("x", nil, nil, nil, 0, 1, 2)
	meta.TraceSchemaVersion = 8
	write := func(caller int64) *cdt.File {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, &meta)
		if err != nil {
			t.Fatal(err)
		}
		for tick := range int64(2) {
			rec := DemoTick(tick, 1)
			for i := range rec.Channels.RngStream {
				r := &rec.Channels.RngStream[i]
				r.Schema8, r.CallerStaticU32 = true, NullInt{caller, true}
			}
			if err := w.Append(&rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := cdt.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := write(0x401000), write(0x402000)
	defer a.Close()
	defer b.Close()
	rep, err := Diff(a, b, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mismatch == nil || len(rep.Mismatch.Channels) != 1 || rep.Mismatch.Channels[0].Channel != "rng_stream" ||
		!bytes.Contains(rep.Mismatch.Channels[0].DetailJSON(), []byte(`"caller_static_hex":"0x00402000"`)) {
		t.Fatalf("v8 diff %s", rep.JSON())
	}
}

func TestWeaponIDRange(t *testing.T) {
	rec := DemoTick(3, 1)
	rec.Channels.Checkpoint.Players[0].WeaponID = 54
	raw, _ := rec.MarshalMsg(nil)
	var got TickRecord
	if err := got.Decode(raw); !errors.Is(err, ErrWeaponID) || !errors.Is(err, cdt.ErrCorrupt) {
		t.Fatalf("weapon_id 54: %v", err)
	}
	rec.Channels.Checkpoint.Players[0].WeaponID = 53
	raw, _ = rec.MarshalMsg(raw[:0])
	if err := got.Decode(raw); err != nil {
		t.Fatal(err)
	}
}
