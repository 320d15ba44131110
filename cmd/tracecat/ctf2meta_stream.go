package main

// dump of CTF data stream files whose trace has CTF 2 metadata: one record
// per packet, its header and context read by inspect/ctfload.StreamPackets
// (CTF 1.8 data streams are not decoded).

import (
	"bufio"
	"fmt"

	"github.com/tracecodec/tracecodec/events/inspect/ctfload"
	"github.com/tracecodec/tracecodec/traceerr"
)

func ctfStreamDump(in *input, w *bufio.Writer, o dumpOptions) error {
	ps, err := ctfload.StreamPackets(in.Path)
	// packet headers whose magic number is wrong: read, and noted on the
	// recovery line as a trace folder's are
	rec := ctfload.MagicRecovery(ps)
	in.setRecovery(func() *traceerr.Recovery { return rec })
	for i, p := range ps {
		if (o.Type != "" && o.Type != "packet") || !o.inIndex(int64(i)) {
			continue
		}
		if o.JSON {
			rec := map[string]any{"record": "packet", "index": i, "offset": p.Offset, "total_bits": p.TotalBits, "content_bits": p.ContentBits,
				"data_stream_class_id": p.DSCID, "events_discarded": p.Discarded}
			if p.HasBegin {
				rec["timestamp_begin"] = p.TimestampBegin
			}
			if p.HasEnd {
				rec["timestamp_end"] = p.TimestampEnd
			}
			if p.HasSeq {
				rec["seq_num"] = p.SeqNum
			}
			if werr := ctfWriteJSON(w, rec); werr != nil {
				return werr
			}
			continue
		}
		fmt.Fprintf(w, "packet %d offset %d: total=%d content=%d bits dsc=%d", i, p.Offset, p.TotalBits, p.ContentBits, p.DSCID)
		if p.HasBegin || p.HasEnd {
			fmt.Fprintf(w, " timestamps %d..%d", p.TimestampBegin, p.TimestampEnd)
		}
		w.WriteByte('\n')
	}
	return err
}
