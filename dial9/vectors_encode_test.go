package dial9

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// must fails the test on an encoder error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func reg(t *testing.T, e *Writer, name string, fields ...FieldDef) Handle {
	t.Helper()
	h, err := e.Register(name, fields)
	must(t, err)
	return h
}

func f(name string, typ FieldType) FieldDef { return FieldDef{Name: name, Type: typ} }

// compareVector checks got against a vector file byte for byte.
func compareVector(t *testing.T, got []byte, rel ...string) {
	t.Helper()
	want := vectortest.Read(t, "dial9", rel...)
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	t.Fatalf("%v: %d bytes, want %d; first difference at offset %d\n got  %x\n want %x", rel, len(got), len(want), i,
		got[i:min(len(got), i+32)], want[i:min(len(want), i+32)])
}

// encode runs fn on a fresh Writer and returns the flushed stream.
func encode(t *testing.T, fn func(e *Writer)) []byte {
	t.Helper()
	var buf bytes.Buffer
	e := mustWriter(&buf)
	fn(e)
	must(t, e.Flush())
	return buf.Bytes()
}

// continueFrom decodes prefix to its end and appends with NewAppendWriter.
func continueFrom(t *testing.T, prefix []byte, fn func(e *Writer)) []byte {
	t.Helper()
	d, err := NewBytesReader(prefix)
	must(t, err)
	for d.NextFrame() {
	}
	must(t, d.Err())
	var buf bytes.Buffer
	buf.Write(prefix)
	e, err := NewAppendWriter(&buf, d)
	must(t, err)
	fn(e)
	must(t, e.Flush())
	return buf.Bytes()
}

func TestEncodeVectorsV020(t *testing.T) {
	t.Run("01_header_only", func(t *testing.T) {
		compareVector(t, encode(t, func(e *Writer) {}), "v0.2.0", "01_header_only.bin")
	})
	t.Run("02_all_field_types", func(t *testing.T) {
		got := encode(t, func(e *Writer) {
			pooled := e.InternString("pooled-value")
			h := reg(t, e, "AllTypes", f("f_i64", TypeI64), f("f_f64", TypeF64), f("f_bool", TypeBool),
				f("f_string", TypeString), f("f_bytes", TypeBytes), f("f_pooled", TypePooledString),
				f("f_stack", TypeStackFrames), f("f_varint", TypeVarint), f("f_map", TypeStringMap),
				f("f_u8", TypeU8), f("f_u16", TypeU16), f("f_u32", TypeU32))
			must(t, e.Begin(h, 1000).I64(-42).F64(3.5).Bool(true).String("hello").Bytes([]byte{0xde, 0xad, 0xbe, 0xef}).
				PooledString(pooled).Stack([]uint64{0x1000, 0x7fff00001234, 0xffffffffffffffff}).Varint(300).
				StringMap([]KV{{"k1", "v1"}, {"k2", ""}}).U8(7).U16(4660).U32(3735928559).End())
			must(t, e.Begin(h, 2000).I64(math.MinInt64).F64(math.Inf(-1)).Bool(false).String("").Bytes(nil).
				PooledString(pooled).Stack(nil).Varint(math.MaxUint64).StringMap(nil).U8(255).U16(65535).U32(math.MaxUint32).End())
			must(t, e.Begin(h, 2000).I64(math.MaxInt64).F64(math.Copysign(0, -1)).Bool(true).String("héllo ✓ 日本 🦀").
				Bytes([]byte{0, 0xff, 0x80}).PooledString(pooled).Stack([]uint64{0}).Varint(0).
				StringMap([]KV{{"dup", "1"}, {"dup", "2"}, {"ünï", "çødé"}}).U8(0).U16(0).U32(0).End())
			must(t, e.WriteEvent(h, 2001, []Value{I64(0), F64(math.Float64frombits(0x7ff8000000000000)), Bool(false), String("x"), Bytes([]byte{1}),
				PooledString(pooled), StackFrames(1, 2), Varint(127), StringMap(KV{"", ""}), U8(128), U16(256), U32(65536)}))
		})
		compareVector(t, got, "v0.2.0", "02_all_field_types.bin")
	})
	t.Run("03_dynamic_api", func(t *testing.T) {
		got := encode(t, func(e *Writer) {
			fields := []FieldDef{f("i", TypeI64), f("f", TypeF64), f("b", TypeBool), f("s", TypeString), f("by", TypeBytes),
				f("p", TypePooledString), f("st", TypeStackFrames), f("v", TypeVarint), f("m", TypeStringMap)}
			h := reg(t, e, "Dyn", fields...)
			p := e.InternString("dyn-pooled")
			must(t, e.WriteEvent(h, 5000000000, []Value{I64(-1), F64(1), Bool(true), String("dyn"), Bytes([]byte{9, 8, 7}),
				PooledString(p), StackFrames(0xabc, 0xdef), Varint(128), StringMap(KV{"a", "b"})}))
			h2 := reg(t, e, "Dyn", fields...) // identical: writes nothing
			if h2 != h {
				t.Fatalf("re-registration returned %v, want %v", h2, h)
			}
			must(t, e.WriteEvent(h2, 5000000100, []Value{I64(2), F64(2.5), Bool(false), String(""), Bytes(nil),
				PooledString(p), StackFrames(), Varint(0), StringMap()}))
			nf := reg(t, e, "NoFields")
			must(t, e.WriteEvent(nf, 5000000200, nil))
		})
		compareVector(t, got, "v0.2.0", "03_dynamic_api.bin")
	})
	t.Run("04_string_pool", func(t *testing.T) {
		got := encode(t, func(e *Writer) {
			ids := []uint32{e.InternString("alpha"), e.InternString("beta"), e.InternString(""), e.InternString("ünïcødé ✓")}
			if again := e.InternString("alpha"); again != 0 {
				t.Fatalf("second intern of alpha = %d", again)
			}
			h := reg(t, e, "Named", f("name", TypePooledString))
			ts := uint64(10)
			ev := func(id uint32) {
				t.Helper()
				must(t, e.Begin(h, ts).PooledString(id).End())
				ts += 10
			}
			for _, id := range ids {
				ev(id)
			}
			must(t, e.WriteStringPool([]StringPoolEntry{{ID: 100, Data: []byte("hundred")}, {ID: 7, Data: []byte("seven")}}))
			ev(100)
			must(t, e.WriteStringPool([]StringPoolEntry{{ID: 0, Data: []byte("alpha-redefined")}}))
			ev(0)
			ev(999)
			must(t, e.WriteStringPool([]StringPoolEntry{{ID: 50, Data: []byte{0xff, 0xfe, 'x'}}}))
			ev(50)
			ev(200)
			must(t, e.WriteStringPool([]StringPoolEntry{{ID: 200, Data: []byte("late")}}))
			must(t, e.WriteStringPool(nil))
		})
		compareVector(t, got, "v0.2.0", "04_string_pool.bin")
	})
	t.Run("05_timestamps", func(t *testing.T) {
		got := encode(t, func(e *Writer) {
			h := reg(t, e, "Tick", f("seq", TypeVarint))
			for i, ts := range []uint64{16777215, 16777215, 16777216, 33554431, 50331647, 50331646, 5,
				1700000000000000000, 1700000000000000001, 1700000000016777216, math.MaxUint64, math.MaxUint64, 0, 0} {
				must(t, e.WriteUints(h, ts, uint64(i)))
			}
		})
		compareVector(t, got, "v0.2.0", "05_timestamps.bin")
	})
	t.Run("05b_timestamp_first_overflow", func(t *testing.T) {
		got := encode(t, func(e *Writer) {
			h := reg(t, e, "Tick", f("seq", TypeVarint))
			must(t, e.WriteUints(h, 16777216, 0))
			must(t, e.WriteUints(h, 16778216, 1))
		})
		compareVector(t, got, "v0.2.0", "05b_timestamp_first_overflow.bin")
	})
	t.Run("06_multi_schema", func(t *testing.T) {
		got := encode(t, func(e *Writer) {
			a := reg(t, e, "SchemaA", f("a", TypeVarint))
			must(t, e.WriteUints(a, 100, 1))
			b := reg(t, e, "SchemaB", f("b", TypeString), f("c", TypeBool))
			must(t, e.Begin(b, 200).String("x").Bool(true).End())
			must(t, e.WriteUints(a, 300, 2))
			reg(t, e, "DynMid", f("z", TypeU32))
			empty := reg(t, e, "Empty")
			must(t, e.WriteUints(empty, 400))
			must(t, e.Begin(b, 500).String("y").Bool(false).End())
			v := reg(t, e, "VarintEdge", f("v", TypeVarint))
			must(t, e.WriteUints(v, 600, 9))
		})
		compareVector(t, got, "v0.2.0", "06_multi_schema.bin")
	})
	schemaA := []FieldDef{f("a", TypeVarint)}
	schemaB := []FieldDef{f("b", TypeString), f("c", TypeBool)}
	t.Run("07_schema_reregistration_idempotent", func(t *testing.T) {
		first := encode(t, func(e *Writer) {
			a := reg(t, e, "SchemaA", schemaA...)
			must(t, e.WriteUints(a, 1000, 1))
			b := reg(t, e, "SchemaB", schemaB...)
			must(t, e.Begin(b, 2000).String("first").Bool(true).End())
		})
		// The repeated schema frame came from a second encoder's output.
		second := encode(t, func(e *Writer) { reg(t, e, "SchemaA", schemaA...) })
		first = append(first, second[5:]...)
		got := continueFrom(t, first, func(e *Writer) {
			a := reg(t, e, "SchemaA", schemaA...)
			b := reg(t, e, "SchemaB", schemaB...)
			must(t, e.WriteUints(a, 3000, 3))
			must(t, e.Begin(b, 4000).String("after").Bool(false).End())
		})
		compareVector(t, got, "v0.2.0", "07_schema_reregistration_idempotent.bin")
	})
	t.Run("08_schema_conflict_NEGATIVE", func(t *testing.T) {
		got := encode(t, func(e *Writer) {
			a := reg(t, e, "SchemaA", schemaA...)
			must(t, e.WriteUints(a, 1000, 1))
			if _, err := e.Register("SchemaA", schemaB); !errors.Is(err, ErrSchemaConflict) {
				t.Fatalf("conflicting registration: %v", err)
			}
			if _, err := e.Register("SchemaB", schemaB, WithTypeID(0)); !errors.Is(err, ErrSchemaConflict) {
				t.Fatalf("registration on a used id: %v", err)
			}
		})
		// Our encoder refuses the conflict; the vector's frame is appended raw.
		got = AppendSchema(got, &Schema{ID: 0, Name: "SchemaB", HasTimestamp: true, Fields: schemaB})
		compareVector(t, got, "v0.2.0", "08_schema_conflict_NEGATIVE.bin")
	})
	t.Run("09_concatenated_streams", func(t *testing.T) {
		var buf bytes.Buffer
		e := mustWriter(&buf)
		cs := reg(t, e, "ClockSyncEvent", f("realtime_ns", TypeVarint))
		must(t, e.WriteUints(cs, 1000000000, 1767225600000000000))
		must(t, e.Reset(&buf))
		sm := reg(t, e, "SegmentMetadataEvent", f("entries", TypeStringMap))
		must(t, e.Begin(sm, 1000000100).StringMap([]KV{{"service", "demo"}, {"runtime.0", "main"}}).End())
		cs = reg(t, e, "ClockSyncEvent", f("realtime_ns", TypeVarint))
		must(t, e.WriteUints(cs, 1000000100, 1767225600000000100))
		pollStart := []FieldDef{f("worker_id", TypeVarint), f("local_queue", TypeU8), f("task_id", TypeVarint), f("spawn_loc", TypePooledString)}
		pollEnd := []FieldDef{f("worker_id", TypeVarint)}
		must(t, e.Reset(&buf))
		loc := e.InternString("src/main.rs:10:5")
		ps := reg(t, e, "PollStartEvent", pollStart...)
		must(t, e.Begin(ps, 1000001000).Varint(0).U8(3).Varint(17).PooledString(loc).End())
		pe := reg(t, e, "PollEndEvent", pollEnd...)
		must(t, e.WriteUints(pe, 1000002000, 0))
		must(t, e.Reset(&buf))
		loc = e.InternString("src/other.rs:99:1")
		pe = reg(t, e, "PollEndEvent", pollEnd...)
		must(t, e.WriteUints(pe, 1000003000, 1))
		ps = reg(t, e, "PollStartEvent", pollStart...)
		must(t, e.Begin(ps, 1000004000).Varint(1).U8(0).Varint(18).PooledString(loc).End())
		must(t, e.Flush())
		compareVector(t, buf.Bytes(), "v0.2.0", "09_concatenated_streams.bin")
	})
	t.Run("10_varint_edges", func(t *testing.T) {
		got := encode(t, func(e *Writer) {
			h := reg(t, e, "VarintEdge", f("v", TypeVarint))
			for i, v := range []uint64{0, 1, 127, 128, 255, 256, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<32 - 1, 1 << 32,
				1<<56 - 1, 1 << 56, 1<<63 - 1, 1 << 63, math.MaxUint64} {
				must(t, e.Begin(h, uint64(i)).Varint(v).End())
			}
		})
		compareVector(t, got, "v0.2.0", "10_varint_edges.bin")
	})
	t.Run("11_telemetry_schemas", func(t *testing.T) {
		compareVector(t, encode(t, writeTelemetry(t)), "v0.2.0", "11_telemetry_schemas.bin")
	})
	t.Run("12_into_encoder_append", func(t *testing.T) {
		cpu := []FieldDef{f("worker_id", TypeVarint), f("tid", TypeU32), f("source", TypeU8), f("thread_name", TypePooledString), f("callchain", TypeStackFrames)}
		prefix := encode(t, func(e *Writer) {
			name := e.InternString("worker-0")
			h := reg(t, e, "CpuSampleEvent", cpu...)
			must(t, e.Begin(h, 50000000).Varint(0).U32(1).U8(0).PooledString(name).Stack([]uint64{0x1000, 0x2000}).End())
		})
		got := continueFrom(t, prefix, func(e *Writer) {
			sym := e.InternString("fn_at_0x1000")
			file := e.InternString("lib.rs")
			if id := e.InternString("worker-0"); id != 0 {
				t.Fatalf("inherited pool: worker-0 = %d", id)
			}
			h := reg(t, e, "SymbolTableEntry", symbolFields...)
			must(t, e.Begin(h, 0).Varint(4096).Varint(16).PooledString(sym).Varint(0).PooledString(file).Varint(1).End())
			must(t, e.Begin(h, 0).Varint(8192).Varint(16).PooledString(sym).Varint(1).PooledString(file).Varint(2).End())
		})
		compareVector(t, got, "v0.2.0", "12_into_encoder_append.bin")
	})
	t.Run("13_pitfall_dynamic_u16_written_as_leb128", func(t *testing.T) {
		got := encode(t, func(e *Writer) {
			h := reg(t, e, "Pitfall", f("x", TypeU16))
			// Upstream wrote Varint(300) as LEB128 into the U16 slot; we refuse...
			if err := e.WriteEvent(h, 1, []Value{Varint(300)}); !errors.Is(err, ErrEncode) {
				t.Fatalf("Varint into U16: %v", err)
			}
			// ...and the refused event left nothing behind; the same bytes come
			// from writing what every decoder reads back, 684.
			must(t, e.Begin(h, 1).U16(684).End())
		})
		compareVector(t, got, "v0.2.0", "13_pitfall_dynamic_u16_written_as_leb128.bin")
	})
}

var symbolFields = []FieldDef{f("addr", TypeVarint), f("size", TypeVarint), f("symbol_name", TypePooledString),
	f("inline_depth", TypeVarint), f("source_file", TypePooledString), f("source_line", TypeVarint)}

// writeTelemetry writes the 0.2-era tokio telemetry schemas, one event each.
func writeTelemetry(t *testing.T) func(e *Writer) {
	return func(e *Writer) {
		cs := reg(t, e, "ClockSyncEvent", f("realtime_ns", TypeVarint))
		must(t, e.WriteUints(cs, 1000000000, 1767225600000000000))
		sm := reg(t, e, "SegmentMetadataEvent", f("entries", TypeStringMap))
		must(t, e.Begin(sm, 1000000000).StringMap([]KV{{"host", "box"}}).End())
		loc := e.InternString("examples/simple.rs:12:9")
		thread := e.InternString("tokio-runtime-worker")
		spawn := reg(t, e, "TaskSpawnEvent", f("task_id", TypeVarint), f("spawn_loc", TypePooledString))
		must(t, e.Begin(spawn, 1000000010).Varint(1).PooledString(loc).End())
		unpark := reg(t, e, "WorkerUnparkEvent", f("worker_id", TypeVarint), f("local_queue", TypeU8), f("cpu_time_ns", TypeVarint), f("sched_wait_ns", TypeVarint))
		must(t, e.WriteUints(unpark, 1000000020, 0, 1, 123456, 789))
		ps := reg(t, e, "PollStartEvent", f("worker_id", TypeVarint), f("local_queue", TypeU8), f("task_id", TypeVarint), f("spawn_loc", TypePooledString))
		must(t, e.Begin(ps, 1000000030).Varint(0).U8(1).Varint(1).PooledString(loc).End())
		wake := reg(t, e, "WakeEventEvent", f("waker_task_id", TypeVarint), f("woken_task_id", TypeVarint), f("target_worker", TypeU8))
		must(t, e.WriteUints(wake, 1000000035, 1, 2, 255))
		pe := reg(t, e, "PollEndEvent", f("worker_id", TypeVarint))
		must(t, e.WriteUints(pe, 1000000040, 0))
		cpu := reg(t, e, "CpuSampleEvent", f("worker_id", TypeVarint), f("tid", TypeU32), f("source", TypeU8), f("thread_name", TypePooledString), f("callchain", TypeStackFrames))
		must(t, e.Begin(cpu, 1000000045).Varint(0).U32(4242).U8(0).PooledString(thread).Stack([]uint64{0x555555551234, 0x555555550a00}).End())
		qs := reg(t, e, "QueueSampleEvent", f("global_queue", TypeU8))
		must(t, e.WriteUints(qs, 1000000050, 4))
		tt := reg(t, e, "TaskTerminateEvent", f("task_id", TypeVarint))
		must(t, e.WriteUints(tt, 1000000060, 1))
		park := reg(t, e, "WorkerParkEvent", f("worker_id", TypeVarint), f("local_queue", TypeU8), f("cpu_time_ns", TypeVarint))
		must(t, e.WriteUints(park, 1000000070, 0, 0, 130000))
		sym := e.InternString("my_crate::handler")
		file := e.InternString("/src/handler.rs")
		st := reg(t, e, "SymbolTableEntry", symbolFields...)
		must(t, e.Begin(st, 0).Varint(93824992219700).Varint(64).PooledString(sym).Varint(0).PooledString(file).Varint(42).End())
	}
}

func TestEncodeVectorsV040(t *testing.T) {
	t.Run("20_optional_fields", func(t *testing.T) {
		got := encode(t, func(e *Writer) {
			p := e.InternString("opt-pooled")
			h := reg(t, e, "Opt", f("o_u64", Optional|TypeVarint), f("o_str", Optional|TypeString), f("o_pooled", Optional|TypePooledString),
				f("o_u8", Optional|TypeU8), f("o_i64", Optional|TypeI64), f("o_stack", Optional|TypeStackFrames))
			must(t, e.Begin(h, 10).Varint(5).String("s").PooledString(p).Absent().Absent().Stack([]uint64{1}).End())
			must(t, e.Begin(h, 20).Absent().Absent().Absent().U8(200).I64(-1).Absent().End())
			d := reg(t, e, "DynOpt", f("a", Optional|TypeVarint), f("b", Optional|TypeString))
			must(t, e.WriteEvent(d, 30, []Value{Absent(), String("x")}))
			must(t, e.WriteEvent(d, 40, []Value{Varint(300), Absent()}))
		})
		compareVector(t, got, "v0.4.0", "20_optional_fields.bin")
	})
	t.Run("21_stack_pool", func(t *testing.T) {
		got := encode(t, func(e *Writer) {
			s0 := e.InternStack([]uint64{0x1000, 0x2000, 0x3000})
			s1 := e.InternStack([]uint64{0x4000})
			s2 := e.InternStack(nil)
			h := reg(t, e, "Sampled", f("stack", TypePooledStackFrames))
			must(t, e.Begin(h, 100).PooledStack(s0).End())
			must(t, e.Begin(h, 200).PooledStack(s1).End())
			must(t, e.Begin(h, 300).PooledStack(e.InternStack([]uint64{0x1000, 0x2000, 0x3000})).End())
			must(t, e.Begin(h, 400).PooledStack(s2).End())
			must(t, e.WriteStackPool([]StackEntry{{ID: 77, Frames: []uint64{0xdead, 0xbeef}}}))
			must(t, e.Begin(h, 500).PooledStack(77).End())
			must(t, e.Begin(h, 600).PooledStack(12345).End())
			if id := e.InternString("str0"); id != 0 {
				t.Fatalf("string ids are separate from stack ids: got %d", id)
			}
		})
		compareVector(t, got, "v0.4.0", "21_stack_pool.bin")
	})
}
