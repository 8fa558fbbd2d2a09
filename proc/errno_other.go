//go:build !linux

package proc

import (
	"fmt"
	"syscall"
)

// errnoName names the errnos a start or a stdin write can meet; Start is
// unsupported off Linux, so this only keeps Code meaningful there.
func errnoName(errno syscall.Errno) string {
	switch errno {
	case syscall.ENOENT:
		return "ENOENT"
	case syscall.EACCES:
		return "EACCES"
	case syscall.EPERM:
		return "EPERM"
	case syscall.ENOTDIR:
		return "ENOTDIR"
	case syscall.EINVAL:
		return "EINVAL"
	case syscall.EPIPE:
		return "EPIPE"
	}
	return fmt.Sprintf("errno(%d)", int(errno))
}
