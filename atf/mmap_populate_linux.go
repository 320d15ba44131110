package atf

import "golang.org/x/sys/unix"

// populateRead maps every page of a read-only file mapping in one call
// (MADV_POPULATE_READ, Linux 5.14+) instead of one fault per page (or per
// fault-around block) as the pages are first read. An error (an older
// kernel, a file truncated meanwhile) changes nothing: the pages are then
// faulted in as they are read.
func populateRead(b []byte) { _ = unix.Madvise(b, unix.MADV_POPULATE_READ) }
