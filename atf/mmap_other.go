//go:build !unix

package atf

import (
	"errors"
	"os"
)

// mapFile is not available here: WithMmap falls back to reading through the
// file (io.ReaderAt).
func mapFile(*os.File, int64) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) error { return nil }
