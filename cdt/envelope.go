package cdt

import (
	"github.com/tinylib/msgp/msgp"
)

// Row is one TickRecord of a TICK chunk as raw msgpack. Raw aliases the decoded
// chunk payload (zero-copy); see the method that returned it for how long it
// stays valid.
type Row struct {
	Tick int64  // the row's tick_index
	Raw  []byte // the complete TickRecord map
}

// payloadErr reports a msgpack problem inside the payload of the chunk at off.
func payloadErr(off int64, what string, payload, rest []byte, err error) error {
	return newErr(off, ErrCorrupt, "%s: payload byte %d: %v", what, len(payload)-len(rest), err)
}

// readInt reads any msgpack integer as int64 (Python int fields accept every
// int encoding; floats and bools are rejected).
func readInt(b []byte) (int64, []byte, error) { return msgp.ReadInt64Bytes(b) }

// parseMeta extracts the container-level fields of a TraceMeta payload.
func parseMeta(off int64, payload []byte) (Meta, error) {
	var m Meta
	n, rest, err := msgp.ReadMapHeaderBytes(payload)
	if err != nil {
		return m, payloadErr(off, "trace meta", payload, rest, err)
	}
	var haveSchema, haveFormat bool
	for i := uint32(0); i < n; i++ {
		var key []byte
		key, rest, err = msgp.ReadMapKeyZC(rest)
		if err != nil {
			return m, payloadErr(off, "trace meta", payload, rest, err)
		}
		switch string(key) {
		case "trace_format_version":
			m.FormatVersion, rest, err = readInt(rest)
			haveFormat = true
		case "trace_schema_version":
			m.SchemaVersion, rest, err = readInt(rest)
			haveSchema = true
		case "created_utc":
			m.CreatedUTC, rest, err = msgp.ReadStringBytes(rest)
		case "channels":
			var cnt uint32
			cnt, rest, err = msgp.ReadArrayHeaderBytes(rest)
			if err == nil && int64(cnt) > int64(len(rest)) {
				err = msgp.ErrShortBytes
			}
			if err == nil {
				m.Channels = make([]string, 0, cnt)
				for j := uint32(0); j < cnt && err == nil; j++ {
					var s string
					s, rest, err = msgp.ReadStringBytes(rest)
					m.Channels = append(m.Channels, s)
				}
			}
		default:
			rest, err = msgp.Skip(rest)
		}
		if err != nil {
			return m, payloadErr(off, "trace meta field "+string(key), payload, rest, err)
		}
	}
	if !haveSchema || !haveFormat {
		return m, newErr(off, ErrCorrupt, "trace meta lacks trace_format_version or trace_schema_version")
	}
	if len(rest) != 0 {
		return m, newErr(off, ErrCorrupt, "trace meta: %d bytes after the payload", len(rest))
	}
	return m, nil
}

// parseFooter decodes a TraceFooter payload.
func parseFooter(off int64, payload []byte, lim Limits) (Footer, error) {
	var f Footer
	n, rest, err := msgp.ReadMapHeaderBytes(payload)
	if err != nil {
		return f, payloadErr(off, "trace footer", payload, rest, err)
	}
	var seen uint8
	for i := uint32(0); i < n; i++ {
		var key []byte
		key, rest, err = msgp.ReadMapKeyZC(rest)
		if err != nil {
			return f, payloadErr(off, "trace footer", payload, rest, err)
		}
		switch string(key) {
		case "trace_format_version":
			f.FormatVersion, rest, err = readInt(rest)
		case "tick_blocks":
			seen |= 1
			rest, err = parseIndex(off, payload, rest, &f, lim)
		case "tick_count":
			seen |= 2
			f.TickCount, rest, err = readInt(rest)
		case "first_tick":
			seen |= 4
			f.FirstTick, rest, err = readInt(rest)
		case "last_tick":
			seen |= 8
			f.LastTick, rest, err = readInt(rest)
		case "channel_counts":
			var cnt uint32
			cnt, rest, err = msgp.ReadMapHeaderBytes(rest)
			if err == nil && int64(cnt) > int64(len(rest))/2 {
				err = msgp.ErrShortBytes
			}
			f.ChannelCounts = f.ChannelCounts[:0]
			for j := uint32(0); j < cnt && err == nil; j++ {
				var c ChannelCount
				c.Channel, rest, err = msgp.ReadStringBytes(rest)
				if err == nil {
					c.Count, rest, err = readInt(rest)
				}
				f.ChannelCounts = append(f.ChannelCounts, c)
			}
		default:
			rest, err = msgp.Skip(rest)
		}
		if err != nil {
			if fe, ok := err.(*FormatError); ok {
				return f, fe
			}
			return f, payloadErr(off, "trace footer field "+string(key), payload, rest, err)
		}
	}
	if seen != 15 {
		return f, newErr(off, ErrCorrupt, "trace footer lacks a required field (tick_blocks, tick_count, first_tick, last_tick)")
	}
	if len(rest) != 0 {
		return f, newErr(off, ErrCorrupt, "trace footer: %d bytes after the payload", len(rest))
	}
	return f, nil
}

// minIndexEntrySize is the smallest msgpack TickBlockIndexEntry (a fixmap with
// six fixstr keys and fixint values); used to bound the declared entry count.
const minIndexEntrySize = 1 + 6*2

func parseIndex(off int64, payload, rest []byte, f *Footer, lim Limits) ([]byte, error) {
	cnt, rest, err := msgp.ReadArrayHeaderBytes(rest)
	if err != nil {
		return rest, err
	}
	if int64(cnt) > lim.MaxBlocks {
		return rest, newErr(off, ErrLimit, "footer block index has %d entries, limit %d", cnt, lim.MaxBlocks)
	}
	if int64(cnt) > int64(len(rest))/minIndexEntrySize {
		return rest, msgp.ErrShortBytes
	}
	f.Blocks = make([]BlockIndexEntry, cnt)
	for j := range f.Blocks {
		e := &f.Blocks[j]
		var fields uint32
		fields, rest, err = msgp.ReadMapHeaderBytes(rest)
		if err != nil {
			return rest, err
		}
		var seen uint8
		for k := uint32(0); k < fields; k++ {
			var key []byte
			key, rest, err = msgp.ReadMapKeyZC(rest)
			if err != nil {
				return rest, err
			}
			switch string(key) {
			case "start_tick":
				seen |= 1
				e.StartTick, rest, err = readInt(rest)
			case "end_tick":
				seen |= 2
				e.EndTick, rest, err = readInt(rest)
			case "file_offset":
				seen |= 4
				e.FileOffset, rest, err = readInt(rest)
			case "compressed_len":
				seen |= 8
				e.CompressedLen, rest, err = readInt(rest)
			case "uncompressed_len":
				seen |= 16
				e.UncompressedLen, rest, err = readInt(rest)
			case "checksum":
				seen |= 32
				e.Checksum, rest, err = msgp.ReadUint64Bytes(rest)
			default:
				rest, err = msgp.Skip(rest)
			}
			if err != nil {
				return rest, err
			}
		}
		if seen != 63 {
			return rest, newErr(off, ErrCorrupt, "footer block index entry %d lacks a required field", j)
		}
	}
	return rest, nil
}

// minRowSize is the smallest possible TickRecord (a map holding tick_index).
const minRowSize = 1 + 11 + 1

// parseBlockLazy reads a TickBlock payload without splitting its rows: it
// returns the row count and the bytes of the ticks array's elements (when
// ticks is the map's last key, as writers put it, the rows are not walked at
// all; their decoder finds their ends).
func parseBlockLazy(off int64, payload []byte, lim Limits) (start, end int64, rows int, ticks []byte, err error) {
	n, rest, err := msgp.ReadMapHeaderBytes(payload)
	if err != nil {
		return 0, 0, 0, nil, payloadErr(off, "tick block", payload, rest, err)
	}
	var seen uint8
	for i := uint32(0); i < n; i++ {
		var key []byte
		key, rest, err = msgp.ReadMapKeyZC(rest)
		if err != nil {
			return 0, 0, 0, nil, payloadErr(off, "tick block", payload, rest, err)
		}
		switch string(key) {
		case "start_tick":
			seen |= 1
			start, rest, err = readInt(rest)
		case "end_tick":
			seen |= 2
			end, rest, err = readInt(rest)
		case "ticks":
			seen |= 4
			var cnt uint32
			cnt, rest, err = msgp.ReadArrayHeaderBytes(rest)
			if err != nil {
				break
			}
			if int64(cnt) > lim.MaxRowsPerBlock {
				return 0, 0, 0, nil, newErr(off, ErrLimit, "tick block has %d rows, limit %d", cnt, lim.MaxRowsPerBlock)
			}
			if int64(cnt) > int64(len(rest))/minRowSize {
				err = msgp.ErrShortBytes
				break
			}
			rows = int(cnt)
			if i == n-1 {
				ticks, rest = rest, nil
				break
			}
			k := 0
			for range cnt {
				m := skipValue(rest[k:])
				if m < 0 {
					err = msgp.ErrShortBytes
					break
				}
				k += m
			}
			ticks, rest = rest[:k], rest[k:]
		default:
			rest, err = msgp.Skip(rest)
		}
		if err != nil {
			return 0, 0, 0, nil, payloadErr(off, "tick block field "+string(key), payload, rest, err)
		}
	}
	if seen != 7 {
		return 0, 0, 0, nil, newErr(off, ErrCorrupt, "tick block lacks start_tick, end_tick or ticks")
	}
	if len(rest) != 0 { // only when ticks is not the last key: then it owns the rest
		return 0, 0, 0, nil, newErr(off, ErrCorrupt, "tick block: %d bytes after the payload", len(rest))
	}
	return start, end, rows, ticks, nil
}

// parseBlock splits a TickBlock payload into rows, appending to rows[:0]:
// parseBlockLazy finds the ticks array, then each row is split off it.
func parseBlock(off int64, payload []byte, rows []Row, lim Limits) (start, end int64, out []Row, err error) {
	out = rows[:0]
	start, end, cnt, rest, err := parseBlockLazy(off, payload, lim)
	if err != nil {
		return 0, 0, out, err
	}
	if cap(out) < cnt {
		out = make([]Row, 0, cnt)
	}
	for range cnt {
		var r Row
		r, rest, err = splitRow(rest)
		if err != nil {
			return 0, 0, out, payloadErr(off, "tick row", payload, rest, err)
		}
		out = append(out, r)
	}
	if len(rest) != 0 {
		return 0, 0, out, newErr(off, ErrCorrupt, "tick block: %d bytes after the payload", len(rest))
	}
	return start, end, out, nil
}

// splitRow reads one TickRecord map from b and returns it with its tick_index.
func splitRow(b []byte) (Row, []byte, error) {
	n, rest, err := msgp.ReadMapHeaderBytes(b)
	if err != nil {
		return Row{}, b, err
	}
	var r Row
	found := false
	for i := uint32(0); i < n; i++ {
		var key []byte
		key, rest, err = msgp.ReadMapKeyZC(rest)
		if err != nil {
			return Row{}, rest, err
		}
		if !found && string(key) == "tick_index" {
			r.Tick, rest, err = readInt(rest)
			found = true
		} else if n := skipValue(rest); n < 0 {
			err = msgp.ErrShortBytes
		} else {
			rest = rest[n:]
		}
		if err != nil {
			return Row{}, rest, err
		}
	}
	if !found {
		return Row{}, rest, errMissingTickIndex
	}
	r.Raw = b[:len(b)-len(rest)]
	return r, rest, nil
}

// leadingTick reads a row map's keys up to tick_index and returns its value
// without walking the rest of the row (Writer.Append trusts its encoder).
func leadingTick(b []byte) (int64, error) {
	n, rest, err := msgp.ReadMapHeaderBytes(b)
	if err != nil {
		return 0, newErr(-1, ErrCorrupt, "tick row: %v", err)
	}
	for range n {
		var key []byte
		if key, rest, err = msgp.ReadMapKeyZC(rest); err != nil {
			return 0, newErr(-1, ErrCorrupt, "tick row: %v", err)
		}
		if string(key) == "tick_index" {
			t, _, err := readInt(rest)
			if err != nil {
				return 0, newErr(-1, ErrCorrupt, "tick row: tick_index: %v", err)
			}
			return t, nil
		}
		k := skipValue(rest)
		if k < 0 {
			return 0, newErr(-1, ErrCorrupt, "tick row: truncated value")
		}
		rest = rest[k:]
	}
	return 0, newErr(-1, ErrCorrupt, "tick row: %v", errMissingTickIndex)
}

type missingTickIndex struct{}

func (missingTickIndex) Error() string { return "row has no tick_index" }

var errMissingTickIndex error = missingTickIndex{}

// RowTick returns the tick_index of a raw TickRecord and checks that raw is
// exactly one msgpack map.
func RowTick(raw []byte) (int64, error) {
	r, rest, err := splitRow(raw)
	if err != nil {
		return 0, newErr(-1, ErrCorrupt, "tick row: %v", err)
	}
	if len(rest) != 0 {
		return 0, newErr(-1, ErrCorrupt, "tick row: %d trailing bytes", len(rest))
	}
	return r.Tick, nil
}

// appendFooter encodes f as msgspec encodes TraceFooter: a map in declaration
// order with every field, unsigned forms for non-negative ints.
func appendFooter(b []byte, f *Footer) []byte {
	b = msgp.AppendMapHeader(b, 6)
	b = msgp.AppendString(b, "trace_format_version")
	b = appendInt(b, f.FormatVersion)
	b = msgp.AppendString(b, "tick_blocks")
	b = msgp.AppendArrayHeader(b, uint32(len(f.Blocks)))
	for i := range f.Blocks {
		e := &f.Blocks[i]
		b = msgp.AppendMapHeader(b, 6)
		b = msgp.AppendString(b, "start_tick")
		b = appendInt(b, e.StartTick)
		b = msgp.AppendString(b, "end_tick")
		b = appendInt(b, e.EndTick)
		b = msgp.AppendString(b, "file_offset")
		b = appendInt(b, e.FileOffset)
		b = msgp.AppendString(b, "compressed_len")
		b = appendInt(b, e.CompressedLen)
		b = msgp.AppendString(b, "uncompressed_len")
		b = appendInt(b, e.UncompressedLen)
		b = msgp.AppendString(b, "checksum")
		b = msgp.AppendUint64(b, e.Checksum)
	}
	b = msgp.AppendString(b, "tick_count")
	b = appendInt(b, f.TickCount)
	b = msgp.AppendString(b, "first_tick")
	b = appendInt(b, f.FirstTick)
	b = msgp.AppendString(b, "last_tick")
	b = appendInt(b, f.LastTick)
	b = msgp.AppendString(b, "channel_counts")
	b = msgp.AppendMapHeader(b, uint32(len(f.ChannelCounts)))
	for _, c := range f.ChannelCounts {
		b = msgp.AppendString(b, c.Channel)
		b = appendInt(b, c.Count)
	}
	return b
}

// appendInt appends v as msgspec does: the smallest unsigned form for v >= 0,
// the smallest signed form otherwise.
func appendInt(b []byte, v int64) []byte {
	if v >= 0 {
		return msgp.AppendUint64(b, uint64(v))
	}
	return msgp.AppendInt64(b, v)
}

// blockPrefixMax is the largest TickBlock prefix: fixmap, three keys, two i32
// ticks as int64 forms and an array32 header.
const blockPrefixMax = 1 + 11 + 9 + 9 + 9 + 6 + 5

// appendBlockPrefix writes the TickBlock map up to the ticks array header.
func appendBlockPrefix(b []byte, start, end int64, rows int) []byte {
	b = msgp.AppendMapHeader(b, 3)
	b = msgp.AppendString(b, "start_tick")
	b = appendInt(b, start)
	b = msgp.AppendString(b, "end_tick")
	b = appendInt(b, end)
	b = msgp.AppendString(b, "ticks")
	return msgp.AppendArrayHeader(b, uint32(rows))
}
