package inspect

// CTF: validate and the stats keys of CTF metadata (packetized or plain,
// CTF 2 JSON or TSDL, a file or a trace folder's metadata file), of LTTng
// packet index files and of data stream files (packet headers and contexts,
// read by inspect/ctfload), and, for a trace folder with data streams,
// every event record of its streams (package ctf).

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/ctf2meta"
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

// validateCTF is validate of a CTF input: its summary and the metadata
// reader's recovery summary (nil when clean or not read).
func validateCTF(in *Input) (string, *traceerr.Recovery, error) {
	if in.Variant == "data stream" && !in.isDir() {
		sum, err := ctfStreamValidate(in)
		return sum, nil, err
	}
	if b, err := in.ctfIndexBytes(); b != nil || err != nil {
		if err != nil {
			return "", nil, err
		}
		sum, err := ctfIndexValidate(b)
		return sum, nil, err
	}
	m, streamed, err := ctfload.LoadStreamed(in.ctfSource())
	if !streamed {
		m, err = ctfload.Load(in.ctfSource())
	}
	if err != nil {
		return "", nil, err
	}
	rec := cleanRecovery(m.Recovery())
	var parts []string
	if m.Packets {
		parts = append(parts, fmt.Sprintf("%d packet(s), %s headers, %s", m.Info.Packets, m.Info.Layout, m.Info.ByteOrder))
	} else {
		parts = append(parts, "plain text")
	}
	if m.Meta != nil {
		parts = append(parts, fmt.Sprintf("CTF 2, %d fragments", len(m.Meta.Fragments)))
	} else {
		tm, err := ctf2meta.ParseTSDL(m.Plain)
		if err != nil {
			return "", rec, err
		}
		parts = append(parts, fmt.Sprintf("CTF 1.8 TSDL, %d bytes, %d event classes", len(m.Plain), len(tm.EventRecordClasses)))
	}
	for _, w := range m.Warnings() {
		parts = append(parts, "warning: "+w)
	}
	if in.isDir() {
		sum, problems, err := ctfTraceCheck(in)
		if err != nil {
			return "", rec, err
		}
		parts = append(parts, sum)
		for _, p := range problems {
			parts = append(parts, "warning: "+p)
		}
	}
	return strings.Join(parts, "; "), rec, nil
}

// statsCTF is the stats keys of a CTF input and the metadata reader's
// recovery summary (nil when clean or not read).
func statsCTF(in *Input) (StatList, *traceerr.Recovery, error) {
	if in.Variant == "data stream" && !in.isDir() {
		st, err := ctfStreamStats(in)
		return st, nil, err
	}
	if b, err := in.ctfIndexBytes(); b != nil || err != nil {
		if err != nil {
			return nil, nil, err
		}
		st, err := ctfIndexStats(b)
		return st, nil, err
	}
	m, err := ctfload.Load(in.ctfSource())
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
	st = append(st, Stat{"event_classes", m.EventClasses()})
	return st, cleanRecovery(m.Recovery()), nil
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

func ctfStreamValidate(in *Input) (string, error) {
	ps, err := ctfload.StreamPackets(in.Path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("CTF data stream, %d packet(s); packet headers and contexts only, event records not decoded", len(ps)), nil
}

func ctfStreamStats(in *Input) (StatList, error) {
	ps, err := ctfload.StreamPackets(in.Path)
	if err != nil {
		return nil, err
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
	return append(st, Stat{"content_bytes", content}, Stat{"first_timestamp", first}, Stat{"last_timestamp", last}, Stat{"events_discarded", discarded}), nil
}

// ctfTraceCheck decodes every event record of every data stream of a trace
// folder; it returns what it read and the losses the tracer reported.
func ctfTraceCheck(in *Input) (string, []string, error) {
	tr, err := ctf.OpenDir(in.Path)
	if err != nil {
		return "", nil, err
	}
	var problems []string
	events := 0
	for _, s := range tr.Streams {
		if err := s.CheckIndex(); err != nil {
			return "", nil, err
		}
		for s.Scan() { // every check of Next, fields not materialised
			events++
		}
		if err := s.Err(); err != nil {
			return "", nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		for _, l := range s.Losses() {
			if l.Events > 0 {
				problems = append(problems, fmt.Sprintf("%s: packet %d: the tracer discarded %d event records", s.Name, l.Packet, l.Events))
			}
			if l.Packets > 0 {
				problems = append(problems, fmt.Sprintf("%s: packet %d: %d packets lost (sequence number gap)", s.Name, l.Packet, l.Packets))
			}
		}
		if rec := s.Recovery(); len(rec.Notes) > 0 {
			for _, n := range rec.Notes {
				problems = append(problems, s.Name+": "+n)
			}
		}
	}
	return fmt.Sprintf("%d event records in %d data streams", events, len(tr.Streams)), problems, nil
}
