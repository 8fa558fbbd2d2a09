//go:build !unix

package fsops

import (
	"errors"
	"io/fs"
	"syscall"
)

// errnoName maps the platform's error codes onto the POSIX names the Lua
// binding expects, by meaning; codes with no POSIX counterpart get "EIO".
func errnoName(e syscall.Errno) string {
	switch {
	case errors.Is(e, fs.ErrNotExist):
		return "ENOENT"
	case errors.Is(e, fs.ErrExist):
		return "EEXIST"
	case errors.Is(e, fs.ErrPermission):
		return "EACCES"
	}
	return "EIO"
}
