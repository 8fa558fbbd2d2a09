//go:build !linux

package fsops

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

func renameReplace(from, to string) error { return osCause(os.Rename(from, to)) }

// renameNoReplace is check-then-rename: the race with a destination created
// in between is documented on Rename.
func renameNoReplace(from, to string) error {
	if _, err := os.Lstat(from); err != nil {
		return osCause(err)
	}
	if _, err := os.Lstat(to); err == nil {
		return syscall.EEXIST
	} else if !errors.Is(err, fs.ErrNotExist) {
		return osCause(err)
	}
	return osCause(os.Rename(from, to))
}

func chmodNoFollow(path string, mode uint32) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return osCause(err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return errSymlinkMode(syscall.ENOTSUP)
	}
	return osCause(os.Chmod(path, fileMode(mode)))
}

// remove relies on os.Remove, which unlinks and falls back to rmdir for a
// directory, never recursing.
func remove(path string) error { return osCause(os.Remove(path)) }

func mkdir(path string) error { return osCause(os.Mkdir(path, 0o777)) }
