package atf

import (
	"encoding/binary"
	"testing"
)

// fieldAt reads a little-endian field of size bytes at off.
func fieldAt(b []byte, off, size int) uint64 {
	switch size {
	case 1:
		return uint64(b[off])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b[off:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b[off:]))
	}
	return binary.LittleEndian.Uint64(b[off:])
}

type fieldRow struct {
	name      string
	off, size int
	want      uint64
}

func checkLayout(t *testing.T, what string, b []byte, size int, magic string, rows []fieldRow) {
	t.Helper()
	if len(b) != size {
		t.Fatalf("%s: %d bytes, want %d", what, len(b), size)
	}
	if magic != "" && string(b[:4]) != magic {
		t.Errorf("%s: magic %q", what, b[:4])
	}
	covered := make([]bool, size)
	if magic != "" {
		covered[0], covered[1], covered[2], covered[3] = true, true, true, true
	}
	for _, r := range rows {
		if got := fieldAt(b, r.off, r.size); got != r.want {
			t.Errorf("%s.%s at %d: %#x, want %#x", what, r.name, r.off, got, r.want)
		}
		for i := r.off; i < r.off+r.size; i++ {
			covered[i] = true
		}
	}
	for i, c := range covered {
		if !c && b[i] != 0 {
			t.Errorf("%s: reserved byte %d is %#x", what, i, b[i])
		}
	}
}

// TestLayoutTables checks every structure against the offset tables of the
// reference notes (§1.1–§1.7), with a distinct value in every field.
func TestLayoutTables(t *testing.T) {
	checkLayout(t, "IndexHeader", AppendIndexHeader(nil, IndexHeader{
		Endian: 1, Version: 1, Arch: 2, OS: 3, Flags: 0x11, ThreadID: 0x22, ClockType: 3, EventSize: 32,
		EventCount: 0x33, EventsOffset: 0x44, FooterOffset: 0x55, TimeStartNs: 0x66, TimeEndNs: 0x77,
	}), 64, "ATI2", []fieldRow{
		{"endian", 4, 1, 1}, {"version", 5, 1, 1}, {"arch", 6, 1, 2}, {"os", 7, 1, 3}, {"flags", 8, 4, 0x11},
		{"thread_id", 12, 4, 0x22}, {"clock_type", 16, 1, 3}, {"event_size", 24, 4, 32}, {"event_count", 28, 4, 0x33},
		{"events_offset", 32, 8, 0x44}, {"footer_offset", 40, 8, 0x55}, {"time_start_ns", 48, 8, 0x66}, {"time_end_ns", 56, 8, 0x77},
	})
	checkLayout(t, "IndexEvent", AppendIndexEvent(nil, IndexEvent{
		Timestamp: 0x1111, FunctionID: 0x2222, ThreadID: 0x33, Kind: 3, CallDepth: 0x44, DetailSeq: 0x55,
	}), 32, "", []fieldRow{
		{"timestamp_ns", 0, 8, 0x1111}, {"function_id", 8, 8, 0x2222}, {"thread_id", 16, 4, 0x33},
		{"event_kind", 20, 4, 3}, {"call_depth", 24, 4, 0x44}, {"detail_seq", 28, 4, 0x55},
	})
	checkLayout(t, "IndexFooter", AppendIndexFooter(nil, IndexFooter{
		Checksum: 0x12, EventCount: 0x23, TimeStartNs: 0x34, TimeEndNs: 0x45, BytesWritten: 0x56,
	}), 64, "2ITA", []fieldRow{
		{"checksum", 4, 4, 0x12}, {"event_count", 8, 8, 0x23}, {"time_start_ns", 16, 8, 0x34},
		{"time_end_ns", 24, 8, 0x45}, {"bytes_written", 32, 8, 0x56},
	})
	checkLayout(t, "DetailHeader", AppendDetailHeader(nil, DetailHeader{
		Endian: 1, Version: 1, Arch: 1, OS: 4, Flags: 0x9, ThreadID: 0x21, EventsOffset: 0x32,
		EventCount: 0x43, BytesLength: 0x54, IndexSeqStart: 0x65, IndexSeqEnd: 0x76,
	}), 64, "ATD2", []fieldRow{
		{"endian", 4, 1, 1}, {"version", 5, 1, 1}, {"arch", 6, 1, 1}, {"os", 7, 1, 4}, {"flags", 8, 4, 0x9},
		{"thread_id", 12, 4, 0x21}, {"events_offset", 20, 8, 0x32}, {"event_count", 28, 8, 0x43},
		{"bytes_length", 36, 8, 0x54}, {"index_seq_start", 44, 8, 0x65}, {"index_seq_end", 52, 8, 0x76},
	})
	checkLayout(t, "DetailEventHeader", AppendDetailEventHeader(nil, 4, 0x7, 0x18, 0x29, 0x3a, 100), 24, "", []fieldRow{
		{"total_length", 0, 4, 124}, {"event_type", 4, 2, 4}, {"flags", 6, 2, 0x7}, {"index_seq", 8, 4, 0x18},
		{"thread_id", 12, 4, 0x29}, {"timestamp", 16, 8, 0x3a},
	})
	checkLayout(t, "DetailFooter", AppendDetailFooter(nil, DetailFooter{
		Checksum: 0x13, EventCount: 0x24, BytesLength: 0x35, TimeStartNs: 0x46, TimeEndNs: 0x57,
	}), 64, "2DTA", []fieldRow{
		{"checksum", 4, 4, 0x13}, {"event_count", 8, 8, 0x24}, {"bytes_length", 16, 8, 0x35},
		{"time_start_ns", 24, 8, 0x46}, {"time_end_ns", 32, 8, 0x57},
	})
	p := DetailFunctionPayload{FunctionID: 0x100, XRegs: [8]uint64{1, 2, 3, 4, 5, 6, 7, 8}, LR: 0x200, FP: 0x300, SP: 0x400, Reserved: 0}
	rows := []fieldRow{{"function_id", 0, 8, 0x100}, {"lr", 72, 8, 0x200}, {"fp", 80, 8, 0x300}, {"sp", 88, 8, 0x400}, {"stack_size", 96, 2, 3}}
	for i := range 8 {
		rows = append(rows, fieldRow{"x_regs", 8 + 8*i, 8, uint64(i + 1)})
	}
	b := AppendDetailFunctionPayload(nil, &p, []byte{0, 0, 0})
	checkLayout(t, "DetailFunctionPayload", b, 103, "", rows)
	// Round trips through the decoders.
	if h := parseIndexHeader(AppendIndexHeader(nil, IndexHeader{ThreadID: 5, TimeEndNs: 9})); h.ThreadID != 5 || h.TimeEndNs != 9 {
		t.Error("index header round trip")
	}
	if h := parseDetailHeader(AppendDetailHeader(nil, DetailHeader{IndexSeqEnd: 5, BytesLength: 9})); h.IndexSeqEnd != 5 || h.BytesLength != 9 {
		t.Error("detail header round trip")
	}
	if q, stack, ok := DecodeDetailFunctionPayload(b); !ok || q.SP != 0x400 || q.StackSize != 3 || len(stack) != 3 {
		t.Error("payload round trip")
	}
	if _, _, ok := DecodeDetailFunctionPayload(b[:102]); ok {
		t.Error("short payload decoded")
	}
}
