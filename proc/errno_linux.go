package proc

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

func errnoName(errno syscall.Errno) string {
	if n := unix.ErrnoName(errno); n != "" {
		return n
	}
	return fmt.Sprintf("errno(%d)", int(errno))
}
