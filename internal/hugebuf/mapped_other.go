//go:build !linux

package hugebuf

// Map returns nil where buffers are not mapped outside the Go heap (the
// caller uses Make).
func Map(c int) []byte { return nil }

// Drop does nothing where Map returns nil.
func Drop(b []byte) {}
