package fsops

import (
	"errors"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/internal/eintr"
)

// renameat2 is a variable so tests can play a filesystem that rejects
// RENAME_NOREPLACE and exercise the fallback.
var renameat2 = unix.Renameat2

// fchmodat is a variable so tests can play a kernel without fchmodat2
// (before 6.6) and exercise the fallback.
var fchmodat = unix.Fchmodat

// The operations below act on name relative to the directory descriptor
// dirfd: unix.AT_FDCWD for the unconfined operations, a directory opened
// beneath a root for the confined ones (see Roots), so the same code serves
// both and a confined operation never resolves a path prefix again.

func renameReplace(from, to string) error {
	return renameReplaceAt(unix.AT_FDCWD, from, unix.AT_FDCWD, to)
}

func renameNoReplace(from, to string) error {
	return renameNoReplaceAt(unix.AT_FDCWD, from, unix.AT_FDCWD, to)
}

func chmodNoFollow(path string, mode uint32) error {
	return chmodNoFollowAt(unix.AT_FDCWD, path, mode)
}

func remove(path string) error { return removeAt(unix.AT_FDCWD, path) }

func mkdir(path string) error { return mkdirAt(unix.AT_FDCWD, path) }

func mkdirAt(dirfd int, name string) error {
	return eintr.Retry(func() error { return unix.Mkdirat(dirfd, name, 0o777) })
}

func renameReplaceAt(fromfd int, from string, tofd int, to string) error {
	return eintr.Retry(func() error { return unix.Renameat(fromfd, from, tofd, to) })
}

func renameNoReplaceAt(fromfd int, from string, tofd int, to string) error {
	err := eintr.Retry(func() error {
		return renameat2(fromfd, from, tofd, to, unix.RENAME_NOREPLACE)
	})
	if err != unix.EINVAL && err != unix.ENOSYS {
		return err
	}
	// EINVAL is also the honest answer for a directory moved into itself;
	// the fallback reaches the same rename(2) and gets the same EINVAL.
	return renameNoReplaceFallback(fromfd, from, tofd, to)
}

func renameNoReplaceFallback(fromfd int, from string, tofd int, to string) error {
	var st unix.Stat_t
	if err := fstatatNoFollow(fromfd, from, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		// linkat without AT_SYMLINK_FOLLOW links a symlink itself.
		err := eintr.Retry(func() error { return unix.Linkat(fromfd, from, tofd, to, 0) })
		switch err {
		case nil:
			if uerr := unix.Unlinkat(fromfd, from, 0); uerr != nil {
				_ = unix.Unlinkat(tofd, to, 0)
				return uerr
			}
			return nil
		case unix.EPERM, unix.EOPNOTSUPP, unix.EMLINK:
			// No hard links here: check-then-rename below.
		default:
			return err
		}
	}
	if err := fstatatNoFollow(tofd, to, &st); err == nil {
		return unix.EEXIST
	} else if err != unix.ENOENT {
		return err
	}
	return renameReplaceAt(fromfd, from, tofd, to)
}

func chmodNoFollowAt(dirfd int, name string, mode uint32) error {
	err := eintr.Retry(func() error {
		return fchmodat(dirfd, name, mode, unix.AT_SYMLINK_NOFOLLOW)
	})
	if err != unix.EOPNOTSUPP {
		return err
	}
	// x/sys reports both "path is a symlink" and "kernel has no fchmodat2"
	// as EOPNOTSUPP. Pin what the name refers to now with an O_PATH
	// descriptor that does not follow a link, check that, and change the
	// mode of that very inode through /proc/self/fd (fchmod refuses O_PATH
	// descriptors), as glibc does: a link swapped in after the check is
	// never followed.
	var fd int
	err = eintr.Retry(func() (err error) {
		fd, err = unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return errSymlinkMode(unix.EOPNOTSUPP)
	}
	err = eintr.Retry(func() error {
		return unix.Fchmodat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), mode, 0)
	})
	if err != unix.ENOENT {
		return err
	}
	// No /proc mounted: the descriptor pins the inode, so ENOENT can only
	// mean the magic link is missing. Fall back to the name, with the race
	// Chmod documents for this case.
	return eintr.Retry(func() error { return unix.Fchmodat(dirfd, name, mode, 0) })
}

func removeAt(dirfd int, name string) error {
	err := eintr.Retry(func() error { return unix.Unlinkat(dirfd, name, 0) })
	if err != unix.EISDIR && err != unix.EPERM {
		return err
	}
	// Linux answers EISDIR, POSIX EPERM, for unlink of a directory.
	rerr := eintr.Retry(func() error { return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR) })
	if rerr == nil || !errors.Is(rerr, unix.ENOTDIR) {
		return rerr
	}
	return err
}

func fstatatNoFollow(dirfd int, name string, st *unix.Stat_t) error {
	return eintr.Retry(func() error { return unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW) })
}
