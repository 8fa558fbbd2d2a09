package fsops

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameat2 is a variable so tests can play a filesystem that rejects
// RENAME_NOREPLACE and exercise the fallback.
var renameat2 = unix.Renameat2

func renameReplace(from, to string) error {
	return retryEINTR(func() error { return unix.Rename(from, to) })
}

func renameNoReplace(from, to string) error {
	err := retryEINTR(func() error {
		return renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	})
	if err != unix.EINVAL && err != unix.ENOSYS {
		return err
	}
	// EINVAL is also the honest answer for a directory moved into itself;
	// the fallback reaches the same rename(2) and gets the same EINVAL.
	return renameNoReplaceFallback(from, to)
}

func renameNoReplaceFallback(from, to string) error {
	var st unix.Stat_t
	if err := unix.Lstat(from, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		// linkat without AT_SYMLINK_FOLLOW links a symlink itself.
		err := retryEINTR(func() error { return unix.Linkat(unix.AT_FDCWD, from, unix.AT_FDCWD, to, 0) })
		switch err {
		case nil:
			if uerr := unix.Unlink(from); uerr != nil {
				_ = unix.Unlink(to)
				return uerr
			}
			return nil
		case unix.EPERM, unix.EOPNOTSUPP, unix.EMLINK:
			// No hard links here: check-then-rename below.
		default:
			return err
		}
	}
	if err := unix.Lstat(to, &st); err == nil {
		return unix.EEXIST
	} else if err != unix.ENOENT {
		return err
	}
	return retryEINTR(func() error { return unix.Rename(from, to) })
}

func chmodNoFollow(path string, mode uint32) error {
	err := retryEINTR(func() error {
		return unix.Fchmodat(unix.AT_FDCWD, path, mode, unix.AT_SYMLINK_NOFOLLOW)
	})
	if err != unix.EOPNOTSUPP {
		return err
	}
	// x/sys reports both "path is a symlink" and "kernel has no fchmodat2"
	// as EOPNOTSUPP; lstat tells them apart.
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return errSymlinkMode(unix.EOPNOTSUPP)
	}
	return retryEINTR(func() error { return unix.Chmod(path, mode) })
}

func remove(path string) error {
	err := retryEINTR(func() error { return unix.Unlink(path) })
	if err != unix.EISDIR && err != unix.EPERM {
		return err
	}
	// Linux answers EISDIR, POSIX EPERM, for unlink of a directory.
	rerr := retryEINTR(func() error { return unix.Rmdir(path) })
	if rerr == nil || !errors.Is(rerr, unix.ENOTDIR) {
		return rerr
	}
	return err
}

func retryEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}
