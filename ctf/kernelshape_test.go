package ctf

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/testgen/ctfgen"
)

// kernelSpec is an LTTng kernel trace's shape (ctfgen.Spec.LTTng: the
// packet header and context and the compact event record header of
// lttng-modules 2.10–2.13, packets of 1 MiB, no event context) with event
// record classes whose fields, ids and domain are those of Trace Compass's
// uneven-streams (lttng-modules 2.10, every kernel event enabled): the
// system calls' ids below 31 take the compact header, the others (the
// scheduler's, timers', memory's) the extended one. kernelClasses indexes
// them.
func kernelSpec() ctfgen.Spec {
	u32 := func(n string) ctfgen.Field { return ctfgen.Field{Name: n, Kind: ctfgen.U32} }
	s32 := func(n string) ctfgen.Field { return ctfgen.Field{Name: n, Kind: ctfgen.S32} }
	u64 := func(n string) ctfgen.Field { return ctfgen.Field{Name: n, Kind: ctfgen.U64} }
	s64 := func(n string) ctfgen.Field { return ctfgen.Field{Name: n, Kind: ctfgen.S64} }
	x64 := func(n string) ctfgen.Field { return ctfgen.Field{Name: n, Kind: ctfgen.X64} }
	comm := func(n string) ctfgen.Field { return ctfgen.Field{Name: n, Kind: ctfgen.Chars, Len: 16} }
	cls := func(name string, fs ...ctfgen.Field) ctfgen.Class { return ctfgen.Class{Name: name, Fields: fs} }
	s := ctfgen.Spec{Domain: "kernel", LTTng: true, PacketSize: 1 << 20}
	for _, c := range []struct {
		id uint32
		c  ctfgen.Class
	}{
		{4, cls("syscall_entry_read", u32("fd"), u64("count"))},
		{293, cls("syscall_exit_read", s64("ret"), u64("buf"))},
		{19, cls("syscall_entry_ioctl", u32("fd"), u32("cmd"), u64("arg"))},
		{308, cls("syscall_exit_ioctl", s64("ret"), u64("arg"))},
		{187, cls("syscall_entry_futex", u64("uaddr"), s32("op"), u32("val"), u64("utime"), u64("uaddr2"), u32("val3"))},
		{476, cls("syscall_exit_futex", s64("ret"), u64("uaddr"), u64("uaddr2"))},
		{1295, cls("sched_switch", comm("prev_comm"), s32("prev_tid"), s32("prev_prio"), s64("prev_state"), comm("next_comm"), s32("next_tid"), s32("next_prio"))},
		{1292, cls("sched_waking", comm("comm"), s32("tid"), s32("prio"), s32("target_cpu"))},
		{1293, cls("sched_wakeup", comm("comm"), s32("tid"), s32("prio"), s32("target_cpu"))},
		{1307, cls("sched_stat_runtime", comm("comm"), s32("tid"), u64("runtime"), u64("vruntime"))},
		{1343, cls("timer_hrtimer_start", x64("hrtimer"), x64("function"), s64("expires"), s64("softexpires"))},
		{1346, cls("timer_hrtimer_cancel", x64("hrtimer"))},
		{1344, cls("timer_hrtimer_expire_entry", x64("hrtimer"), s64("now"), x64("function"))},
		{1345, cls("timer_hrtimer_expire_exit", x64("hrtimer"))},
		{1235, cls("kmem_kfree", x64("call_site"), x64("ptr"))},
		{1231, cls("kmem_kmalloc", x64("call_site"), x64("ptr"), u64("bytes_req"), u64("bytes_alloc"), u32("gfp_flags"))},
		{1266, cls("power_cpu_idle", u32("state"), u32("cpu_id"))},
		{1282, cls("rcu_utilization", ctfgen.Field{Name: "s", Kind: ctfgen.Str})},
		{1323, cls("lttng_statedump_process_state", s32("tid"), s32("vtid"), s32("pid"), s32("vpid"), s32("ppid"), s32("vppid"),
			comm("name"), s32("type"), s32("mode"), s32("submode"), s32("status"), s32("ns_level"), u32("ns_inum"), u32("cpu"))},
	} {
		s.Classes = append(s.Classes, c.c)
		s.IDs = append(s.IDs, c.id)
	}
	return s
}

// kernelComms are process names of a desktop Linux host, of 2 to 15
// bytes (TASK_COMM_LEN 16 with the NUL): most longer than 8.
var kernelComms = []string{"swapper/0", "swapper/1", "kworker/0:1", "kworker/u16:3", "bash", "sshd",
	"lttng-sessiond", "lttng-consumerd", "rcu_sched", "ksoftirqd/0", "Xorg", "gnome-shell", "firefox",
	"Web Content", "systemd-journal", "pulseaudio", "dbus-daemon", "gmain", "migration/0",
	"irq/123-iwlwifi", "chrome", "code", "node", "java", "python3", "ps"}

// kernelRecords returns n records of kernelSpec on CPU cpu (seeded by
// seed): a statedump of the threads first (one lttng_statedump_process_state
// each), then a mix shaped like a busy host's: read, ioctl and futex system
// calls (entry and exit), context switches, wake-ups (sched_waking and
// sched_wakeup), run time statistics, high-resolution timers, kmalloc and
// kfree, idle states and RCU; 100 to 3000 ns apart, with now and then an
// idle gap longer than the compact header's 27 bits of time.
func kernelRecords(seed uint64, cpu, n int) []ctfgen.Record {
	r := rand.New(rand.NewPCG(seed, uint64(cpu)))
	type thread struct {
		tid  int
		comm string
	}
	var threads []thread
	for i := 0; i < 200; i++ {
		threads = append(threads, thread{1000 + i*7, kernelComms[r.IntN(len(kernelComms))]})
	}
	recs := make([]ctfgen.Record, 0, n+1)
	ts := uint64(1_000_000) + uint64(cpu)*333
	add := func(class int, v ...any) {
		ts += 100 + r.Uint64N(2900)
		if r.IntN(4000) == 0 {
			ts += 200_000_000 // an idle gap of 200 ms: the next header is extended
		}
		recs = append(recs, ctfgen.Record{CPU: cpu, Class: class, TS: ts, Values: v})
	}
	for _, th := range threads {
		if len(recs) >= n {
			return recs
		}
		add(18, th.tid, th.tid, th.tid, th.tid, 1, 1, th.comm, 0, 0, 0, 2, 0, int64(4026531836), cpu)
	}
	cur := threads[0]
	addr := func() uint64 { return 0xffff_8800_0000_0000 + r.Uint64N(1<<32)&^7 }
	for len(recs) < n {
		switch k := r.IntN(100); {
		case k < 20:
			add(0, r.IntN(64), 4096)
			add(1, r.IntN(4097)-1, 0x7ffc_0000_0000+r.Uint64N(1<<30))
		case k < 32:
			add(2, r.IntN(64), 0x5401+r.IntN(16), 0x7ffc_0000_0000+r.Uint64N(1<<30))
			add(3, 0, 0x7ffc_0000_0000+r.Uint64N(1<<30))
		case k < 44:
			u := 0x7f00_0000_0000 + r.Uint64N(1<<32)
			add(4, u, 128+r.IntN(2), 1, 0, 0, 0)
			add(5, 0, u, 0)
		case k < 56:
			next := threads[r.IntN(len(threads))]
			add(6, cur.comm, cur.tid, 120, r.IntN(2), next.comm, next.tid, 120)
			cur = next
		case k < 66:
			w := threads[r.IntN(len(threads))]
			add(7, w.comm, w.tid, 120, cpu)
			add(8, w.comm, w.tid, 120, cpu)
		case k < 71:
			add(9, cur.comm, cur.tid, r.Uint64N(1_000_000), 1_000_000_000+r.Uint64N(1<<40))
		case k < 75:
			add(10, addr(), 0xffff_ffff_8110_0000+r.Uint64N(1<<20), int64(ts)+4_000_000, int64(ts)+4_000_000)
		case k < 78:
			add(11, addr())
		case k < 84:
			h := addr()
			add(12, h, int64(ts), 0xffff_ffff_8110_0000+r.Uint64N(1<<20))
			add(13, h)
		case k < 90:
			add(14, 0xffff_ffff_8120_0000+r.Uint64N(1<<20), addr())
		case k < 94:
			b := 16 << r.IntN(8)
			add(15, 0xffff_ffff_8120_0000+r.Uint64N(1<<20), addr(), b-r.IntN(8), b, 0x14000c0)
		case k < 97:
			add(16, r.IntN(4), cpu)
		default:
			add(17, []string{"Start context switch", "End context switch", "Start scheduler-tick", "End scheduler-tick"}[r.IntN(4)])
		}
	}
	return recs[:n]
}

// kernelTrace writes kernelSpec's trace of n records on CPU 0 to a
// temporary folder and returns it with its data stream decoded from memory.
func kernelTrace(tb testing.TB, n int) (*Trace, *Stream) {
	tb.Helper()
	dir := tb.TempDir()
	s := kernelSpec()
	if err := ctfgen.WriteRecords(dir, s, kernelRecords(1, 0, n)); err != nil {
		tb.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "channel0_0"))
	if err != nil {
		tb.Fatal(err)
	}
	m, err := ctf2meta.ParseTSDL([]byte(s.Metadata()))
	if err != nil {
		tb.Fatal(err)
	}
	tr, err := NewTrace(m)
	if err != nil {
		tb.Fatal(err)
	}
	return tr, tr.AddStream("channel0_0", data)
}

// BenchmarkStreamKernel: the decode loop alone on LTTng kernel-shaped
// records (kernelSpec, kernelRecords: process names in static text arrays
// of 16 bytes, system calls' 64-bit integers, the compact and extended
// headers), one stream of 1 M records, every field decoded.
func BenchmarkStreamKernel(b *testing.B) {
	_, s := kernelTrace(b, 1_000_000)
	loopStream(b, s, false)
}

// The kernel-shaped trace (kernelSpec, kernelRecords over 2 CPUs in
// packets of 4 KiB) decodes to its records: each event's class, time
// and payload values (texts up to their first null byte), in time order;
// with BABELTRACE2 set, babeltrace2 prints what Pretty prints.
func TestKernelRecords(t *testing.T) {
	dir := t.TempDir()
	s := kernelSpec()
	s.PacketSize = 4096
	var recs []ctfgen.Record
	for cpu := 0; cpu < 2; cpu++ {
		recs = append(recs, kernelRecords(7, cpu, 6000)...)
	}
	if err := ctfgen.WriteRecords(dir, s, recs); err != nil {
		t.Fatal(err)
	}
	tr, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	extended := 0 // records whose header is extended
	for c, st := range tr.Streams {
		if st.Name != "channel0_"+itoa(c) {
			t.Fatalf("stream %d: %s", c, st.Name)
		}
		i := 0
		for ; st.Next(); i++ {
			e, r := st.Event(), recs[c*6000+i]
			if e.Class.Name != s.Classes[r.Class].Name || e.Class.ID != uint64(s.IDs[r.Class]) || e.NS() != 1499450703143835608+int64(r.TS) {
				t.Fatalf("%s: record %d: %s (id %d) at %d, want %s at %d", st.Name, i, e.Class.Name, e.Class.ID, e.NS(), s.Classes[r.Class].Name, r.TS)
			}
			if e.Fields[e.Header].End-e.Header > 5 { // (the extended option: an id and a timestamp)
				extended++
			}
			for j, f := range s.Classes[r.Class].Fields {
				x := int(e.Payload) + 1 + j
				var got, want any
				switch v := r.Values[j]; f.Kind {
				case ctfgen.Chars, ctfgen.Str:
					got, want = string(e.Bytes(x)), v
				default:
					got = e.Fields[x].V
					switch v := v.(type) {
					case int:
						want = uint64(v)
						if f.Kind == ctfgen.U32 {
							want = uint64(uint32(v))
						}
					case int64:
						want = uint64(v)
					default:
						want = v
					}
				}
				if got != want {
					t.Fatalf("%s: record %d (%s): %s %v, want %v", st.Name, i, e.Class.Name, f.Name, got, want)
				}
			}
		}
		if st.Err() != nil || i != 6000 {
			t.Fatalf("%s: %d records: %v", st.Name, i, st.Err())
		}
	}
	if extended < 12000/2 || extended == 12000 {
		t.Fatalf("%d extended headers of 12000: want most, not all", extended)
	}
	lines, err := prettyTrace(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 12000 {
		t.Fatalf("%d events", len(lines))
	}
	bt, ok, ran := babeltrace2Text(t, dir)
	if !ran {
		return
	}
	if !ok || len(bt) != len(lines) {
		t.Fatalf("babeltrace2: ok %v, %d lines", ok, len(bt))
	}
	for i := range bt {
		if bt[i] != lines[i] {
			t.Fatalf("event %d:\n got  %s\n want %s", i, lines[i], bt[i])
		}
	}
	t.Logf("babeltrace2 prints the same %d lines (%d extended headers)", len(bt), extended)
}

// kernelStream returns the data stream of CPU 0 of kernelSpec's trace of
// n records (kernelRecords, seed) in packets of pktSize bytes, and the
// trace (its metadata) to decode it with.
func kernelStream(tb testing.TB, seed uint64, n, pktSize int) (*Trace, []byte) {
	tb.Helper()
	dir := tb.TempDir()
	s := kernelSpec()
	s.PacketSize = pktSize
	if err := ctfgen.WriteRecords(dir, s, kernelRecords(seed, 0, n)); err != nil {
		tb.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "channel0_0"))
	if err != nil {
		tb.Fatal(err)
	}
	return traceFromTSDL(tb, s.Metadata()), data
}

// Next's fast path builds what the field walk builds on the kernel-shaped
// stream (process names in place: fxTxt; the compact and extended
// headers; many integers at a template's head), intact, damaged and with
// packets' contents cut short; most records come from Next's body.
func TestNextFastKernelMatchesWalk(t *testing.T) {
	tr, data := kernelStream(t, 3, 4000, 4096)
	hot := 0
	for _, ec := range tr.dscs[0].events {
		for k := range ec.nx {
			if x := &ec.nx[k]; x.hot && slices.ContainsFunc(x.hops, func(o fxOp) bool { return o.code == fxTxt }) {
				hot++
			}
		}
	}
	if hot != 10 { // sched_switch, sched_waking, sched_wakeup, sched_stat_runtime, lttng_statedump_process_state, after each option
		t.Fatalf("%d hot templates with process names in place, want 10", hot)
	}
	// sched_switch's integers are at its template's head (Next writes
	// them without its loop), its two process names after them
	for _, ec := range tr.dscs[0].events {
		if ec.Name != "sched_switch" {
			continue
		}
		for k := range ec.nx {
			x := &ec.nx[k]
			rest := x.hops[len(x.hops)-3:]
			if !x.hot || x.nHead != 5 || rest[0].code != fxTxt || rest[1].code != fxTxt || x.opInts != unsafe.Pointer(&rest[0]) {
				t.Fatalf("sched_switch after option %d: hot %v, %d integers at its head, then ops %d %d", k, x.hot, x.nHead, rest[0].code, rest[1].code)
			}
		}
	}
	st := &nextFastStats{classes: map[*EventClass]bool{}}
	compareNextFast(t, tr, "kernel", data, st)
	if st.events != 4000 || st.fast < st.templated*9/10 || st.flat < st.events*9/10 {
		t.Fatalf("%d records, %d of %d from the fast path, %d from Next's body", st.events, st.fast, st.templated, st.flat)
	}
	checkModes(t, tr, data)
	r := rand.New(rand.NewPCG(3, 5))
	for k := 0; k < 60; k++ {
		compareNextFast(t, tr, fmt.Sprintf("kernel-damaged-%d", k), damaged(r, data, k), &nextFastStats{classes: map[*EventClass]bool{}})
	}
	// the content of the first packets cut short by 1 to 80 bytes
	for p := 0; p < 3; p++ {
		off := p * 4096
		content := binary.LittleEndian.Uint64(data[off+48:])
		for k := uint64(1); k <= 80; k++ {
			d := append([]byte(nil), data...)
			binary.LittleEndian.PutUint64(d[off+48:], content-k*8)
			compareNextFast(t, tr, fmt.Sprintf("kernel-cut-%d-%d", p, k), d, &nextFastStats{classes: map[*EventClass]bool{}})
		}
	}
}

// txtLen (8 to 16 bytes) and txtLong (8 to 64) find a text's first null
// byte as IndexByte does, or its length when it has none (a BLOB: its
// length), whatever the bytes before it (any but 0, among them those
// whose high bit is set and 1) and after it (among them 1 and 0x80, which
// a borrow flags): every position of the first null byte, at random and
// with the bytes that flag falsely.
func TestTxtLen(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 64)
	for n := 8; n <= 64; n++ {
		for z := 0; z <= n; z++ {
			for k := 0; k < 40; k++ {
				for i := range b {
					switch {
					case i < z:
						b[i] = []byte{1, 0x7f, 0x80, 0x81, 0xff, byte(1 + r.IntN(255))}[r.IntN(6)]
					case i == z:
						b[i] = 0
					default:
						b[i] = []byte{0, 1, 0x80, 0xff, byte(r.IntN(256))}[r.IntN(5)]
					}
				}
				p := unsafe.Pointer(&b[0])
				want := uint64(n)
				if z < n {
					want = uint64(z)
				}
				if got := txtLong(p, uint64(n), 0x8080808080808080); got != want {
					t.Fatalf("txtLong %d bytes % x: %d, want %d", n, b[:n], got, want)
				}
				if got := txtLong(p, uint64(n), 0); got != uint64(n) {
					t.Fatalf("txtLong of a BLOB of %d bytes: %d", n, got)
				}
				if n > 16 {
					continue
				}
				if got := txtLen(p, uint64(n), 0x8080808080808080); got != want {
					t.Fatalf("txtLen %d bytes % x: %d, want %d", n, b[:n], got, want)
				}
				if got := txtLen(p, uint64(n), 0); got != uint64(n) {
					t.Fatalf("txtLen of a BLOB of %d bytes: %d", n, got)
				}
			}
		}
	}
}

// A static-length string after an empty array aligned past the content's
// end (the position lies beyond the end when the string is read) is cut:
// an error, not a read past the data (a slice of the data beyond its
// capacity panicked), in the walk and in Next.
func TestStaticStringPastEnd(t *testing.T) {
	tr := traceFromTSDL(t, nxShapesTSDL(0, 0, false)+`event { name = "past"; id = 0; fields := struct {
	uint8_t n; integer { size = 16; align = 64; signed = false; } q[n];
	integer { size = 8; align = 8; signed = false; encoding = UTF8; } s[12]; }; };
`)
	// the compact header (id 0, time 5), vtid, n = 0: 9 bytes, the array
	// aligned to byte 16
	data := []byte{5 << 5, 0, 0, 0, 7, 0, 0, 0, 0}
	for _, g := range []bool{true, false} {
		s := tr.AddStream("past", data[:9:9])
		s.generic = g
		if s.Next() || s.Err() == nil || !strings.Contains(s.Err().Error(), `string field "s" overruns the packet content`) {
			t.Fatalf("generic %v: %v", g, s.Err())
		}
	}
	compareNextFast(t, tr, "past", data[:9:9], &nextFastStats{classes: map[*EventClass]bool{}})
}

// Each segment's need (the bytes Next and nxRun may read from its start
// byte on, which one check covers) holds every byte its ops read: 8 from
// each integer's byte (9 when the start may lie inside a byte), a string
// in place's n bytes; on the shapes' classes and the kernel's.
func TestNextSegmentNeeds(t *testing.T) {
	var trs []*Trace
	for seed := uint64(0); seed < 12; seed++ {
		trs = append(trs, traceFromTSDL(t, nxShapesTSDL(seed, 14, false)+nxTextShapesTSDL(seed)))
	}
	ktr, _ := kernelStream(t, 0, 10, 0)
	trs = append(trs, ktr)
	texts := 0
	for _, tr := range trs {
		for _, ec := range tr.dscs[0].events {
			for k := range ec.nx {
				x := &ec.nx[k]
				for _, g := range x.segs {
					for _, v := range g.vals {
						read := uint64(v.off)/8 + 8
						switch {
						case v.n > 0:
							read = uint64(v.off)/8 + uint64(v.n)
							texts++
						case !g.bytewise:
							read++
						}
						if g.need < read || v.n > 0 && uint64(v.off)+8*uint64(v.n) > g.bits {
							t.Fatalf("%s: segment of %d bits, need %d: field %d reads %d bytes (n %d)", ec.Name, g.bits, g.need, v.idx, read, v.n)
						}
					}
				}
			}
		}
	}
	if texts < 50 {
		t.Fatalf("%d strings in place", texts)
	}
}

// A null-terminated string of more than 8 bytes (rcu_utilization's) whose
// packet's content ends within its first 8 bytes, the data going on
// without a null byte there: Next finds no null byte within the content
// (nulFar) and the record is cut, as the walk cuts it.
func TestNextLongStringCut(t *testing.T) {
	tr, data := kernelStream(t, 5, 3000, 4096)
	walk := tr.AddStream("w", data)
	walk.generic = true
	var at []uint64 // the first byte of rcu_utilization's strings
	for walk.Next() && len(at) < 6 {
		if e := walk.Event(); e.Class.Name == "rcu_utilization" && len(e.Bytes(int(e.Payload)+1)) >= 9 {
			at = append(at, e.Fields[e.Payload+1].V)
		}
	}
	tr.Streams = tr.Streams[:0]
	if len(at) < 6 {
		t.Fatalf("%d long strings", len(at))
	}
	st := &nextFastStats{classes: map[*EventClass]bool{}}
	for _, i := range at {
		p := i / 4096 * 4096
		for k := uint64(1); k <= 9; k++ {
			d := append([]byte(nil), data...)
			binary.LittleEndian.PutUint64(d[p+48:], (i+k-p)*8)
			compareNextFast(t, tr, fmt.Sprintf("kernel-string-%d-cut-%d", i, k), d, st)
		}
	}
	if st.flat < st.events*3/4 {
		t.Fatalf("%d of %d records from Next's body", st.flat, st.events)
	}
}

// BenchmarkReaderTCKernel: Trace Compass's many-threads (lttng-modules
// 2.8, 240 644 records over 8 streams: sched_switch, sched_process_fork,
// system calls …), merged by time, every field decoded; skipped without
// CTF_TC_TRACES (Trace Compass's ctf/src/main/resources).
func BenchmarkReaderTCKernel(b *testing.B) {
	root := os.Getenv("CTF_TC_TRACES")
	if root == "" {
		b.Skip("CTF_TC_TRACES not set")
	}
	tr, err := OpenDir(filepath.Join(root, "many-threads"))
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	loopReader(b, tr.NewReader)
}
