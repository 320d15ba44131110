package wire

import "io"

// CountingReader reads through R and counts in N the bytes it delivered
// (the compressed input of a gzip stream, the bytes a decoder consumed).
type CountingReader struct {
	R io.Reader
	N int64
}

// Read reads from R and adds what it read to N.
func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}
