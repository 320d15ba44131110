//go:build unix

package atf

import "syscall"

// openNonblock keeps an open from waiting for a FIFO's writer (a file that
// turns into one between the check and the open); it changes nothing for
// regular files.
const openNonblock = syscall.O_NONBLOCK
