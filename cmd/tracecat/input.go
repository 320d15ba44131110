package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/traceerr"
)

var errBrokenPipe = syscall.EPIPE

// maxStdin bounds what "-" may feed in; standard input is read into memory.
const maxStdin = 1 << 30

// input is one PATH argument: a file, a folder, or standard input ("-").
type input struct {
	Path  string
	det   detection
	isDir bool
	data  []byte // standard input, read whole
	size  int64
	// ctx, when set, makes every read fail once it is cancelled (an
	// interrupt), so loops over the input end promptly.
	ctx context.Context
	// recovery gives the summary of what the input's last reader recovered
	// (see setRecovery).
	recovery func() *traceerr.Recovery
	// ctfLosses, set by the readers of a CTF trace, totals the gaps its
	// tracer reported (dump's warning line, ctfLossLine)
	ctfLosses func() ctf.LossTotals
	// wtfEvents counts the events a WTF reader of this input decoded, for
	// its recovery summary.
	wtfEvents int64
}

func newInput(path string, stdin io.Reader) (*input, error) {
	in := &input{Path: path}
	if path == "-" {
		b, err := io.ReadAll(io.LimitReader(stdin, maxStdin+1))
		if err != nil {
			return nil, err
		}
		if len(b) > maxStdin {
			return nil, fmt.Errorf("standard input is larger than %d bytes; pass a file", maxStdin)
		}
		in.data = b
		in.size = int64(len(b))
		in.det = detectBytes(b)
		return in, nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		in.isDir = true
		in.det = detectDir(path)
		if !in.det.Known() && events.CTFSession(path) != nil {
			// CTF trace folders only (an LTTng session folder): one
			// trace, all their events merged by time (events.Open)
			in.det = detection{Format: events.FormatCTF, Variant: "session"}
		}
		return in, nil
	}
	in.size = fi.Size()
	in.det, err = detectFile(path)
	if err != nil {
		return nil, err
	}
	return in, nil
}

// IsDir reports whether the input is a folder (ATF session, CTF trace).
func (in *input) IsDir() bool { return in.isDir }

// Variant is the detected variant ("" when none).
func (in *input) Variant() string { return in.det.Variant }

// Size is the input's size in bytes (0 for folders).
func (in *input) Size() int64 { return in.size }

// Bytes returns the whole input.
func (in *input) Bytes() ([]byte, error) {
	if in.isDir {
		return nil, errors.New("is a folder")
	}
	if err := in.interrupted(); err != nil {
		return nil, err
	}
	if in.Path == "-" {
		return in.data, nil
	}
	return os.ReadFile(in.Path)
}

// ReaderAt opens the input for random access; call close when done.
func (in *input) ReaderAt() (r io.ReaderAt, size int64, close func() error, err error) {
	if in.isDir {
		return nil, 0, nil, errors.New("is a folder")
	}
	if in.Path == "-" {
		return in.readerAt(bytes.NewReader(in.data)), int64(len(in.data)), func() error { return nil }, nil
	}
	f, err := os.Open(in.Path)
	if err != nil {
		return nil, 0, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, nil, err
	}
	return in.readerAt(f), fi.Size(), f.Close, nil
}

func (in *input) interrupted() error {
	if in.ctx == nil {
		return nil
	}
	return interrupted(in.ctx)
}

func (in *input) readerAt(r io.ReaderAt) io.ReaderAt {
	if in.ctx == nil {
		return r
	}
	return ctxReaderAt{newStopCheck(in.ctx), r}
}

func (in *input) readCloser(r io.ReadCloser) io.ReadCloser {
	if in.ctx == nil {
		return r
	}
	return ctxReadCloser{ctxReader{newStopCheck(in.ctx), r}, r}
}

// Reader opens the input for streaming.
func (in *input) Reader() (io.ReadCloser, error) {
	if in.isDir {
		return nil, errors.New("is a folder")
	}
	if in.Path == "-" {
		return in.readCloser(io.NopCloser(bytes.NewReader(in.data))), nil
	}
	f, err := os.Open(in.Path)
	if err != nil {
		return nil, err
	}
	return in.readCloser(f), nil
}

// createOutput opens OUT ("-" for standard output). A file is written under
// a temporary name in the same folder (so the final rename is atomic) with
// mode 0666 less the umask, and renamed into place by commit(true); commit(false)
// removes it, and so does an interrupt (SIGINT, SIGTERM) before commit. Once
// the run's context is cancelled, writes fail.
func (c *cli) createOutput(path string) (io.Writer, func(ok bool) error, error) {
	if path == "-" {
		return ctxWriter{newStopCheck(c.context()), c.stdout}, func(bool) error { return nil }, nil
	}
	// A folder cannot be replaced by the file: say so before the work (the
	// final rename failed after it, with the temporary file's name, and for
	// "/tmp" the temporary file went to "/").
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, nil, usageErrorf("%s is a folder: OUT names the file to write", path)
	}
	f, err := createTemp(path)
	if err != nil {
		return nil, nil, err
	}
	tmp := f.Name()
	addTemporary(tmp, false)
	bw := newBufferedFile(ctxWriter{newStopCheck(c.context()), f})
	commit := func(ok bool) error {
		err := bw.Flush()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if ok && err == nil {
			err = dropTemporary(tmp, func() error { return os.Rename(tmp, path) })
			if err == nil {
				return nil
			}
		}
		os.Remove(tmp)
		dropTemporary(tmp, nil)
		return err
	}
	return bw, commit, nil
}

// createOutputDir creates a new temporary folder beside path (".BASE.tmpNNN")
// for a command that writes a folder, registered for removal on an
// interrupt. path must not exist. commit(true) renames the folder to path;
// commit(false), or a failed rename, removes it.
func createOutputDir(path string) (string, func(ok bool) error, error) {
	if _, err := os.Lstat(path); err == nil {
		return "", nil, fmt.Errorf("%s exists: the output folder must not exist", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", nil, err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.MkdirTemp(dir, "."+base+".tmp")
	if err != nil {
		return "", nil, err
	}
	addTemporary(tmp, true)
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp's mode is 0700
		os.RemoveAll(tmp)
		dropTemporary(tmp, nil)
		return "", nil, err
	}
	commit := func(ok bool) error {
		if ok {
			err := dropTemporary(tmp, func() error { return os.Rename(tmp, path) })
			if err == nil {
				return nil
			}
			os.RemoveAll(tmp)
			return err
		}
		os.RemoveAll(tmp)
		dropTemporary(tmp, nil)
		return nil
	}
	return tmp, commit, nil
}

// createTemp creates a new file beside path, named ".BASE.tmpNNN", with mode
// 0666 less the umask (the mode os.Create gives; os.CreateTemp's is 0600).
func createTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	for range 100 {
		name := filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("cannot create a temporary file beside %s", path)
}

// parseInt parses an optional integer flag ("" = absent). Underscores are allowed
// as digit separators.
func parseInt(s string) (int64, bool, error) {
	if s == "" {
		return 0, false, nil
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64)
	if err != nil {
		return 0, false, fmt.Errorf("not an integer: %q", s)
	}
	return v, true, nil
}
