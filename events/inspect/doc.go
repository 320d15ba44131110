// Package inspect is what tracecat prints, as a library: the filters of
// dump (type, thread, time range), the time bounds its flags take (ns with a
// unit suffix, or a CDT tick), the text line of an event and the dump loop
// itself, written once over the events layer so that every format behaves
// the same and a Go program gets the answers the command-line tool gives.
//
//	r, err := events.Open("trace.dial9.bin")
//	if err != nil { … }
//	defer r.Close()
//	from, _ := inspect.ParseTime("1.5s")
//	_, err = inspect.Dump(os.Stdout, r, inspect.DumpOptions{
//		Filter: inspect.Filter{Type: "poll", From: &from},
//	})
//
// Validate and FormatStats give what tracecat validate and stats --json
// print for an Input (a file, folder or bytes): the verdict, summary,
// problems, recovery summary and strict-mode answer (Report.StrictLosses),
// and every stats key in its order (StatList), for dial9, WTF, CDT, ATF and
// CTF (metadata, LTTng packet index files, data stream packets, and the
// event records of a trace folder's data streams).
//
//	rep, err := inspect.Validate(inspect.FileInput("session/"))
//	st, err := inspect.FormatStats(inspect.FileInput("trace.wtf-trace"))
//
// Text and JSON Lines carry the same records in the same order: the reader's
// order, which for an ATF session is the cross-thread merge order (time,
// then thread position, then sequence).
package inspect
