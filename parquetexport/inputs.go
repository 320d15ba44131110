package parquetexport

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/events/inspect/ctfload"
)

// Input is one trace the export reads: a file or a trace folder (an ATF
// session or thread folder, a CTF trace folder).
type Input struct {
	Path   string
	Format string // events.FormatDial9, FormatATF, FormatWTF, FormatCDT or FormatCTF
	Size   int64  // bytes on disk (every file of a folder)
}

// ExpandInputs resolves paths the way Export does: a glob (*, ?, [) is
// expanded; a trace folder (ATF session, pid or thread folder, CTF trace
// folder: one without data streams is an input without events, as an ATF
// session without threads is) is one input; so is a folder whose only
// traces are CTF trace folders (events.CTFSession: an LTTng session
// folder) and that holds no unreadable CTF data streams (below), read as
// one trace as events.Open reads it (its events merged by time, on the
// tracks tracecat dump shows); another folder is walked, and each trace folder and each file holding
// events inside it becomes an input (files of other kinds — CTF metadata files,
// sidecars, unknown files — are skipped there, but are an error when named
// directly). A folder met there whose CTF data stream files lie beside no
// CTF metadata (missing, empty or not CTF) holds events no one can read: it
// is an ErrInput error naming the folder, as tracecat validate reports its
// files, never left out in silence (WithKeepGoing lists it in
// Result.Skipped). Inputs are returned in path order, each once.
func ExpandInputs(paths ...string) ([]Input, error) {
	in, _, err := expandInputs(paths, false)
	return in, err
}

// expandInputs is ExpandInputs; with keepGoing, a path (or glob match)
// that holds no events — a file of another kind, a folder without traces —
// is listed in skipped instead of being the error.
func expandInputs(paths []string, keepGoing bool) (out []Input, skipped []InputError, err error) {
	seen := map[string]bool{}
	add := func(in Input) {
		if !seen[in.Path] {
			seen[in.Path] = true
			out = append(out, in)
		}
	}
	for _, p := range paths {
		matches := []string{p}
		if strings.ContainsAny(p, "*?[") {
			m, err := filepath.Glob(p)
			if err != nil {
				return nil, nil, fmt.Errorf("parquetexport: %s: %w", p, err)
			}
			if len(m) == 0 {
				err := fmt.Errorf("%w: %s matches no file", ErrNoInputs, p)
				if !keepGoing {
					return nil, nil, err
				}
				skipped = append(skipped, InputError{p, err})
				continue
			}
			matches = m
		}
		for _, m := range matches {
			found, unread, err := pathInputs(m)
			if err != nil {
				if !keepGoing || !errors.Is(err, errNoEvents) {
					return nil, nil, err
				}
				skipped = append(skipped, InputError{m, err})
				continue
			}
			if len(unread) > 0 && !keepGoing {
				return nil, nil, unread[0].Err
			}
			skipped = append(skipped, unread...)
			for _, in := range found {
				add(in)
			}
		}
	}
	if len(out) == 0 {
		if len(skipped) > 0 {
			return nil, skipped, fmt.Errorf("%w: every path was skipped (%s: %v)", ErrNoInputs, skipped[0].Path, skipped[0].Err)
		}
		return nil, nil, ErrNoInputs
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, skipped, nil
}

// errNoEvents marks a path that holds no events to export (WithKeepGoing
// skips it).
var errNoEvents = errors.New("holds no events to export")

// pathInputs returns the inputs of one path (no glob), and the folders
// inside it whose CTF data streams cannot be read (walkInputs).
func pathInputs(m string) ([]Input, []InputError, error) {
	fi, err := os.Stat(m)
	if err != nil {
		return nil, nil, err
	}
	if !fi.IsDir() {
		in, err := fileInput(m, fi)
		if err != nil {
			return nil, nil, err
		}
		return []Input{in}, nil, nil
	}
	if d := events.DetectDir(m); d.Known() {
		in, err := dirInput(m, d)
		if err != nil {
			return nil, nil, err
		}
		return []Input{in}, nil, nil
	}
	found, unread, err := walkInputs(m)
	if err != nil {
		return nil, nil, err
	}
	if len(found) > 0 && len(unread) == 0 && events.CTFSession(m) != nil {
		// CTF trace folders only (an LTTng session folder): one input,
		// read as one trace as events.Open and tracecat dump read it
		in, err := dirInput(m, events.Detection{Format: events.FormatCTF, Variant: "session"})
		if err != nil {
			return nil, nil, err
		}
		return []Input{in}, nil, nil
	}
	if len(found) == 0 && len(unread) == 0 {
		return nil, nil, fmt.Errorf("%w: no trace in folder %s: %w", ErrNoInputs, m, errNoEvents)
	}
	return found, unread, nil
}

// eventFormat reports whether the events layer yields events for format.
func eventFormat(format string) bool {
	switch format {
	case events.FormatDial9, events.FormatATF, events.FormatWTF, events.FormatCDT:
		return true
	}
	return false
}

func fileInput(path string, fi fs.FileInfo) (Input, error) {
	d, err := events.DetectFile(path)
	if err != nil {
		return Input{}, fmt.Errorf("%w: %s: %w (%w)", ErrInput, path, err, errNoEvents)
	}
	if !eventFormat(d.Format) || d.Format == events.FormatATF && d.Variant == "detail" {
		return Input{}, fmt.Errorf("%w: %s: %s %w", ErrInput, path, d, errNoEvents)
	}
	return Input{Path: path, Format: d.Format, Size: fi.Size()}, nil
}

func dirInput(path string, d events.Detection) (Input, error) {
	if d.Format != events.FormatATF && d.Format != events.FormatCTF {
		return Input{}, fmt.Errorf("%w: %s: %s %w", ErrInput, path, d, errNoEvents)
	}
	var size int64
	err := filepath.WalkDir(path, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if de.Type().IsRegular() {
			if fi, err := de.Info(); err == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	return Input{Path: path, Format: d.Format, Size: size}, err
}

// walkInputs finds the traces inside a folder that is not one itself, and
// the folders there holding CTF data stream files beside no CTF metadata
// (unread: once per folder, in walk order).
func walkInputs(root string) (out []Input, unread []InputError, err error) {
	seen := map[string]bool{} // folders in unread
	err = filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if de.IsDir() {
			if p == root {
				return nil
			}
			if d := events.DetectDir(p); d.Known() {
				if d.Format == events.FormatATF || d.Format == events.FormatCTF {
					in, err := dirInput(p, d)
					if err != nil {
						return err
					}
					out = append(out, in)
				}
				return filepath.SkipDir
			}
			return nil
		}
		if !de.Type().IsRegular() {
			return nil
		}
		d, err := events.DetectFile(p)
		if err == nil && d.Format == events.FormatCTF && d.Variant == "data stream" {
			// (its folder is no CTF trace, or the walk would not be in it)
			if dir := filepath.Dir(p); !seen[dir] {
				seen[dir] = true
				unread = append(unread, InputError{dir, fmt.Errorf("%w: %s: CTF data stream files (%s, …) whose metadata cannot be used (%v): the folder %w", ErrInput, dir, filepath.Base(p), ctfload.MetadataProblem(dir), errNoEvents)})
			}
			return nil
		}
		if err != nil || !eventFormat(d.Format) || d.Format == events.FormatATF && d.Variant != "index" {
			return nil // not a trace of events (CTF metadata, sidecars, detail.atf)
		}
		fi, err := de.Info()
		if err != nil {
			return err
		}
		out = append(out, Input{Path: p, Format: d.Format, Size: fi.Size()})
		return nil
	})
	return out, unread, err
}
