package ctfgen

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FieldKind is the type of a field of WriteRecords' event record classes.
type FieldKind uint8

// Field kinds of WriteRecords.
const (
	// S32 is a signed 32-bit integer (LTTng's tid, vtid, vpid).
	S32 FieldKind = iota
	// X64 is an unsigned 64-bit integer displayed in hexadecimal (an
	// address).
	X64
	// Str is a null-terminated string.
	Str
	// Comm is LTTng's 16-byte process name: a static-length UTF-8 byte
	// array (as sched_switch's prev_comm and next_comm).
	Comm
)

// Field is a field of a generated scope: its name as LTTng writes it in
// TSDL (an underscore before it, which babeltrace2 and package ctf drop).
type Field struct {
	Name string
	Kind FieldKind
}

// Class is an event record class of WriteRecords: its name and payload.
type Class struct {
	Name   string
	Fields []Field
}

// Spec is a trace of WriteRecords: the tracer's domain ("kernel" or
// "ust"), the fields of the stream's event context (LTTng's contexts added
// to a channel: vtid, vpid, procname, tid; none: no event context) and
// the event record classes (ids their positions).
type Spec struct {
	Domain  string
	Context []Field
	Classes []Class
}

// Record is an event record of WriteRecords: on CPU CPU, of class Class,
// at time TS (ns since the clock's origin), with the values of the event
// context and of the payload in field order (int64 for S32 and X64, string
// for Str and Comm).
type Record struct {
	CPU     int
	Class   int
	TS      uint64
	Context []any
	Values  []any
}

// Metadata is the TSDL text of s.
func (s Spec) Metadata() string {
	var b strings.Builder
	b.WriteString(`/* CTF 1.8 */

typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;

trace {
	major = 1;
	minor = 8;
	uuid = "` + UUID + `";
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint8_t  uuid[16];
		uint32_t stream_id;
	};
};

env {
	hostname = "gen";
	domain = "` + s.Domain + `";
	tracer_name = "lttng-modules";
};

clock {
	name = "monotonic";
	freq = 1000000000;
};

typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;

stream {
	id = 0;
	event.header := struct { uint32_t id; uint64_clock_monotonic_t timestamp; };
	packet.context := struct {
		uint64_clock_monotonic_t timestamp_begin;
		uint64_clock_monotonic_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
		uint32_t cpu_id;
	};
`)
	if len(s.Context) > 0 {
		b.WriteString("\tevent.context := struct {\n")
		writeFields(&b, s.Context)
		b.WriteString("\t};\n")
	}
	b.WriteString("};\n")
	for i, c := range s.Classes {
		fmt.Fprintf(&b, "\nevent {\n\tname = %q;\n\tid = %d;\n\tstream_id = 0;\n", c.Name, i)
		if len(c.Fields) > 0 {
			b.WriteString("\tfields := struct {\n")
			writeFields(&b, c.Fields)
			b.WriteString("\t};\n")
		}
		b.WriteString("};\n")
	}
	return b.String()
}

func writeFields(b *strings.Builder, fs []Field) {
	for _, f := range fs {
		switch f.Kind {
		case S32:
			b.WriteString("\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _" + f.Name + ";\n")
		case X64:
			b.WriteString("\t\tinteger { size = 64; align = 8; signed = 0; encoding = none; base = 16; } _" + f.Name + ";\n")
		case Str:
			b.WriteString("\t\tstring _" + f.Name + ";\n")
		case Comm:
			b.WriteString("\t\tinteger { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; } _" + f.Name + "[16];\n")
		}
	}
}

// WriteRecords writes to dir (created when missing) a CTF 1.8 trace of
// spec s holding recs: "metadata" (s.Metadata()) and, per CPU of the
// records, a data stream "channel0_CPU" of one packet holding that CPU's
// records in the order given (their times must not decrease per CPU). It
// fails on a value that does not fit its field.
func WriteRecords(dir string, s Spec, recs []Record) error {
	byCPU := map[int][]byte{}
	var cpus []int
	last := map[int]uint64{}
	for n, r := range recs {
		if r.Class < 0 || r.Class >= len(s.Classes) {
			return fmt.Errorf("ctfgen: record %d: no class %d", n, r.Class)
		}
		if r.CPU < 0 {
			return fmt.Errorf("ctfgen: record %d: CPU %d", n, r.CPU)
		}
		if _, ok := byCPU[r.CPU]; !ok {
			cpus = append(cpus, r.CPU)
			byCPU[r.CPU] = nil
		} else if r.TS < last[r.CPU] {
			return fmt.Errorf("ctfgen: record %d: time %d before %d on CPU %d", n, r.TS, last[r.CPU], r.CPU)
		}
		last[r.CPU] = r.TS
		b := binary.LittleEndian.AppendUint32(byCPU[r.CPU], uint32(r.Class))
		b = binary.LittleEndian.AppendUint64(b, r.TS)
		var err error
		if b, err = appendValues(b, s.Context, r.Context); err != nil {
			return fmt.Errorf("ctfgen: record %d: context: %w", n, err)
		}
		if b, err = appendValues(b, s.Classes[r.Class].Fields, r.Values); err != nil {
			return fmt.Errorf("ctfgen: record %d: %s: %w", n, s.Classes[r.Class].Name, err)
		}
		byCPU[r.CPU] = b
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "metadata"), []byte(s.Metadata()), 0o644); err != nil {
		return err
	}
	for _, cpu := range cpus {
		evs := byCPU[cpu]
		var p []byte
		p = binary.LittleEndian.AppendUint32(p, 0xc1fc1fc1)
		p = append(p, uuidBytes[:]...)
		p = binary.LittleEndian.AppendUint32(p, 0)
		first := uint64(0)
		if len(evs) >= 12 {
			first = binary.LittleEndian.Uint64(evs[4:])
		}
		p = binary.LittleEndian.AppendUint64(p, first)
		p = binary.LittleEndian.AppendUint64(p, last[cpu])
		size := uint64(len(p)+16+4+len(evs)) * 8
		p = binary.LittleEndian.AppendUint64(p, size) // content_size
		p = binary.LittleEndian.AppendUint64(p, size) // packet_size
		p = binary.LittleEndian.AppendUint32(p, uint32(cpu))
		p = append(p, evs...)
		if err := os.WriteFile(filepath.Join(dir, "channel0_"+strconv.Itoa(cpu)), p, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func appendValues(b []byte, fs []Field, vs []any) ([]byte, error) {
	if len(vs) != len(fs) {
		return b, fmt.Errorf("%d values for %d fields", len(vs), len(fs))
	}
	for i, f := range fs {
		switch f.Kind {
		case S32, X64:
			v, ok := vs[i].(int64)
			if !ok {
				if n, isInt := vs[i].(int); isInt {
					v, ok = int64(n), true
				}
			}
			if !ok {
				return b, fmt.Errorf("%s: %T, not an integer", f.Name, vs[i])
			}
			if f.Kind == S32 {
				if int64(int32(v)) != v {
					return b, fmt.Errorf("%s: %d does not fit 32 bits", f.Name, v)
				}
				b = binary.LittleEndian.AppendUint32(b, uint32(v))
			} else {
				b = binary.LittleEndian.AppendUint64(b, uint64(v))
			}
		case Str, Comm:
			v, ok := vs[i].(string)
			if !ok || strings.IndexByte(v, 0) >= 0 {
				return b, fmt.Errorf("%s: %T, not a string without NUL", f.Name, vs[i])
			}
			if f.Kind == Str {
				b = append(append(b, v...), 0)
				continue
			}
			if len(v) > 15 {
				return b, fmt.Errorf("%s: %q longer than 15 bytes", f.Name, v)
			}
			var c [16]byte
			copy(c[:], v)
			b = append(b, c[:]...)
		}
	}
	return b, nil
}

// Event record classes of LTTng's tracers, with their payloads, for
// WriteRecords' specs.
var (
	// SchedSwitch is lttng-modules' sched_switch: values prev_comm,
	// prev_tid, prev_prio, prev_state, next_comm, next_tid, next_prio.
	SchedSwitch = Class{"sched_switch", []Field{{"prev_comm", Comm}, {"prev_tid", S32}, {"prev_prio", S32},
		{"prev_state", S32}, {"next_comm", Comm}, {"next_tid", S32}, {"next_prio", S32}}}
	// FuncEntry and FuncExit are liblttng-ust-cyg-profile's (values addr,
	// call_site), FastFuncEntry (addr) and FastFuncExit (none)
	// liblttng-ust-cyg-profile-fast's.
	FuncEntry     = Class{"lttng_ust_cyg_profile:func_entry", []Field{{"addr", X64}, {"call_site", X64}}}
	FuncExit      = Class{"lttng_ust_cyg_profile:func_exit", []Field{{"addr", X64}, {"call_site", X64}}}
	FastFuncEntry = Class{"lttng_ust_cyg_profile_fast:func_entry", []Field{{"addr", X64}}}
	FastFuncExit  = Class{"lttng_ust_cyg_profile_fast:func_exit", nil}
)

// SyscallEntry is lttng-modules' (2.7 and later) syscall_entry_NAME with
// the payload fields.
func SyscallEntry(name string, fields ...Field) Class {
	return Class{"syscall_entry_" + name, fields}
}

// SyscallExit is lttng-modules' (2.7 and later) syscall_exit_NAME: value
// ret.
func SyscallExit(name string) Class {
	return Class{"syscall_exit_" + name, []Field{{"ret", S32}}}
}
