//go:build !linux

package atf

import (
	"errors"
	"os"
)

// mapOut is not available here: WithMmapOutput is ignored and the writers
// use write(2).
type mapOut struct {
	data []byte
	size int64
}

func newMapOut(*os.File) (*mapOut, error) { return nil, errors.ErrUnsupported }

func (m *mapOut) grow(int64, int64) error { return errors.ErrUnsupported }
func (m *mapOut) sync() error             { return errors.ErrUnsupported }
func (m *mapOut) cut(int64) error         { return errors.ErrUnsupported }
func (m *mapOut) finish(int64) error      { return errors.ErrUnsupported }
