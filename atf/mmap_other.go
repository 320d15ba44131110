//go:build !unix

package atf

import (
	"errors"
	"io"
	"os"
)

// mapFile is not available here: WithMmap falls back to reading through the
// file (io.ReaderAt).
func mapFile(*os.File, int64) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) error { return nil }

// guardedFile is only available on unix systems: files are read with pread
// (os.File.ReadAt) here.
type guardedFile struct{ io.ReaderAt }

func openGuarded(*os.File, int64) (*guardedFile, error) { return nil, errors.ErrUnsupported }

func (*guardedFile) Close() error { return nil }
