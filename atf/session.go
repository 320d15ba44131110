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
}

// OpenSession opens a session folder: a pid_N folder (with manifest.json or
// thread_* folders), a session_* folder holding exactly one pid_N folder, or
// a thread_* folder's parent. Without a manifest the thread folders are
// discovered, so crashed sessions open (the reference fails with "No such
// file"). Close releases the files.
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
		for _, t := range s.Manifest.Threads {
			ids = append(ids, t.ID)
		}
	} else {
		if ids, err = threadDirs(dir); err != nil {
			return nil, err
		}
		if len(ids) > o.limits.MaxThreads {
			return nil, newError(-1, ErrLimit, "%d thread folders exceed the limit of %d", len(ids), o.limits.MaxThreads)
		}
	}
	for _, id := range ids {
		tdir := filepath.Join(dir, fmt.Sprintf("thread_%d", id))
		if fi, err := os.Stat(tdir); err != nil || !fi.IsDir() {
			continue
		}
		t, err := OpenThread(tdir, opts...)
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
		if !e.IsDir() {
			continue
		}
		if _, ok := threadDirID(e.Name()); ok {
			return dir, nil
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

func threadDirs(dir string) ([]uint32, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ids []uint32
	for _, e := range ents {
		if id, ok := threadDirID(e.Name()); ok && e.IsDir() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
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
