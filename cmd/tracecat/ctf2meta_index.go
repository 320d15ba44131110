package main

// dump of LTTng packet index files (trace/index/*.idx), read by
// inspect/ctfload: one record per data stream packet.

import (
	"bufio"
	"fmt"

	"github.com/tracecodec/tracecodec/events/inspect/ctfload"
)

func ctfIndexDump(b []byte, w *bufio.Writer, o dumpOptions) error {
	ix, err := ctfload.ParseIndex(b)
	if err != nil {
		return err
	}
	for i, e := range ix.Entries {
		if (o.Type != "" && o.Type != "index") || !o.inIndex(int64(i)) {
			continue
		}
		if o.JSON {
			rec := map[string]any{"record": "index", "index": i, "offset": e.Offset, "packet_bits": e.PacketBits, "content_bits": e.ContentBits,
				"timestamp_begin": e.TimestampBegin, "timestamp_end": e.TimestampEnd, "events_discarded": e.EventsDiscarded, "stream_id": e.StreamID}
			if e.HasV11 {
				rec["stream_instance_id"], rec["packet_seq_num"] = e.StreamInstanceID, e.PacketSeqNum
			}
			if err := ctfWriteJSON(w, rec); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(w, "index %d: offset %d packet=%d content=%d bits timestamps %d..%d discarded=%d stream=%d", i, e.Offset, e.PacketBits, e.ContentBits,
			e.TimestampBegin, e.TimestampEnd, e.EventsDiscarded, e.StreamID)
		if e.HasV11 {
			fmt.Fprintf(w, " instance=%d seq=%d", e.StreamInstanceID, e.PacketSeqNum)
		}
		w.WriteByte('\n')
	}
	return nil
}
