package atf

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
)

// ProblemKind classifies a Problem.
type ProblemKind uint8

// The kinds of problems a reader reports. A clean file, thread or session
// has none; every kind means that something was lost, recovered or is not
// what its header or footer claims.
const (
	// ProblemNoFooter: the file has no valid footer (its writer did not
	// finish: killed, crashed, still running, or its disk filled); its
	// events were recovered from the file size or by walking the records.
	ProblemNoFooter ProblemKind = iota + 1
	// ProblemDiscarded: bytes the reader could not use were dropped — a torn
	// last event or record, a damaged footer, bytes after the footer, a
	// live footer's time range torn by a kill (WithMmapOutput). Bytes says
	// how many and Msg why.
	ProblemDiscarded
	// ProblemHeaderMismatch: a header or footer field disagrees with the
	// file (event_count, footer_offset, the time ranges, bytes_length, the
	// index_seq range, the has-detail flag). The reader trusted the file.
	ProblemHeaderMismatch
	// ProblemDanglingLink: index events link to detail records that do not
	// exist (lost with a detail file's tail, a full disk, or no detail.atf).
	// Events counts them.
	ProblemDanglingLink
	// ProblemOrphanDetail: detail records link back to index events that do
	// not exist. Events counts them.
	ProblemOrphanDetail
	// ProblemBrokenLink: links that exist but disagree: a detail record's
	// back link names an index event that links elsewhere, or two index
	// events claim the same record. Events counts them.
	ProblemBrokenLink
	// ProblemNoManifest: the session folder has no manifest.json (the
	// writer did not finish); its thread folders were discovered instead.
	ProblemNoManifest
	// ProblemMissingThread: a thread is listed in the manifest or named by
	// a folder entry but cannot be read there (missing, not a folder, a
	// dangling link); it is left out.
	ProblemMissingThread
	// ProblemLinkLoop: a symbolic link of the session (a thread folder or
	// file) leads into a loop; it is left out.
	ProblemLinkLoop
	// ProblemLinkOutside: a symbolic link leads out of the session folder;
	// it is not followed, and what it names is left out.
	ProblemLinkOutside
	// ProblemStrayFolder: a folder entry named like a thread folder that is
	// not read: its name is not thread_N in canonical decimal (thread_00,
	// thread_+1, thread_-1, thread_4294967296), or manifest.json does not
	// list it. Its events are not in the session.
	ProblemStrayFolder
	// ProblemSameFile: a thread's index.atf or detail.atf is the same file
	// as another thread's (a hard link, a bind mount): it is read once, and
	// the later thread is left out (or read without its detail file).
	ProblemSameFile
	// ProblemTimeBeyondInt64: index event timestamps at or past 2^63 ns
	// (valid uint64s, ≈292 years): the event layer, tracecat's outputs and
	// Parquet carry times as int64 nanoseconds and saturate these to
	// 2^63−1, so distinct times come out equal there. Thread.Check
	// reports them.
	ProblemTimeBeyondInt64
	// ProblemManifest: manifest.json holds what the reference reads but
	// its writer never produces: invalid UTF-8 (read as U+FFFD) or several
	// symbols for one function id (the first name wins; Events counts the
	// later ones).
	ProblemManifest
)

var problemNames = [...]string{
	ProblemNoFooter:        "no-footer",
	ProblemDiscarded:       "discarded",
	ProblemHeaderMismatch:  "header-mismatch",
	ProblemDanglingLink:    "dangling-link",
	ProblemOrphanDetail:    "orphan-detail",
	ProblemBrokenLink:      "broken-link",
	ProblemNoManifest:      "no-manifest",
	ProblemMissingThread:   "missing-thread",
	ProblemLinkLoop:        "link-loop",
	ProblemLinkOutside:     "link-outside",
	ProblemStrayFolder:     "stray-folder",
	ProblemSameFile:        "same-file",
	ProblemTimeBeyondInt64: "time-beyond-int64",
	ProblemManifest:        "manifest",
}

// String is the kind's short name ("no-footer", "dangling-link", …), or
// "problem(N)" for a value without one.
func (k ProblemKind) String() string {
	if int(k) < len(problemNames) && problemNames[k] != "" {
		return problemNames[k]
	}
	return "problem(" + strconv.Itoa(int(k)) + ")"
}

// Problem is one thing a reader recovered from or found inconsistent in
// input it could still read. Opening and reading succeed despite problems;
// Problems and Check list them so a tool can warn, or refuse under a strict
// policy: no problems means the input is clean.
type Problem struct {
	Kind ProblemKind
	// Path is the file or folder: relative to the session folder for a
	// session ("thread_3/index.atf"), "index.atf" or "detail.atf" (under
	// the thread folder's name) for a thread, "" for a file opened over an
	// io.ReaderAt or bytes.
	Path   string
	Offset int64  // byte offset in Path of the first occurrence, -1 when none applies
	Events uint64 // events or records concerned (lost, unlinked, …); 0 when unknown
	Bytes  int64  // bytes dropped; 0 when none
	Msg    string // what is wrong and why, in words
	// Corrupt is true when the input contradicts itself in a way an
	// interrupted writer does not explain: links that disagree, a
	// finalized file linking to records that are not there. The other
	// problems are what a crash, a full disk or a damaged header leaves
	// behind, and the reader recovered from them.
	Corrupt bool
}

// String formats the problem as "PATH: offset N: MSG (KIND)", leaving out
// what does not apply.
func (p Problem) String() string {
	s := ""
	if p.Path != "" {
		s = p.Path + ": "
	}
	if p.Offset >= 0 {
		s += "offset " + strconv.FormatInt(p.Offset, 10) + ": "
	}
	return s + p.Msg + " (" + p.Kind.String() + ")"
}

func problem(kind ProblemKind, off int64, msg string, args ...any) Problem {
	return Problem{Kind: kind, Offset: off, Msg: fmt.Sprintf(msg, args...)}
}

func withPath(ps []Problem, path string) []Problem {
	for i := range ps {
		if ps[i].Path == "" {
			ps[i].Path = path
		} else {
			ps[i].Path = filepath.Join(path, ps[i].Path)
		}
	}
	return ps
}

// Problems lists what opening the index file recovered from or found
// inconsistent: no valid footer, bytes dropped, header fields that disagree
// with the file. It reads nothing; nil means the file is clean (links to the
// detail file are checked by Thread.Check).
func (r *IndexFile) Problems() []Problem { return slices.Clone(r.problems) }

// checkIndexHeader records the header fields that disagree with what the
// file holds; the reader trusts the file.
func (r *IndexFile) checkIndexHeader() {
	h := &r.hdr
	fo, eo, size := h.FooterOffset, h.EventsOffset, uint64(r.src.size)
	switch {
	case fo < eo:
		r.problems = append(r.problems, problem(ProblemHeaderMismatch, 40, "footer_offset %d lies before events_offset %d", fo, eo))
	case fo > size:
		where := "no valid footer was found"
		if r.hasFooter {
			where = fmt.Sprintf("the footer is at %d", r.footerAt)
		}
		r.problems = append(r.problems, problem(ProblemHeaderMismatch, 40, "footer_offset %d is past the end of the %d-byte file; %s", fo, size, where))
	case fo > eo && r.hasFooter && int64(fo) != r.footerAt:
		// footer_offset inside the last 64 bytes: no room for a footer
		// there, the footer was found at the end.
		r.problems = append(r.problems, problem(ProblemHeaderMismatch, 40, "footer_offset %d disagrees with the footer found at %d", fo, r.footerAt))
	}
	if fo <= eo {
		// A placeholder header (or a lying one): nothing but the layout
		// was written.
		if h.EventCount != 0 && fo == eo {
			r.problems = append(r.problems, problem(ProblemHeaderMismatch, 28, "event_count %d in a header that was never finalized (%d events on file)", h.EventCount, r.count))
		}
		if r.hasFooter && fo == eo && r.count > 0 { // a finalized empty file has fo == eo too
			r.problems = append(r.problems, problem(ProblemHeaderMismatch, 0, "the footer was written but the header not patched (the writer stopped in between)"))
		}
		return
	}
	switch {
	case r.hasFooter:
		if uint64(h.EventCount) != r.count {
			r.problems = append(r.problems, problem(ProblemHeaderMismatch, 28, "event_count %d, the file holds %d events", h.EventCount, r.count))
		}
		first, last, says := r.footer.TimeStartNs, r.footer.TimeEndNs, "the footer says"
		if r.tornRange {
			first, last, _ = r.TimeRange()
			says = "the events say"
		}
		if h.TimeStartNs != first || h.TimeEndNs != last {
			r.problems = append(r.problems, problem(ProblemHeaderMismatch, 48, "time range %d..%d, %s %d..%d", h.TimeStartNs, h.TimeEndNs, says, first, last))
		}
	case fo <= size:
		if span := (fo - eo) / IndexEventSize; uint64(h.EventCount) != span {
			r.problems = append(r.problems, problem(ProblemHeaderMismatch, 28, "event_count %d, footer_offset %d leaves room for %d events", h.EventCount, fo, span))
		}
	}
}

// recoveryProblems records a recovered index file's missing footer and the
// bytes it dropped. end is where the counted events end.
func (r *IndexFile) recoveryProblems(end int64, why string) {
	r.problems = append(r.problems, Problem{Kind: ProblemNoFooter, Offset: end, Events: r.count,
		Msg: fmt.Sprintf("no valid footer (the writer did not finish): %d events recovered from the file size", r.count)})
	if r.discarded > 0 {
		r.problems = append(r.problems, Problem{Kind: ProblemDiscarded, Offset: end, Bytes: r.discarded,
			Msg: fmt.Sprintf("%d bytes dropped after the last complete event: %s", r.discarded, why)})
	}
}

// tornLiveFooter recognises the live footer of a file a mapped writer
// (WithMmapOutput) left when it was killed in putMapped after storing the
// next event's second half over the footer's time range and before the
// event's first half (which breaks the footer's magic): the footer's magic
// and counts hold, its time range is bytes of that event. What tells it
// from a damaged footer is what putMapped stored before: the next footer's
// event_count (count+1) and time_start (the first event's) over this
// footer's reserved bytes, its bytes_written after it, and zeros to the
// end of the 96 bytes the writer keeps for an event and its footer (a
// finished file ends at its footer, so no other writer leaves bytes
// there). Then the events give the time range, and the torn bytes are
// reported as discarded: bytes of an event the writer did not finish, not
// a header mismatch.
//
// f is the valid footer of count events at offset at, tail the
// tornTailSize bytes from its reserved bytes on (at+40 on), first and last
// the timestamps of the first and last events. Both index readers decide
// by it: OpenIndex (IndexFile.checkTornFooter) and IndexReader (finish).
func tornLiveFooter(f *IndexFooter, at int64, count uint64, tail []byte, first, last uint64) (Problem, bool) {
	if count == 0 || len(tail) < tornTailSize {
		return Problem{}, false // no time range to tear: the footer's is 0..0 by any reader
	}
	le := binary.LittleEndian
	if le.Uint64(tail[0:]) != count+1 || le.Uint64(tail[24:]) != (count+1)*IndexEventSize {
		return Problem{}, false
	}
	for _, c := range tail[32:tornTailSize] {
		if c != 0 {
			return Problem{}, false
		}
	}
	if le.Uint64(tail[8:]) != first || f.TimeStartNs == first && f.TimeEndNs == last {
		return Problem{}, false
	}
	return Problem{Kind: ProblemDiscarded, Offset: at + 16, Bytes: 16,
		Msg: fmt.Sprintf("the live footer's time range %d..%d ignored: its writer (WithMmapOutput) was killed while storing event %d over it; the %d events before are whole and say %d..%d",
			f.TimeStartNs, f.TimeEndNs, count, count, first, last)}, true
}

// afterFooterProblem reports n bytes after the valid footer at offset at
// (a finalized header names it), which the readers ignore.
func afterFooterProblem(at, n int64) Problem {
	return Problem{Kind: ProblemDiscarded, Offset: at + FooterSize, Bytes: n, Msg: fmt.Sprintf("%d bytes after the footer ignored", n)}
}

// tornTailSize is how many bytes tornLiveFooter looks at from a footer's
// reserved bytes on: the rest of the footer and the 32 bytes after it,
// the end of the room the mapped writer keeps for an event and its footer.
const tornTailSize = IndexEventSize + FooterSize - 40

// checkTornFooter applies tornLiveFooter to the footer found at
// r.footerAt, with more than an event's bytes after it. buf is scratch
// space.
func (r *IndexFile) checkTornFooter(buf *[HeaderSize]byte) error {
	if r.count == 0 {
		return nil
	}
	tail := buf[:tornTailSize]
	if err := r.src.readAt(tail, r.footerAt+40); err != nil {
		return err
	}
	first, err := r.Event(0)
	if err != nil {
		return err
	}
	last, err := r.Event(r.count - 1)
	if err != nil {
		return err
	}
	if p, ok := tornLiveFooter(&r.footer, r.footerAt, r.count, tail, first.Timestamp, last.Timestamp); ok {
		r.tornRange = true
		r.problems = append(r.problems, p)
	}
	return nil
}

// cutIndex is the empty, recovered IndexFile of an index.atf cut inside its
// header (a writer killed before its header reached the file).
func cutIndex(size int64) *IndexFile {
	r := &IndexFile{recovered: true, discarded: size, eventsOff: HeaderSize}
	r.problems = []Problem{
		{Kind: ProblemNoFooter, Offset: 0, Msg: fmt.Sprintf("the file holds %d bytes, less than its %d-byte header: no events", size, HeaderSize)},
	}
	if size > 0 {
		r.problems = append(r.problems, Problem{Kind: ProblemDiscarded, Offset: 0, Bytes: size, Msg: fmt.Sprintf("%d bytes of a header cut off dropped", size)})
	}
	return r
}

// cutDetail is cutIndex for detail.atf.
func cutDetail(size int64) *DetailFile {
	return &DetailFile{recovered: true, discarded: size, eventsOff: HeaderSize, end: HeaderSize}
}

// Problems lists what opening the detail file recovered from or found
// inconsistent: no valid footer, the bytes dropped after the last complete
// record and why, header fields that disagree with the footer. nil means
// the file is clean (links are checked by Thread.Check). It may read the
// few bytes where the record scan stopped.
func (d *DetailFile) Problems() []Problem {
	var ps []Problem
	h := &d.hdr
	if d.src.size < HeaderSize {
		ps = append(ps, Problem{Kind: ProblemNoFooter, Offset: 0, Msg: fmt.Sprintf("the file holds %d bytes, less than its %d-byte header: no records", d.discarded, HeaderSize)})
		if d.discarded > 0 {
			ps = append(ps, Problem{Kind: ProblemDiscarded, Offset: 0, Bytes: d.discarded, Msg: fmt.Sprintf("%d bytes of a header cut off dropped", d.discarded)})
		}
		return ps
	}
	if !d.hasFooter {
		ps = append(ps, Problem{Kind: ProblemNoFooter, Offset: d.end, Events: d.Len(),
			Msg: fmt.Sprintf("no valid footer (the writer did not finish): %d records recovered by walking their lengths", d.Len())})
		if d.discarded > 0 {
			ps = append(ps, Problem{Kind: ProblemDiscarded, Offset: d.end, Bytes: d.discarded,
				Msg: fmt.Sprintf("%d bytes dropped after the last complete record: %s", d.discarded, d.stopReason())})
		}
		if h.EventCount != 0 || h.BytesLength != 0 {
			// Close patched the header, then the file lost its tail.
			p := problem(ProblemHeaderMismatch, 28, "the header counts %d records (%d bytes), the file holds %d and no valid footer", h.EventCount, h.BytesLength, d.Len())
			if h.EventCount > d.Len() {
				p.Events = h.EventCount - d.Len()
				p.Msg += fmt.Sprintf(": %d lost", p.Events)
			}
			ps = append(ps, p)
		}
		return ps
	}
	if h.EventCount != d.footer.EventCount {
		ps = append(ps, problem(ProblemHeaderMismatch, 28, "event_count %d, the file holds %d records", h.EventCount, d.footer.EventCount))
	}
	if h.BytesLength != d.footer.BytesLength {
		ps = append(ps, problem(ProblemHeaderMismatch, 36, "bytes_length %d, the records take %d bytes", h.BytesLength, d.footer.BytesLength))
	}
	return ps
}

// stopReason says why the record scan of a recovered detail file stopped at
// d.end.
func (d *DetailFile) stopReason() string {
	left := d.src.size - d.end
	if left < DetailEventHeaderSize {
		return fmt.Sprintf("a torn record header (%d of %d bytes)", left, DetailEventHeaderSize)
	}
	var b [4]byte
	if err := d.src.readAt(b[:], d.end); err != nil {
		return "the bytes could not be read: " + err.Error()
	}
	switch tl := binary.LittleEndian.Uint32(b[:]); {
	case tl < DetailEventHeaderSize:
		return fmt.Sprintf("total_length %d is shorter than a record header, not a record", tl)
	case tl > d.maxEvent:
		return fmt.Sprintf("total_length %d is over the limit of %d", tl, d.maxEvent)
	case int64(tl) > left:
		return fmt.Sprintf("a torn record: total_length %d, %d bytes on file", tl, left)
	}
	return "the scan hit a record limit"
}
