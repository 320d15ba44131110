//go:build !unix

package atf

import "io/fs"

// openNonblock is 0 where FIFOs do not block an open.
const openNonblock = 0

// fileKey: none here; sameFiles compares with os.SameFile.
type fileKey struct{}

func fileKeyOf(fs.FileInfo) (fileKey, bool) { return fileKey{}, false }
