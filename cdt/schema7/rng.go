package schema7

import (
	"errors"

	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/cdt/internal/pyjson"
)

// RngStreamRow is one MSVC-CRT rand() draw of the rng_stream channel. Schema
// v7 rows carry CallerStatic and BranchID; schema v8 rows (Schema8 true)
// carry CallerStaticU32 instead. Decoding picks the layout from the keys
// present (each layout rejects the other's keys, as the reference's
// forbid_unknown_fields does); encoding writes the layout Schema8 selects.
type RngStreamRow struct {
	TickCallIndex  Int
	Value15        Int // (state_after >> 16) & 0x7fff
	StateBeforeU32 Int
	StateAfterU32  Int // state_before*214013 + 2531011 mod 2^32
	// Schema v7 fields.
	CallerStatic NullString // hex text such as "0x004281a2"
	BranchID     NullString
	// Schema v8 field.
	CallerStaticU32 NullInt
	Schema8         bool
}

func (z *RngStreamRow) v7() *rngStreamRowV7 {
	return &rngStreamRowV7{z.TickCallIndex, z.Value15, z.StateBeforeU32, z.StateAfterU32, z.CallerStatic, z.BranchID}
}

func (z *RngStreamRow) v8() *rngStreamRowV8 {
	return &rngStreamRowV8{z.TickCallIndex, z.Value15, z.StateBeforeU32, z.StateAfterU32, z.CallerStaticU32}
}

// MarshalMsg implements msgp.Marshaler.
func (z *RngStreamRow) MarshalMsg(b []byte) ([]byte, error) {
	if z.Schema8 {
		return z.v8().MarshalMsg(b)
	}
	return z.v7().MarshalMsg(b)
}

// UnmarshalMsg implements msgp.Unmarshaler.
func (z *RngStreamRow) UnmarshalMsg(b []byte) ([]byte, error) {
	var w7 rngStreamRowV7
	o, err := w7.UnmarshalMsg(b)
	if err == nil {
		*z = RngStreamRow{TickCallIndex: w7.TickCallIndex, Value15: w7.Value15, StateBeforeU32: w7.StateBeforeU32,
			StateAfterU32: w7.StateAfterU32, CallerStatic: w7.CallerStatic, BranchID: w7.BranchID}
		return o, nil
	}
	var uf *unknownFieldError
	if !errors.As(err, &uf) || uf.field != "caller_static_u32" {
		return b, err
	}
	var w8 rngStreamRowV8
	if o, err = w8.UnmarshalMsg(b); err != nil {
		return b, err
	}
	*z = RngStreamRow{TickCallIndex: w8.TickCallIndex, Value15: w8.Value15, StateBeforeU32: w8.StateBeforeU32,
		StateAfterU32: w8.StateAfterU32, CallerStaticU32: w8.CallerStaticU32, Schema8: true}
	return o, nil
}

// Msgsize implements msgp.Sizer.
func (z *RngStreamRow) Msgsize() int {
	return z.v7().Msgsize() + msgp.Int64Size + 20
}

// pyValue renders the row with the fields of its own schema.
func (z RngStreamRow) pyValue() pyjson.Value {
	var v pyjson.Value
	if z.Schema8 {
		v = toValueOf(z.v8())
	} else {
		v = toValueOf(z.v7())
	}
	v.Type = "RngStreamRow"
	return v
}
