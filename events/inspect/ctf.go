package inspect

// CTF: validate and the stats keys of CTF metadata (packetized or plain,
// CTF 2 JSON or TSDL, a file or a trace folder's metadata file), of LTTng
// packet index files and of data stream files (packet headers and contexts,
// read by inspect/ctfload), and, for a trace folder with data streams,
// every event record of its streams (package ctf): validate decodes them,
// stats adds the event keys of every format and the trace's own (streams,
// packets, events by stream and by name, losses; ctfTraceStats).

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/ctf2meta"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect/ctfload"
	"github.com/tracecodec/tracecodec/traceerr"
)

// ctfSource is in as inspect/ctfload reads it.
func (in *Input) ctfSource() ctfload.Source {
	return ctfload.Source{Path: in.Path, IsDir: in.isDir(), Variant: in.Variant, Bytes: in.bytes, Wrap: in.stopping}
}

// bytes returns the whole input (a file).
func (in *Input) bytes() ([]byte, error) {
	if err := in.interrupted(); err != nil {
		return nil, err
	}
	if in.Data != nil {
		return in.Data, nil
	}
	return os.ReadFile(in.Path)
}

// stopping is rc ending with the error of Interrupted once it returns one.
func (in *Input) stopping(rc io.ReadCloser) io.ReadCloser {
	if in.Interrupted == nil {
		return rc
	}
	return stopReadCloser{rc, in.Interrupted}
}

type stopReadCloser struct {
	io.ReadCloser
	stop func() error
}

func (s stopReadCloser) Read(p []byte) (int, error) {
	if err := s.stop(); err != nil {
		return 0, err
	}
	return s.ReadCloser.Read(p)
}

// ctfIndexBytes returns the bytes of an LTTng packet index input, or nil.
func (in *Input) ctfIndexBytes() ([]byte, error) {
	if in.isDir() || in.Variant != "LTTng packet index" {
		return nil, nil
	}
	return in.bytes()
}

// validateCTF is validate of a CTF input: its summary, the problems of a
// trace folder's data streams (what was read leniently: cut packets,
// packet headers whose UUID or magic number is wrong; --strict fails on
// them), its notes (the losses the tracer reported; --strict passes them)
// and the metadata reader's recovery summary (nil when clean or not read).
func validateCTF(in *Input) (sum string, problems, notes []string, rec *traceerr.Recovery, err error) {
	if in.Variant == "data stream" && !in.isDir() {
		return ctfStreamValidate(in)
	}
	if b, err := in.ctfIndexBytes(); b != nil || err != nil {
		if err != nil {
			return "", nil, nil, nil, err
		}
		sum, err := ctfIndexValidate(b)
		return sum, nil, nil, nil, err
	}
	m, streamed, err := ctfload.LoadStreamed(in.ctfSource())
	if !streamed {
		m, err = ctfload.Load(in.ctfSource())
	}
	if err != nil {
		return "", nil, nil, nil, err
	}
	rec = cleanRecovery(m.Recovery())
	var parts []string
	if m.Packets {
		parts = append(parts, fmt.Sprintf("%d packet(s), %s headers, %s", m.Info.Packets, m.Info.Layout, m.Info.ByteOrder))
	} else {
		parts = append(parts, "plain text")
	}
	if m.Meta != nil {
		parts = append(parts, fmt.Sprintf("CTF 2, %d fragments", len(m.Meta.Fragments)))
	} else {
		tm, err := m.Model()
		if err != nil {
			return "", nil, nil, rec, err
		}
		parts = append(parts, fmt.Sprintf("CTF 1.8 TSDL, %d bytes, %d event classes", len(m.Plain), len(tm.EventRecordClasses)))
	}
	for _, w := range m.Warnings() {
		parts = append(parts, "warning: "+w)
	}
	if in.isDir() {
		var data *traceerr.Recovery
		sum, problems, notes, data, err = ctfTraceCheck(in)
		rec = mergeRecovery(rec, data)
		if err != nil {
			return "", nil, nil, rec, err
		}
		parts = append(parts, sum)
	}
	return strings.Join(parts, "; "), problems, notes, rec, nil
}

// statsCTF is the stats keys of a CTF input and the metadata reader's
// recovery summary (nil when clean or not read).
func statsCTF(in *Input) (StatList, *traceerr.Recovery, error) {
	if in.Variant == "session" && in.isDir() {
		return ctfSessionStats(in)
	}
	if in.Variant == "data stream" && !in.isDir() {
		return ctfStreamStats(in)
	}
	if b, err := in.ctfIndexBytes(); b != nil || err != nil {
		if err != nil {
			return nil, nil, err
		}
		st, err := ctfIndexStats(b)
		return st, nil, err
	}
	st, rec, err := ctfMetadataStats(in.ctfSource())
	if err != nil {
		return nil, rec, err
	}
	if in.isDir() {
		if names, _, err := ctf.DataStreamFiles(in.Path); err == nil && len(names) > 0 {
			tst, trec, err := ctfTraceStats(in)
			if err != nil {
				return nil, rec, err
			}
			st = append(st, tst...)
			rec = mergeRecovery(rec, trec)
		}
	}
	return st, rec, nil
}

// ctfMetadataStats is the stats keys of the CTF metadata of src (a file,
// or a trace folder's metadata file), from packets to event_classes, and
// the metadata reader's recovery summary (nil when clean).
func ctfMetadataStats(src ctfload.Source) (StatList, *traceerr.Recovery, error) {
	m, err := ctfload.Load(src)
	if err != nil {
		return nil, nil, err
	}
	// The counts are the parsed model's; TSDL that does not parse fails
	// stats as it fails validate and dump.
	md, err := m.Model()
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.Sum256(m.Plain)
	st := StatList{
		{"packets", m.Info.Packets},
		{"metadata_bytes", len(m.Plain)},
		{"metadata_sha256", hex.EncodeToString(sum[:])},
		{"byte_order", nil},
		{"version", m.Version()},
	}
	if m.Packets {
		st[3].Value = m.Info.ByteOrder.Short()
		st = append(st, Stat{"header_version", m.Info.Layout.VersionString()}, Stat{"header_bytes", m.Info.Layout.HeaderSize()}, Stat{"uuid", m.Info.UUID.String()})
		if m.Info.TrailingBytes > 0 {
			st = append(st, Stat{"trailing_bytes", m.Info.TrailingBytes})
		}
	}
	if m.Meta != nil {
		st = append(st, Stat{"fragments", len(m.Meta.Fragments)}, Stat{"fragments_by_type", m.Meta.CountByType()})
		if m.Leading > 0 {
			st = append(st, Stat{"leading_whitespace", m.Leading})
		}
	} else {
		st = append(st, Stat{"tsdl_signature", ctf2meta.HasTSDLSignature(m.Plain)})
	}
	st = append(st, Stat{"event_classes", len(md.EventRecordClasses)})
	return st, cleanRecovery(m.Recovery()), nil
}

// ctfTraceStats reads every event record of a trace folder's data streams,
// merged by time as the event layer reads them, and returns the keys every
// event format has (events, first_ns, last_ns, min_ns, max_ns: times of the
// streams with a clock) and the trace's own: data_streams, data_packets,
// events_by_stream (by data stream file), events_by_name, the losses the
// tracer reported (events_discarded: the growth of the packet contexts'
// discarded counters; packets_lost: packet_seq_num gaps), skipped_files
// when some files beside the metadata are not data streams, and the
// streams' recovery summary (a cut last packet, damaged packets; nil when
// clean). A packet holding an event record that cannot be decoded is
// counted up to it and its rest lost (ctf.WithSkipDamagedPackets), as
// stats reads the other formats past damage; dump and validate stop there,
// as babeltrace2 does.
func ctfTraceStats(in *Input) (StatList, *traceerr.Recovery, error) {
	tr, err := ctf.OpenDir(in.Path, ctf.WithSkipDamagedPackets())
	if err != nil {
		return nil, nil, err
	}
	defer tr.Close()
	st, err := ctfReaderStats(in, tr.NewReader(), tr.Streams, nil)
	if err != nil {
		return nil, nil, err
	}
	if len(tr.Skipped) > 0 {
		st = append(st, Stat{"skipped_files", tr.Skipped})
	}
	return st, tr.Recovery(), nil
}

// ctfSessionStats is ctfTraceStats for a folder of CTF trace folders (an
// LTTng session folder, events.CTFSession) read as one trace, as dump reads
// it: "traces" lists the trace folders first; then the metadata keys of
// every CTF input, for the session (sessionMetadataStats); the event keys
// count the events of the session (traces sharing a UUID are one trace,
// their equal packets read once); data streams and skipped files are
// named by their trace folder and file name; "by_trace" holds, by trace
// folder, its metadata keys, its events and data streams, and the folder
// of the trace it is read as one with ("same_trace_as") when it shares a
// UUID with an earlier one.
func ctfSessionStats(in *Input) (StatList, *traceerr.Recovery, error) {
	dirs := events.CTFSession(in.Path)
	if dirs == nil {
		return nil, nil, fmt.Errorf("%s holds no CTF trace folder", in.Path)
	}
	ss, err := ctf.OpenSession(in.Path, dirs, ctf.WithSkipDamagedPackets())
	if err != nil {
		return nil, nil, err
	}
	defer ss.Close()
	var rec *traceerr.Recovery
	metas := make([]StatList, len(ss.Traces))
	for i, d := range ss.Dirs {
		src := ctfload.Source{Path: filepath.Join(in.Path, d), IsDir: true, Wrap: in.stopping}
		m, mrec, err := ctfMetadataStats(src)
		if err != nil {
			return nil, rec, fmt.Errorf("%s/%w", d, err)
		}
		if mrec != nil {
			c := *mrec
			c.Notes = make([]string, len(mrec.Notes))
			for k, n := range mrec.Notes {
				c.Notes[k] = d + "/metadata: " + n
			}
			mrec = &c
		}
		rec = mergeRecovery(rec, mrec)
		metas[i] = m
	}
	var streams []*ctf.Stream
	var names, skipped []string
	for i, tr := range ss.Traces {
		for _, s := range tr.Streams {
			streams = append(streams, s)
			names = append(names, ss.Dirs[i]+"/"+s.Name)
		}
		for _, f := range tr.Skipped {
			skipped = append(skipped, ss.Dirs[i]+"/"+f)
		}
	}
	st, err := ctfReaderStats(in, ss.NewReader(), streams, names)
	if err != nil {
		return nil, rec, err
	}
	byTrace := make(StatList, len(ss.Traces))
	for i, tr := range ss.Traces {
		var n int64
		for _, s := range tr.Streams {
			n += s.Recovery().Read
		}
		t := append(metas[i][:len(metas[i]):len(metas[i])], Stat{"events", n}, Stat{"data_streams", len(tr.Streams)})
		if g := ss.Group(i); g != i {
			t = append(t, Stat{"same_trace_as", ss.Dirs[g]})
		}
		byTrace[i] = Stat{ss.Dirs[i], t}
	}
	head := append(StatList{{"traces", ss.Dirs}}, sessionMetadataStats(metas)...)
	st = append(head, st...)
	st = append(st, Stat{"by_trace", byTrace})
	if len(skipped) > 0 {
		st = append(st, Stat{"skipped_files", skipped})
	}
	return st, mergeRecovery(rec, ss.Recovery()), nil
}

// sessionMetadataStats is the metadata keys of a session of traces whose
// metadata keys are metas: packets, metadata_bytes and fragments (when
// some trace's metadata is CTF 2) summed; metadata_sha256, byte_order and
// version the traces' value when they all have the same one, else null
// (by_trace gives each).
func sessionMetadataStats(metas []StatList) StatList {
	st := StatList{{"packets", 0}, {"metadata_bytes", 0}, {"metadata_sha256", nil}, {"byte_order", nil}, {"version", nil}}
	var packets, size, fragments int
	ctf2 := false
	for i, m := range metas {
		for _, kv := range m {
			switch kv.Key {
			case "packets":
				packets += toInt(kv.Value)
			case "metadata_bytes":
				size += toInt(kv.Value)
			case "fragments":
				fragments += toInt(kv.Value)
				ctf2 = true
			}
		}
		for k := 2; k < 5; k++ {
			v, _ := m.Get(st[k].Key)
			if i == 0 {
				st[k].Value = v
			} else if st[k].Value != v {
				st[k].Value = nil
			}
		}
	}
	st[0].Value, st[1].Value = packets, size
	if ctf2 {
		st = append(st, Stat{"fragments", fragments})
	}
	return st
}

// toInt is an int stat value (0 for another type).
func toInt(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case int64:
		return int(n)
	case uint64:
		return int(n)
	}
	return 0
}

// ctfReaderStats reads every event record r yields, of streams (named by
// names, else by their file names), for ctfTraceStats.
func ctfReaderStats(in *Input, r *ctf.Reader, streams []*ctf.Stream, names []string) (StatList, error) {
	s := Stats{Min: math.MaxInt64, Max: math.MinInt64}
	byStream := make(map[*ctf.Stream]int64, len(streams))
	byClass := map[*ctf.EventClass]int64{} // names summed at the end: pointer keys hash faster
	for r.Next() {
		s.Events++
		if s.Events%ProgressEvery == 0 {
			if err := in.interrupted(); err != nil {
				return nil, err
			}
		}
		e := r.Event()
		byStream[e.Stream]++
		byClass[e.Class]++
		if e.Stream.Packet().Class.Clock == nil {
			continue
		}
		s.see(e.NS())
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	byName := make(map[string]int64, len(byClass))
	for c, n := range byClass {
		byName[c.Name] += n
	}
	st := EventKeys(s)
	var packets, discarded, lost uint64
	perStream := make(map[string]int64, len(streams))
	for i, ds := range streams {
		if names != nil {
			perStream[names[i]] = byStream[ds]
		} else {
			perStream[ds.Name] = byStream[ds]
		}
		packets += uint64(ds.PacketsRead()) // a group's packet once, in the file it was read from
		for _, l := range ds.Losses() {
			discarded += l.Events
			lost += l.Packets
		}
	}
	st = append(st,
		Stat{"data_streams", len(streams)},
		Stat{"data_packets", packets},
		Stat{"events_by_stream", perStream},
		Stat{"events_by_name", byName},
		Stat{"events_discarded", discarded},
		Stat{"packets_lost", lost},
	)
	return st, nil
}

// mergeRecovery adds the data streams' recovery summary to the metadata's
// (either may be nil).
func mergeRecovery(meta, data *traceerr.Recovery) *traceerr.Recovery {
	if meta == nil || data == nil {
		if meta == nil {
			return data
		}
		return meta
	}
	c := *meta
	c.Notes = append(append([]string(nil), meta.Notes...), "data streams: "+data.String())
	return &c
}

func ctfIndexValidate(b []byte) (string, error) {
	ix, err := ctfload.ParseIndex(b)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("LTTng packet index %d.%d, %d packet(s)", ix.Major, ix.Minor, len(ix.Entries)), nil
}

func ctfIndexStats(b []byte) (StatList, error) {
	ix, err := ctfload.ParseIndex(b)
	if err != nil {
		return nil, err
	}
	st := StatList{{"kind", "lttng-index"}, {"index_version", fmt.Sprintf("%d.%d", ix.Major, ix.Minor)}, {"packets", len(ix.Entries)}}
	var first, last, discarded, bytes uint64
	for i, e := range ix.Entries {
		if i == 0 || e.TimestampBegin < first {
			first = e.TimestampBegin
		}
		last = max(last, e.TimestampEnd)
		discarded = max(discarded, e.EventsDiscarded) // a running counter
		bytes += e.PacketBits / 8
	}
	if len(ix.Entries) > 0 {
		st = append(st, Stat{"first_timestamp", first}, Stat{"last_timestamp", last}, Stat{"stream_id", ix.Entries[0].StreamID})
	}
	return append(st, Stat{"packet_bytes", bytes}, Stat{"events_discarded", discarded}), nil
}

// ctfStreamValidate is validate of a lone data stream file: its packets,
// and as problems (and in the recovery summary) the packet headers whose
// magic number is wrong, read as a trace folder's are (ctfTraceCheck).
func ctfStreamValidate(in *Input) (sum string, problems, notes []string, rec *traceerr.Recovery, err error) {
	ps, err := ctfload.StreamPackets(in.Path)
	if err != nil {
		return "", nil, nil, nil, err
	}
	if rec = ctfload.MagicRecovery(ps); rec != nil {
		problems = rec.Notes
	}
	return fmt.Sprintf("CTF data stream, %d packet(s); packet headers and contexts only, event records not decoded", len(ps)), problems, nil, rec, nil
}

// ctfStreamStats is the stats keys of a lone data stream file and its
// recovery summary (packet headers whose magic number is wrong; nil when
// clean).
func ctfStreamStats(in *Input) (StatList, *traceerr.Recovery, error) {
	ps, err := ctfload.StreamPackets(in.Path)
	if err != nil {
		return nil, nil, err
	}
	st := StatList{{"kind", "data-stream"}, {"packets", len(ps)}}
	var content, discarded uint64
	var first, last any
	for i, p := range ps {
		content += p.ContentBits / 8
		discarded = max(discarded, p.Discarded)
		if p.HasBegin && (first == nil || p.TimestampBegin < first.(uint64)) {
			first = p.TimestampBegin
		}
		if p.HasEnd && (last == nil || p.TimestampEnd > last.(uint64)) {
			last = p.TimestampEnd
		}
		if i == 0 {
			st = append(st, Stat{"data_stream_class_id", p.DSCID})
		}
	}
	return append(st, Stat{"content_bytes", content}, Stat{"first_timestamp", first}, Stat{"last_timestamp", last}, Stat{"events_discarded", discarded}), ctfload.MagicRecovery(ps), nil
}

// ctfTraceCheck decodes every event record of every data stream of a trace
// folder, stream after stream (the files of one data stream, as LTTng's
// tracefile rotation splits a CPU's stream, read as one in babeltrace2's
// packet order: ctf.Reader.ByStream); it returns what it read, the
// problems of the streams (what the reader read leniently, as babeltrace2
// reads it: packet headers whose UUID or magic number is wrong), the
// losses the tracer reported as notes (discarded event records,
// packet_seq_num gaps, counted across the files of a data stream as
// babeltrace2 warns of them: the trace says them itself, so --strict
// passes them) and the streams' recovery summary (nil when clean). A data
// stream file whose last packet is cut fails, as babeltrace2 2.1.2 refuses
// it and as tracecat validate fails what an unfinished writer left in
// every format (a CDT trace without footer, a cut dial9 stream); the
// recovery summary says what stats, dump and convert read of it.
func ctfTraceCheck(in *Input) (sum string, problems, notes []string, rec *traceerr.Recovery, err error) {
	tr, err := ctf.OpenDir(in.Path)
	if err != nil {
		return "", nil, nil, nil, err
	}
	defer tr.Close()
	// An index that disagrees with its stream fails, after every stream
	// is read (for the recovery line): it lists packets the file has
	// lost, or the file was changed after it was written (babeltrace2 2.1
	// warns and indexes the stream itself, as stats and dump read it). An
	// index that cannot be parsed at all is a problem of the stream's
	// (Stream.Recovery), a warning. Another error is the stream's own,
	// which reading it reports first (failing after the streams before).
	var idxErr, ownErr error
	for _, s := range tr.Streams {
		if err := s.CheckIndex(); errors.Is(err, ctf.ErrIndex) {
			if idxErr == nil {
				idxErr = err
			}
		} else if err != nil && ownErr == nil {
			ownErr = err
		}
	}
	// every check of Next, fields not materialised; a clock class
	// correlation error (streams whose events cannot be merged: dump,
	// stats and export refuse the trace, as babeltrace2 refuses it) as
	// it is, a stream's after its file's name
	r := tr.NewScanner().ByStream()
	events := r.Count()
	if err := r.Err(); err != nil {
		if errors.Is(err, ctf.ErrClockCorrelation) {
			return "", nil, nil, nil, err
		}
		return "", nil, nil, tr.Recovery(), err
	}
	if ownErr != nil {
		return "", nil, nil, tr.Recovery(), ownErr
	}
	var cut *ctf.Stream
	for _, s := range tr.Streams {
		for _, l := range s.Losses() {
			if l.Events > 0 {
				notes = append(notes, fmt.Sprintf("%s: packet %d: the tracer discarded %d event records", s.Name, l.Packet, l.Events))
			}
			if l.Packets > 0 {
				notes = append(notes, fmt.Sprintf("%s: packet %d: %d packets lost (sequence number gap)", s.Name, l.Packet, l.Packets))
			}
		}
		for _, n := range s.Recovery().Notes {
			problems = append(problems, s.Name+": "+n)
		}
		if cut == nil && s.Recovery().Reason != nil {
			cut = s
		}
	}
	rec = tr.Recovery()
	if cut != nil {
		err := cut.Recovery().Reason
		if fe, ok := errors.AsType[*traceerr.FormatError](err); ok {
			c := *fe
			c.Msg += " (babeltrace2 refuses the trace; stats, dump and convert read the event records before the cut)"
			err = &c
		}
		return "", nil, nil, rec, fmt.Errorf("%s: %w", cut.Name, err)
	}
	if idxErr != nil {
		return "", nil, nil, rec, idxErr
	}
	return fmt.Sprintf("%d event records in %d data streams", events, len(tr.Streams)), problems, notes, rec, nil
}
