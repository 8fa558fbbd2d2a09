//go:build unix

package fsops

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// errnoName uses the platform's own table, so the names are the ones the
// platform's C headers use (Linux reports EOPNOTSUPP as ENOTSUP: same number).
func errnoName(e syscall.Errno) string { return unix.ErrnoName(e) }
