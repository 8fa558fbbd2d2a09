package fsops

import (
	"context"
	"errors"
	"io/fs"
)

// Rename moves from to to. Neither path's final component is followed: a
// symlink is renamed as a link, and a dangling one renames fine.
//
// Without overwrite an existing destination is refused with an error
// matching fs.ErrExist (errno EEXIST) and nothing moves. On Linux this is one
// atomic renameat2(RENAME_NOREPLACE); if the filesystem rejects the flag
// (EINVAL or ENOSYS, e.g. some network or FUSE filesystems), a non-directory
// is moved with link then unlink, which refuses an existing destination
// atomically (both names exist for an instant; if the unlink fails the new
// link is removed again), and a directory, or anything the filesystem will
// not hard-link, falls back to check-then-rename, whose race is the one
// named below. On other platforms no-overwrite is always check-then-rename:
// a destination created by someone else between the check and the rename is
// replaced.
//
// With overwrite, a destination file or empty directory is replaced
// atomically, as rename(2) does. A rename across filesystems fails with
// EXDEV; Rename never copies.
func Rename(ctx context.Context, from, to string, overwrite bool) error {
	const op = "rename"
	if err := checkPath(op, from, to, from); err != nil {
		return err
	}
	if err := checkPath(op, from, to, to); err != nil {
		return err
	}
	if err := checkCancel(ctx, op, from, to); err != nil {
		return err
	}
	var err error
	if overwrite {
		err = renameReplace(from, to)
	} else {
		err = renameNoReplace(from, to)
	}
	if err != nil {
		return &PathError{Op: op, Path: from, Path2: to, Err: explainRename(err, overwrite, func() bool {
			_, _, lerr := lstatPath(from)
			return errors.Is(lerr, fs.ErrNotExist)
		})}
	}
	return nil
}

// explainRename turns the errnos whose generic text misleads into messages
// that say which side of the rename is at fault; sourceMissing looks again
// at the source (without following it) to tell an ENOENT's side.
func explainRename(err error, overwrite bool, sourceMissing func() bool) error {
	switch {
	case errors.Is(err, fs.ErrExist) && !overwrite:
		return &explained{msg: "destination exists", err: err}
	case errors.Is(err, fs.ErrExist):
		// ENOTEMPTY also matches fs.ErrExist.
		return &explained{msg: "destination is a non-empty directory", err: err}
	case errors.Is(err, fs.ErrNotExist):
		if sourceMissing() {
			return &explained{msg: "source does not exist", err: err}
		}
		return &explained{msg: "destination's parent directory does not exist", err: err}
	}
	return err
}

// Chmod sets path's mode to mode: permission bits plus setuid (04000),
// setgid (02000) and sticky (01000), as chmod(1) reads an octal mode. Bits
// outside 07777 are refused with ErrBadMode.
//
// A symlink is refused (errno ENOTSUP): Linux cannot change a link's own
// mode, and following it would let a link inside a confined root change a
// file outside it; chmod the target's path instead. On Linux 6.6 and later
// this is enforced atomically by fchmodat2(AT_SYMLINK_NOFOLLOW); on older
// Linux kernels the file is pinned with an O_PATH descriptor that does not
// follow a link, checked, and changed through /proc/self/fd, which is as
// safe. Without /proc, and on other platforms, it is lstat-then-chmod, so
// a symlink swapped in between the two is followed.
func Chmod(ctx context.Context, path string, mode uint32) error {
	const op = "chmod"
	if err := checkPath(op, path, "", path); err != nil {
		return err
	}
	if mode&^0o7777 != 0 {
		return &PathError{Op: op, Path: path, Err: ErrBadMode}
	}
	if err := checkCancel(ctx, op, path, ""); err != nil {
		return err
	}
	if err := chmodNoFollow(path, mode); err != nil {
		return &PathError{Op: op, Path: path, Err: err}
	}
	return nil
}

// errSymlinkMode explains Chmod's refusal of a symlink.
func errSymlinkMode(errno error) error {
	return &explained{msg: "is a symlink: its mode cannot be changed and Chmod does not follow it", err: errno}
}

// Remove deletes a file, a symlink (never its target) or an empty
// directory. A non-empty directory is refused with ENOTEMPTY: Remove is never
// recursive.
func Remove(ctx context.Context, path string) error {
	const op = "remove"
	if err := checkPath(op, path, "", path); err != nil {
		return err
	}
	if err := checkCancel(ctx, op, path, ""); err != nil {
		return err
	}
	return removeFailed(path, remove(path))
}

// Mkdir makes the directory path, with mode 0777 less the umask, as
// mkdir(2) does: its parent must exist, and an existing path (a directory
// too) is refused with an error matching fs.ErrExist. A final symlink is
// never followed, so a dangling link is refused rather than created
// through.
func Mkdir(ctx context.Context, path string) error {
	const op = "mkdir"
	if err := checkPath(op, path, "", path); err != nil {
		return err
	}
	if err := checkCancel(ctx, op, path, ""); err != nil {
		return err
	}
	return mkdirFailed(path, mkdir(path))
}

// mkdirFailed wraps mkdir's error, if any, for Mkdir's caller.
func mkdirFailed(path string, err error) error {
	if err == nil {
		return nil
	}
	return &PathError{Op: "mkdir", Path: path, Err: err}
}

// removeFailed wraps remove's error, if any, for Remove's caller.
func removeFailed(path string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrExist) { // ENOTEMPTY, or EEXIST on some systems
		err = &explained{msg: "directory not empty (Remove is never recursive)", err: err}
	}
	return &PathError{Op: "remove", Path: path, Err: err}
}
