package main

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/tracecodec/tracecodec/events/inspect"
	"hash/crc32"
	"io"
	"strconv"
	"strings"

	"github.com/tracecodec/tracecodec/atf"
)

func init() {
	register(&format{
		name:    "atf",
		lib:     true, // validate and stats: package inspect (atf.go)
		dump:    atfDump,
		merge:   atfMerge,
		convert: atfConvert,
		sample:  atfSample,
	})
}

// atfKind says whether a file input is an index or a detail file: by magic,
// else (damaged files) by name.
func atfKind(in *input) string { return inspect.ATFFileKind(in.Path, in.Variant()) }

// atfDump prints the events through the event layer, in the cross-thread
// merge order for text and JSON alike, or a lone detail file's records.
func atfDump(in *input, w *bufio.Writer, o dumpOptions) error {
	if !in.IsDir() && atfKind(in) == "detail" {
		r, size, closeFn, err := in.ReaderAt()
		if err != nil {
			return err
		}
		defer closeFn()
		d, err := atf.OpenDetail(r, size)
		if err != nil {
			return err
		}
		atfRecovery(in)
		return atfDumpDetail(d, w, o)
	}
	return dumpEvents(in, w, o)
}

func atfDumpDetail(d *atf.DetailFile, w *bufio.Writer, o dumpOptions) error {
	from, to, err := o.bounds("an ATF detail file", inspect.NS, true)
	if err != nil {
		return err
	}
	var thread uint64
	if o.Thread != "" {
		if thread, err = strconv.ParseUint(strings.TrimPrefix(o.Thread, "thread_"), 10, 32); err != nil {
			return usageErrorf("--thread %q: want an ATF thread id (7 or thread_7)", o.Thread)
		}
	}
	it := d.Events()
	for it.Next() {
		e := it.Event()
		if ts := int64(min(e.Timestamp, 1<<63-1)); ts < from || ts > to || o.Thread != "" && uint64(e.ThreadID) != thread {
			continue
		}
		if o.Type != "" && !strings.EqualFold(o.Type, e.Type.String()) && o.Type != strconv.Itoa(int(e.Type)) {
			continue
		}
		if o.JSON {
			fmt.Fprintf(w, `{"detail_seq":%d,"index_seq":%d,"ts":%d,"type":%q,"flags":%d,"thread_id":%d,"total_length":%d,"payload_bytes":%d}`+"\n",
				it.Seq(), e.IndexSeq, e.Timestamp, e.Type.String(), e.Flags, e.ThreadID, e.TotalLength, len(e.Payload))
		} else {
			fmt.Fprintf(w, "detail=%d index_seq=%d ts=%d %s thread_id=%d length=%d\n",
				it.Seq(), e.IndexSeq, e.Timestamp, e.Type, e.ThreadID, e.TotalLength)
		}
	}
	return it.Err()
}

// atfMerge prints the cross-thread merge, (timestamp, thread position,
// sequence) order: what dump prints for ATF, kept as a command of its own.
func atfMerge(in *input, w *bufio.Writer, o dumpOptions) error {
	if !in.IsDir() && atfKind(in) == "detail" {
		return errors.New("merge needs a session, thread folder or index file, not a detail file")
	}
	return dumpEvents(in, w, o)
}

// atfConvert writes Chrome trace-event JSON through the event layer (see
// chrome.go), in merged order: CALL/RETURN as B/E slices per thread (the E
// named by its B), EXCEPTION as an instant, names from the manifest's
// symbols when present, pid from the pid_N folder.
func atfConvert(in *input, to string, out io.Writer, _ convertOptions) error {
	if to != "chrome" {
		return usageErrorf("atf converts to chrome only, not %q", to)
	}
	if !in.IsDir() && atfKind(in) == "detail" {
		return errors.New("convert needs a session, thread folder or index file, not a detail file")
	}
	return writeChrome(in, out)
}

// atfSample writes one finalized index.atf (a call tree of main → compute,
// helper) with the CRC-32 of its events in the footer.
func atfSample(out io.Writer) error {
	mod := atf.ModuleID("/usr/local/bin/demo_app")
	type step struct {
		dt    uint64
		sym   uint32
		kind  atf.EventKind
		depth uint32
	}
	steps := []step{
		{0, 1, atf.KindCall, 1}, {100, 3, atf.KindCall, 2}, {200, 3, atf.KindReturn, 2},
		{50, 4, atf.KindCall, 2}, {10, 4, atf.KindException, 2}, {90, 4, atf.KindReturn, 2}, {400, 1, atf.KindReturn, 1},
	}
	const base = 1_000_000_000_000
	events := make([]byte, 0, len(steps)*atf.IndexEventSize)
	ts := uint64(base)
	for _, s := range steps {
		ts += s.dt
		events = atf.AppendIndexEvent(events, atf.IndexEvent{
			Timestamp: ts, FunctionID: atf.FunctionID(mod, s.sym), Kind: s.kind, CallDepth: s.depth, DetailSeq: atf.NoDetail,
		})
	}
	n := uint64(len(steps))
	h := atf.IndexHeader{
		Endian: 1, Version: 1, Arch: atf.ArchX86_64, OS: atf.OSLinux, ClockType: atf.ClockBoottime,
		EventSize: atf.IndexEventSize, EventCount: uint32(n), EventsOffset: atf.HeaderSize,
		FooterOffset: atf.HeaderSize + uint64(len(events)), TimeStartNs: base, TimeEndNs: ts,
	}
	b := atf.AppendIndexHeader(nil, h)
	b = append(b, events...)
	b = atf.AppendIndexFooter(b, atf.IndexFooter{
		Checksum: crc32.ChecksumIEEE(events), EventCount: n, TimeStartNs: base, TimeEndNs: ts, BytesWritten: uint64(len(events)),
	})
	_, err := out.Write(b)
	return err
}
