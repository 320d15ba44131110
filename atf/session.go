package atf

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Session is a recorded session: the pid_N folder's threads in order.
type Session struct {
	Dir string
	// Manifest is manifest.json, nil when the folder has none (a crashed
	// session: the reference writes it only at stop).
	Manifest *Manifest
	// Threads in manifest order (threads whose folder is missing are skipped,
	// as in the reference), or, without a manifest, the thread_* folders in
	// ascending id order. A thread's position here is its merge tie-breaker.
	Threads []*Thread

	problems []Problem // found while opening the folder (see Problems)
}

// OpenSession opens a session folder: a pid_N folder (with manifest.json or
// thread_* folders), a session_* folder holding exactly one pid_N folder, or
// a thread_* folder's parent. Without a manifest the thread folders are
// discovered, so crashed sessions open (the reference fails with "No such
// file"). Only regular files are read: a manifest.json, index.atf or
// detail.atf that is not one is an error naming its path. Thread folders that
// cannot be read — listed but missing, symbolic link loops, links leading out
// of the session folder (never followed) — are left out and reported by
// Problems and Check, as is a missing manifest. Close releases the files.
func OpenSession(dir string, opts ...ReaderOption) (*Session, error) {
	o, err := buildReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	dir, err = resolveSessionDir(dir)
	if err != nil {
		return nil, err
	}
	s := &Session{Dir: dir}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	var ids []uint32
	mpath := filepath.Join(dir, "manifest.json")
	if _, err := os.Lstat(mpath); err == nil {
		b, err := readManifestFile(mpath, o.limits.MaxManifestBytes)
		if err != nil {
			return nil, err
		}
		if s.Manifest, err = ParseManifest(b, opts...); err != nil {
			return nil, fmt.Errorf("%s: %w", mpath, err)
		}
		s.problems = append(s.problems, manifestProblems(b, s.Manifest)...)
		for _, t := range s.Manifest.Threads {
			ids = append(ids, t.ID)
		}
	} else {
		s.problems = append(s.problems, Problem{Kind: ProblemNoManifest, Path: "manifest.json", Offset: -1,
			Msg: "no manifest.json (the writer did not finish): the thread folders were discovered"})
	}
	dirIDs, stray, err := threadDirs(dir)
	if err != nil {
		return nil, err
	}
	if len(dirIDs)+len(stray) > o.limits.MaxThreads {
		return nil, newError(-1, ErrLimit, "%d thread folders exceed the limit of %d", len(dirIDs)+len(stray), o.limits.MaxThreads)
	}
	for _, name := range stray {
		s.problems = append(s.problems, Problem{Kind: ProblemStrayFolder, Path: name, Offset: -1,
			Msg: "named like a thread folder, but not thread_N with N a decimal uint32 as the writer spells it: not read"})
	}
	if s.Manifest == nil {
		ids = dirIDs
	} else {
		listed := make(map[uint32]bool, len(ids))
		for _, id := range ids {
			listed[id] = true
		}
		for _, id := range dirIDs {
			if !listed[id] {
				s.problems = append(s.problems, Problem{Kind: ProblemStrayFolder, Path: fmt.Sprintf("thread_%d", id), Offset: -1,
					Msg: "thread folder not listed in manifest.json: not read"})
			}
		}
	}
	var seen sameFiles
	for _, id := range ids {
		name := fmt.Sprintf("thread_%d", id)
		tdir := filepath.Join(dir, name)
		if p := checkEntry(root, tdir, name, true, s.Manifest != nil); p != nil {
			s.problems = append(s.problems, *p)
			continue
		}
		if p := checkEntry(root, filepath.Join(tdir, "index.atf"), filepath.Join(name, "index.atf"), false, false); p != nil {
			s.problems = append(s.problems, *p)
			continue
		}
		if p := seen.add(filepath.Join(tdir, "index.atf"), filepath.Join(name, "index.atf")); p != nil {
			s.problems = append(s.problems, *p)
			continue
		}
		noDetail := false
		if p := checkEntry(root, filepath.Join(tdir, "detail.atf"), filepath.Join(name, "detail.atf"), false, false); p != nil {
			s.problems = append(s.problems, *p)
			noDetail = true
		} else if p := seen.add(filepath.Join(tdir, "detail.atf"), filepath.Join(name, "detail.atf")); p != nil {
			s.problems = append(s.problems, *p)
			noDetail = true
		}
		t, err := openThread(tdir, opts, noDetail)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("%s: %w", relPath(dir, tdir), err)
		}
		s.Threads = append(s.Threads, t)
	}
	return s, nil
}

// readManifestFile reads a manifest that must be a regular file of at most
// limit bytes; the size is checked while reading too, so a file that grows
// meanwhile costs at most limit+1 bytes.
func readManifestFile(path string, limit int64) ([]byte, error) {
	f, size, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > limit {
		return nil, fmt.Errorf("%s: %w", path, newError(0, ErrLimit, "manifest of %d bytes exceeds the limit of %d", size, limit))
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: %w", path, newError(0, ErrLimit, "manifest grew past the limit of %d bytes while read", limit))
	}
	return b, nil
}

// checkEntry checks a folder entry of the session at path (rel to the
// session folder; root is the session folder with its links resolved) before
// it is read. It returns a problem, and the entry is left out, when path is a
// symbolic link that loops, dangles or leads out of root, or, for a thread
// folder, when it is missing or not a folder. A missing file is no problem
// here (opening it says so).
func checkEntry(root, path, rel string, wantDir, listed bool) *Problem {
	fi, err := os.Lstat(path)
	if err != nil {
		if wantDir {
			msg := "thread folder cannot be read: " + err.Error()
			if errors.Is(err, fs.ErrNotExist) && listed {
				msg = "listed in manifest.json, but the thread folder is missing"
			}
			return &Problem{Kind: ProblemMissingThread, Path: rel, Offset: -1, Msg: msg}
		}
		return nil
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		if _, err := os.Stat(path); err != nil {
			if isLoop(err) {
				return &Problem{Kind: ProblemLinkLoop, Path: rel, Offset: -1, Msg: fmt.Sprintf("symbolic link to %q leads into a loop: not read", target)}
			}
			return &Problem{Kind: ProblemMissingThread, Path: rel, Offset: -1, Msg: fmt.Sprintf("symbolic link to %q leads nowhere (%v): not read", target, err)}
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return &Problem{Kind: ProblemLinkLoop, Path: rel, Offset: -1, Msg: fmt.Sprintf("symbolic link to %q cannot be resolved (%v): not read", target, err)}
		}
		if r, err := filepath.Rel(root, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return &Problem{Kind: ProblemLinkOutside, Path: rel, Offset: -1, Msg: fmt.Sprintf("symbolic link to %s leads out of the session folder: not followed", real)}
		}
		if fi, err = os.Stat(path); err != nil {
			return &Problem{Kind: ProblemMissingThread, Path: rel, Offset: -1, Msg: err.Error()}
		}
	}
	if wantDir && !fi.IsDir() {
		return &Problem{Kind: ProblemMissingThread, Path: rel, Offset: -1, Msg: "not a folder: not read"}
	}
	return nil
}

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

func relPath(base, p string) string {
	if r, err := filepath.Rel(filepath.Dir(base), p); err == nil {
		return r
	}
	return p
}

// resolveSessionDir descends from a session_* folder into its only pid_N.
func resolveSessionDir(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
		return dir, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var pids []string
	for _, e := range ents {
		if _, ok := threadDirID(e.Name()); ok {
			return dir, nil
		}
		if !e.IsDir() {
			continue
		}
		if strings.HasPrefix(e.Name(), "pid_") {
			pids = append(pids, e.Name())
		}
	}
	switch len(pids) {
	case 0:
		return "", fmt.Errorf("%s: no manifest.json, thread_* or pid_* folder: %w", dir, fs.ErrNotExist)
	case 1:
		return filepath.Join(dir, pids[0]), nil
	}
	return "", fmt.Errorf("%s holds %d pid_* folders (%s); open one of them", dir, len(pids), strings.Join(pids, ", "))
}

// threadDirs lists the thread folders of dir by id, ascending, and the
// entries named "thread_…" that are not a thread folder's canonical name.
func threadDirs(dir string) (ids []uint32, stray []string, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range ents {
		// Links and non-folders too: checkEntry reports what cannot be read.
		if id, ok := threadDirID(e.Name()); ok {
			ids = append(ids, id)
		} else if strings.HasPrefix(e.Name(), "thread_") {
			stray = append(stray, e.Name())
		}
	}
	slices.Sort(ids)
	return ids, stray, nil
}

// sameFiles remembers the session's files by identity (device and inode
// where the system has them), so that one file reached by two paths — a
// hard link, a bind mount — is read once, not counted twice.
type sameFiles struct {
	keys  map[fileKey]string
	infos []fs.FileInfo // where there are no keys
	paths []string
}

// add returns a ProblemSameFile when the file at path (rel to the session)
// is one added before; a file that cannot be stat'ed is left to the open.
func (sf *sameFiles) add(path, rel string) *Problem {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	other := ""
	if k, ok := fileKeyOf(fi); ok {
		if sf.keys == nil {
			sf.keys = map[fileKey]string{}
		}
		if other = sf.keys[k]; other == "" {
			sf.keys[k] = rel
		}
	} else {
		for i, o := range sf.infos {
			if os.SameFile(fi, o) {
				other = sf.paths[i]
				break
			}
		}
		if other == "" {
			sf.infos, sf.paths = append(sf.infos, fi), append(sf.paths, rel)
		}
	}
	if other == "" {
		return nil
	}
	return &Problem{Kind: ProblemSameFile, Path: rel, Offset: -1,
		Msg: fmt.Sprintf("the same file as %s (a hard link or another path to it): read once, left out here", other)}
}

// EventCount is the number of index events over all threads.
func (s *Session) EventCount() uint64 {
	var n uint64
	for _, t := range s.Threads {
		n += t.Index.Len()
	}
	return n
}

// DetailCount is the number of detail events over all threads.
func (s *Session) DetailCount() uint64 {
	var n uint64
	for _, t := range s.Threads {
		n += t.DetailLen()
	}
	return n
}

// TimeRange is the smallest first and largest last timestamp over the threads
// that have events (see IndexFile.TimeRange). The reference also counts
// empty and unfinalized threads, as 0, so its session start is often 0.
func (s *Session) TimeRange() (first, last uint64, ok bool) {
	for _, t := range s.Threads {
		a, b, tok := t.Index.TimeRange()
		if !tok {
			continue
		}
		if !ok || a < first {
			first = a
		}
		if !ok || b > last {
			last = b
		}
		ok = true
	}
	return first, last, ok
}

// Problems lists what opening the session recovered from or found
// inconsistent — a missing manifest, thread folders left out (missing,
// link loops, links out of the folder) and every thread's file problems (see
// Thread.Problems) — without following the links; Check does. nil means
// clean.
func (s *Session) Problems() []Problem {
	ps := slices.Clone(s.problems)
	for _, t := range s.Threads {
		ps = append(ps, t.Problems()...)
	}
	return ps
}

// Check is Problems with every thread's links walked (see Thread.Check):
// the full report of what the session lost and why. An error means a read
// failed; no problems and no error means the session is clean.
func (s *Session) Check() ([]Problem, error) {
	ps := slices.Clone(s.problems)
	for _, t := range s.Threads {
		tp, err := t.Check()
		ps = append(ps, tp...)
		if err != nil {
			return ps, fmt.Errorf("%s: %w", filepath.Base(t.Dir), err)
		}
	}
	return ps, nil
}

// Recovered reports whether any thread had a file without a valid footer
// (a missing manifest alone does not count: see Manifest).
func (s *Session) Recovered() bool {
	for _, t := range s.Threads {
		if t.Recovered() {
			return true
		}
	}
	return false
}

// Thread returns the thread with the given id.
func (s *Session) Thread(id uint32) (*Thread, bool) {
	for _, t := range s.Threads {
		if t.ID == id {
			return t, true
		}
	}
	return nil, false
}

// Indexes returns the threads' index files in session order.
func (s *Session) Indexes() []*IndexFile {
	out := make([]*IndexFile, len(s.Threads))
	for i, t := range s.Threads {
		out[i] = t.Index
	}
	return out
}

// Merge returns a cross-thread merge of every thread's events.
func (s *Session) Merge() *Merger { return NewMerger(s.Indexes()) }

// MergeRange returns a cross-thread merge of the events with
// from ≤ timestamp < to.
func (s *Session) MergeRange(from, to uint64) *Merger { return NewMergerRange(s.Indexes(), from, to) }

// Close closes every thread's files.
func (s *Session) Close() error {
	var errs []error
	for _, t := range s.Threads {
		errs = append(errs, t.Close())
	}
	return errors.Join(errs...)
}

var _ io.Closer = (*Session)(nil)
