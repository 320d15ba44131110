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
	// array of signed bytes (as the procname context of LTTng 2.4 and
	// later).
	Comm
	// U32 is an unsigned 32-bit integer (a file descriptor).
	U32
	// S64 is a signed 64-bit integer (a system call's return value).
	S64
	// U64 is an unsigned 64-bit integer displayed in decimal (a count).
	U64
	// Chars is lttng-modules' text array of Field.Len bytes
	// (ctf_array_text: unsigned bytes, UTF-8), NUL-padded: sched_switch's
	// prev_comm[16], writeback_single_inode's name[32].
	Chars
)

// Field is a field of a generated scope: its name as LTTng writes it in
// TSDL (an underscore before it, which babeltrace2 and package ctf drop).
type Field struct {
	Name string
	Kind FieldKind
	Len  int // Chars: the array's length in bytes (at least 1)
}

// Class is an event record class of WriteRecords: its name and payload.
type Class struct {
	Name   string
	Fields []Field
}

// Spec is a trace of WriteRecords: the tracer's domain ("kernel" or
// "ust"), the fields of the stream's event context (LTTng's contexts added
// to a channel: vtid, vpid, procname, tid; none: no event context) and
// the event record classes (ids their positions, or IDs).
//
// With LTTng set, the trace has the layout of lttng-modules and
// lttng-ust 2.10 to 2.13 (their metadata's text before the first event
// record class, as Trace Compass's uneven-streams, lttng-modules 2.10,
// and an lttng-ust 2.13.9 trace hold it): a packet header with
// stream_instance_id (the CPU), a packet context with packet_seq_num and
// events_discarded, and the compact event record header (a 5-bit id and
// a 27-bit timestamp; an id ≥ 31 or a time 2^27 ns or more after the
// previous one takes the extended form, a 32-bit id and a 64-bit
// timestamp); each CPU's records in packets of PacketSize bytes (their
// content, then zeros), or one packet when PacketSize is 0. Without it,
// an event record header of a 32-bit id and a 64-bit timestamp, one
// packet per CPU.
type Spec struct {
	Domain  string
	Context []Field
	Classes []Class
	// IDs are the ids of Classes, in order (nil: 0, 1, …; Record.Class
	// is the position in Classes)
	IDs        []uint32
	LTTng      bool
	PacketSize int
}

// Record is an event record of WriteRecords: on CPU CPU, of class Class,
// at time TS (ns since the clock's origin), with the values of the event
// context and of the payload in field order (int64 or int for S32, U32,
// S64, U64 and X64, uint64 too for U64 and X64; string for Str, Comm and
// Chars).
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
	if s.LTTng {
		b.WriteString(strings.Replace(lttngPrologue, "@DOMAIN@", s.Domain, 1))
	} else {
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
	}
	if len(s.Context) > 0 {
		b.WriteString("\tevent.context := struct {\n")
		writeFields(&b, s.Context)
		b.WriteString("\t};\n")
	}
	b.WriteString("};\n")
	for i, c := range s.Classes {
		fmt.Fprintf(&b, "\nevent {\n\tname = %q;\n\tid = %d;\n\tstream_id = 0;\n", c.Name, s.id(i))
		if len(c.Fields) > 0 {
			b.WriteString("\tfields := struct {\n")
			writeFields(&b, c.Fields)
			b.WriteString("\t};\n")
		}
		b.WriteString("};\n")
	}
	return b.String()
}

// id returns the id of class i.
func (s Spec) id(i int) uint32 {
	if s.IDs != nil {
		return s.IDs[i]
	}
	return uint32(i)
}

// lttngPrologue is the metadata text of an LTTng 2.10–2.13 trace before
// its stream's event context (Spec.LTTng), as lttng-modules 2.10 writes
// it (Trace Compass's uneven-streams; lttng-ust 2.13.9's is the same but
// for its env), with the generator's UUID and host.
const lttngPrologue = `/* CTF 1.8 */

typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 64; align = 8; signed = false; } := unsigned long;
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
typealias integer { size = 27; align = 1; signed = false; } := uint27_t;

trace {
	major = 1;
	minor = 8;
	uuid = "` + UUID + `";
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint8_t  uuid[16];
		uint32_t stream_id;
		uint64_t stream_instance_id;
	};
};

env {
	hostname = "gen";
	domain = "@DOMAIN@";
	sysname = "Linux";
	tracer_name = "lttng-modules";
	tracer_major = 2;
	tracer_minor = 10;
	tracer_patchlevel = 0;
};

clock {
	name = "monotonic";
	uuid = "e5704ebe-7bf8-4ff6-a15d-fda2e33fd1a5";
	description = "Monotonic Clock";
	freq = 1000000000; /* Frequency, in Hz */
	/* clock value offset from Epoch is: offset * (1/freq) */
	offset = 1499450703143835608;
};

typealias integer {
	size = 27; align = 1; signed = false;
	map = clock.monotonic.value;
} := uint27_clock_monotonic_t;

typealias integer {
	size = 32; align = 8; signed = false;
	map = clock.monotonic.value;
} := uint32_clock_monotonic_t;

typealias integer {
	size = 64; align = 8; signed = false;
	map = clock.monotonic.value;
} := uint64_clock_monotonic_t;

struct packet_context {
	uint64_clock_monotonic_t timestamp_begin;
	uint64_clock_monotonic_t timestamp_end;
	uint64_t content_size;
	uint64_t packet_size;
	uint64_t packet_seq_num;
	unsigned long events_discarded;
	uint32_t cpu_id;
};

struct event_header_compact {
	enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
	variant <id> {
		struct {
			uint27_clock_monotonic_t timestamp;
		} compact;
		struct {
			uint32_t id;
			uint64_clock_monotonic_t timestamp;
		} extended;
	} v;
} align(8);

struct event_header_large {
	enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;
	variant <id> {
		struct {
			uint32_clock_monotonic_t timestamp;
		} compact;
		struct {
			uint32_t id;
			uint64_clock_monotonic_t timestamp;
		} extended;
	} v;
} align(8);

stream {
	id = 0;
	event.header := struct event_header_compact;
	packet.context := struct packet_context;
`

func writeFields(b *strings.Builder, fs []Field) {
	for _, f := range fs {
		switch f.Kind {
		case S32:
			b.WriteString("\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _" + f.Name + ";\n")
		case U32:
			b.WriteString("\t\tinteger { size = 32; align = 8; signed = 0; encoding = none; base = 10; } _" + f.Name + ";\n")
		case S64:
			b.WriteString("\t\tinteger { size = 64; align = 8; signed = 1; encoding = none; base = 10; } _" + f.Name + ";\n")
		case U64:
			b.WriteString("\t\tinteger { size = 64; align = 8; signed = 0; encoding = none; base = 10; } _" + f.Name + ";\n")
		case X64:
			b.WriteString("\t\tinteger { size = 64; align = 8; signed = 0; encoding = none; base = 16; } _" + f.Name + ";\n")
		case Str:
			b.WriteString("\t\tstring _" + f.Name + ";\n")
		case Comm:
			b.WriteString("\t\tinteger { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; } _" + f.Name + "[16];\n")
		case Chars:
			fmt.Fprintf(b, "\t\tinteger { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _%s[%d];\n", f.Name, f.Len)
		}
	}
}

// WriteRecords writes to dir (created when missing) a CTF 1.8 trace of
// spec s holding recs: "metadata" (s.Metadata()) and, per CPU of the
// records, a data stream "channel0_CPU" holding that CPU's records in the
// order given (their times must not decrease per CPU), in one packet or
// (s.LTTng) in packets of s.PacketSize bytes. It fails on a value that
// does not fit its field, a record larger than a packet's room.
func WriteRecords(dir string, s Spec, recs []Record) error {
	if s.IDs != nil && len(s.IDs) != len(s.Classes) {
		return fmt.Errorf("ctfgen: %d ids for %d classes", len(s.IDs), len(s.Classes))
	}
	if s.PacketSize != 0 && (!s.LTTng || s.PacketSize < lttngHead || s.PacketSize%8 != 0) {
		return fmt.Errorf("ctfgen: packet size %d: not an LTTng trace's, or below %d, or not whole 64-bit words", s.PacketSize, lttngHead)
	}
	ws := map[int]*recWriter{}
	var cpus []int
	for n, r := range recs {
		if r.Class < 0 || r.Class >= len(s.Classes) {
			return fmt.Errorf("ctfgen: record %d: no class %d", n, r.Class)
		}
		if r.CPU < 0 {
			return fmt.Errorf("ctfgen: record %d: CPU %d", n, r.CPU)
		}
		w := ws[r.CPU]
		if w == nil {
			w = &recWriter{s: &s, cpu: r.CPU}
			ws[r.CPU] = w
			cpus = append(cpus, r.CPU)
		} else if r.TS < w.last {
			return fmt.Errorf("ctfgen: record %d: time %d before %d on CPU %d", n, r.TS, w.last, r.CPU)
		}
		if err := w.add(r); err != nil {
			return fmt.Errorf("ctfgen: record %d: %w", n, err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "metadata"), []byte(s.Metadata()), 0o644); err != nil {
		return err
	}
	for _, cpu := range cpus {
		w := ws[cpu]
		w.flush()
		if err := os.WriteFile(filepath.Join(dir, "channel0_"+strconv.Itoa(cpu)), w.out, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// lttngHead is the size of an LTTng packet's header and context
// (Spec.LTTng): magic, UUID, stream_id, stream_instance_id; the begin and
// end times, content and packet sizes, sequence number, discarded count
// and cpu_id.
const lttngHead = 4 + 16 + 4 + 8 + 6*8 + 4

// recWriter writes the records of one CPU of WriteRecords.
type recWriter struct {
	s          *Spec
	cpu        int
	out        []byte // the packets written
	evs        []byte // the current packet's records
	rec        []byte
	first      uint64 // the current packet's first time
	last       uint64 // the last record's time (the clock the next header's is read after)
	seq        uint64
	hasRecords bool
}

// add encodes record r and appends it to the current packet (a new one
// when it would not fit).
func (w *recWriter) add(r Record) error {
	s := w.s
	id := s.id(r.Class)
	for try := 0; try < 2; try++ {
		b := w.rec[:0]
		if !s.LTTng {
			b = binary.LittleEndian.AppendUint32(b, id)
			b = binary.LittleEndian.AppendUint64(b, r.TS)
		} else {
			last := w.last
			if !w.hasRecords {
				last = r.TS // (the packet begins at its first record's time)
			}
			if id < 31 && r.TS-last < 1<<27 {
				b = binary.LittleEndian.AppendUint32(b, id|uint32(r.TS&(1<<27-1))<<5)
			} else {
				b = append(b, 31)
				b = binary.LittleEndian.AppendUint32(b, id)
				b = binary.LittleEndian.AppendUint64(b, r.TS)
			}
		}
		var err error
		if b, err = appendValues(b, s.Context, r.Context); err != nil {
			return fmt.Errorf("context: %w", err)
		}
		if b, err = appendValues(b, s.Classes[r.Class].Fields, r.Values); err != nil {
			return fmt.Errorf("%s: %w", s.Classes[r.Class].Name, err)
		}
		w.rec = b
		if s.PacketSize > 0 && lttngHead+len(w.evs)+len(b) > s.PacketSize {
			if !w.hasRecords {
				return fmt.Errorf("%s: %d bytes, more than a packet holds", s.Classes[r.Class].Name, len(b))
			}
			w.flush() // (then encoded again: the new packet's first header)
			continue
		}
		if !w.hasRecords {
			w.first = r.TS
		}
		w.evs = append(w.evs, b...)
		w.last, w.hasRecords = r.TS, true
		return nil
	}
	return nil // (not reached: a record that fits no empty packet fails above)
}

// flush writes the current packet (when it holds records) and starts the
// next.
func (w *recWriter) flush() {
	if !w.hasRecords {
		return
	}
	p := w.out
	start := len(p)
	p = binary.LittleEndian.AppendUint32(p, 0xc1fc1fc1)
	p = append(p, uuidBytes[:]...)
	p = binary.LittleEndian.AppendUint32(p, 0)
	if w.s.LTTng {
		p = binary.LittleEndian.AppendUint64(p, uint64(w.cpu)) // stream_instance_id
	}
	p = binary.LittleEndian.AppendUint64(p, w.first)
	p = binary.LittleEndian.AppendUint64(p, w.last)
	head := len(p) - start + 16 + 4
	if w.s.LTTng {
		head += 16
	}
	content := uint64(head+len(w.evs)) * 8
	size := content
	if w.s.PacketSize > 0 {
		size = uint64(w.s.PacketSize) * 8
	}
	p = binary.LittleEndian.AppendUint64(p, content)
	p = binary.LittleEndian.AppendUint64(p, size)
	if w.s.LTTng {
		p = binary.LittleEndian.AppendUint64(p, w.seq) // packet_seq_num
		p = binary.LittleEndian.AppendUint64(p, 0)     // events_discarded
	}
	p = binary.LittleEndian.AppendUint32(p, uint32(w.cpu))
	p = append(p, w.evs...)
	p = append(p, make([]byte, start+int(size/8)-len(p))...)
	w.out, w.evs, w.hasRecords = p, w.evs[:0], false
	w.seq++
}

func appendValues(b []byte, fs []Field, vs []any) ([]byte, error) {
	if len(vs) != len(fs) {
		return b, fmt.Errorf("%d values for %d fields", len(vs), len(fs))
	}
	for i, f := range fs {
		switch f.Kind {
		case S32, U32, S64, U64, X64:
			var v int64
			switch x := vs[i].(type) {
			case int64:
				v = x
			case int:
				v = int64(x)
			case uint64:
				if f.Kind != U64 && f.Kind != X64 {
					return b, fmt.Errorf("%s: uint64 for a signed or 32-bit field", f.Name)
				}
				v = int64(x)
			default:
				return b, fmt.Errorf("%s: %T, not an integer", f.Name, vs[i])
			}
			switch f.Kind {
			case S32:
				if int64(int32(v)) != v {
					return b, fmt.Errorf("%s: %d does not fit 32 bits", f.Name, v)
				}
				b = binary.LittleEndian.AppendUint32(b, uint32(v))
			case U32:
				if uint64(v) > 1<<32-1 {
					return b, fmt.Errorf("%s: %d does not fit 32 bits unsigned", f.Name, v)
				}
				b = binary.LittleEndian.AppendUint32(b, uint32(v))
			default:
				b = binary.LittleEndian.AppendUint64(b, uint64(v))
			}
		case Str, Comm, Chars:
			v, ok := vs[i].(string)
			if !ok || strings.IndexByte(v, 0) >= 0 {
				return b, fmt.Errorf("%s: %T, not a string without NUL", f.Name, vs[i])
			}
			if f.Kind == Str {
				b = append(append(b, v...), 0)
				continue
			}
			n, most := 16, 15 // (a process name: 15 bytes and a NUL)
			if f.Kind == Chars {
				if n, most = f.Len, f.Len; n < 1 {
					return b, fmt.Errorf("%s: an array of %d bytes", f.Name, n)
				}
			}
			if len(v) > most {
				return b, fmt.Errorf("%s: %q longer than %d bytes", f.Name, v, most)
			}
			b = append(b, v...)
			b = append(b, make([]byte, n-len(v))...)
		}
	}
	return b, nil
}

// Event record classes of LTTng's tracers, with their payloads, for
// WriteRecords' specs.
var (
	// SchedSwitch is lttng-modules' sched_switch: values prev_comm,
	// prev_tid, prev_prio, prev_state, next_comm, next_tid, next_prio.
	SchedSwitch = Class{"sched_switch", []Field{{Name: "prev_comm", Kind: Comm}, {Name: "prev_tid", Kind: S32}, {Name: "prev_prio", Kind: S32},
		{Name: "prev_state", Kind: S32}, {Name: "next_comm", Kind: Comm}, {Name: "next_tid", Kind: S32}, {Name: "next_prio", Kind: S32}}}
	// FuncEntry and FuncExit are liblttng-ust-cyg-profile's (values addr,
	// call_site), FastFuncEntry (addr) and FastFuncExit (none)
	// liblttng-ust-cyg-profile-fast's.
	FuncEntry     = Class{"lttng_ust_cyg_profile:func_entry", []Field{{Name: "addr", Kind: X64}, {Name: "call_site", Kind: X64}}}
	FuncExit      = Class{"lttng_ust_cyg_profile:func_exit", []Field{{Name: "addr", Kind: X64}, {Name: "call_site", Kind: X64}}}
	FastFuncEntry = Class{"lttng_ust_cyg_profile_fast:func_entry", []Field{{Name: "addr", Kind: X64}}}
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
	return Class{"syscall_exit_" + name, []Field{{Name: "ret", Kind: S32}}}
}
