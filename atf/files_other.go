//go:build !unix

package atf

// openNonblock is 0 where FIFOs do not block an open.
const openNonblock = 0
