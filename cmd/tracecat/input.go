package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
		return bytes.NewReader(in.data), int64(len(in.data)), func() error { return nil }, nil
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
	return f, fi.Size(), f.Close, nil
}

// Reader opens the input for streaming.
func (in *input) Reader() (io.ReadCloser, error) {
	if in.isDir {
		return nil, errors.New("is a folder")
	}
	if in.Path == "-" {
		return io.NopCloser(bytes.NewReader(in.data)), nil
	}
	return os.Open(in.Path)
}

// createOutput opens OUT ("-" for standard output). The file is written under a
// temporary name and renamed by commit(true), so a failed conversion leaves
// nothing half-written under the final name.
func createOutput(path string, stdout io.Writer) (io.Writer, func(ok bool) error, error) {
	if path == "-" {
		return stdout, func(bool) error { return nil }, nil
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, nil, err
	}
	bw := newBufferedFile(f)
	commit := func(ok bool) error {
		err := bw.Flush()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if !ok || err != nil {
			os.Remove(f.Name())
			return err
		}
		return os.Rename(f.Name(), path)
	}
	return bw, commit, nil
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
