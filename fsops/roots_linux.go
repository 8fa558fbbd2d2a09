package fsops

import (
	"context"

	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/internal/eintr"
)

// openat2 is a variable so tests can play a kernel without it (before 5.6)
// and exercise the component walk.
var openat2 = unix.Openat2

// openBeneath opens p.anchor, which must contain no symlink, and then rel
// beneath it: the kernel refuses any step of rel that leaves the anchor
// (through "..", an absolute symlink or a relative one climbing out), and
// that refusal is returned as ErrEscapesRoot. flags is unix.O_PATH for a
// directory that *at calls act in, unix.O_RDONLY for one to list.
func openBeneath(p place, rel string, flags int) (int, error) {
	afd, err := openAt(unix.AT_FDCWD, p.anchor, unix.O_PATH, unix.RESOLVE_NO_SYMLINKS)
	if err != nil {
		return -1, err
	}
	if rel == "." && flags == unix.O_PATH {
		return afd, nil
	}
	defer unix.Close(afd)
	fd, err := openAt(afd, rel, flags, unix.RESOLVE_BENEATH)
	if err == unix.EXDEV {
		return -1, ErrEscapesRoot
	}
	return fd, err
}

// openAt opens a directory with openat2, retrying EINTR, and the EAGAIN
// that RESOLVE_BENEATH answers when a concurrent rename made its ".."
// check unsure a bounded number of times; without openat2 it walks the path one component at a time.
func openAt(dirfd int, path string, flags int, resolve uint64) (int, error) {
	how := &unix.OpenHow{Flags: uint64(flags | unix.O_DIRECTORY | unix.O_CLOEXEC), Resolve: resolve}
	for range 128 {
		fd, err := eintr.Value(func() (int, error) { return openat2(dirfd, path, how) })
		switch err {
		case nil:
			return fd, nil
		case unix.EAGAIN:
			continue
		case unix.ENOSYS, unix.EPERM:
			// EPERM: a seccomp filter that predates openat2 (as container
			// runtimes shipped) refuses it that way; opening a directory
			// with these flags is otherwise never EPERM.
			return openWalk(dirfd, path, flags)
		}
		return -1, err
	}
	return -1, unix.EAGAIN
}

// openWalk is openAt for kernels without openat2: every component is
// opened with O_NOFOLLOW relative to the previous one, so no symlink is
// followed at all, and ".." (which only appears in a path's unresolved
// rest) is refused as leaving the directory. A link met on the way fails
// with ELOOP, as under RESOLVE_NO_SYMLINKS: the links of a path that
// resolves were resolved when it was located, so only a path that does not
// resolve (a dangling link) or a link swapped in since meets one.
func openWalk(dirfd int, path string, flags int) (int, error) {
	first, rel := ".", path
	if rel != "" && rel[0] == '/' {
		first, rel = "/", rel[1:]
	}
	fd, err := retryOpenat(dirfd, first, unix.O_PATH)
	if err != nil {
		return -1, err
	}
	for _, c := range splitComponents(rel) {
		if c == ".." {
			unix.Close(fd)
			return -1, unix.EXDEV
		}
		next, err := retryOpenat(fd, c, unix.O_PATH|unix.O_NOFOLLOW)
		if err == unix.ENOTDIR {
			var st unix.Stat_t
			if fstatatNoFollow(fd, c, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				err = unix.ELOOP
			}
		}
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	if flags == unix.O_PATH {
		return fd, nil
	}
	defer unix.Close(fd)
	return retryOpenat(fd, ".", flags)
}

func retryOpenat(dirfd int, name string, flags int) (int, error) {
	return eintr.Value(func() (int, error) {
		return unix.Openat(dirfd, name, flags|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
}

// splitComponents splits a relative path into its non-empty components
// other than ".".
func splitComponents(path string) []string {
	var out []string
	for len(path) > 0 {
		i := 0
		for i < len(path) && path[i] != '/' {
			i++
		}
		if c := path[:i]; c != "" && c != "." {
			out = append(out, c)
		}
		if i == len(path) {
			break
		}
		path = path[i+1:]
	}
	return out
}

// failedIn wraps an error of the open beneath the root for the operation
// op on path: an escape is Confine's refusal, anything else the operation's
// own failure.
func failedIn(op, path string, err error) error {
	if err == ErrEscapesRoot {
		return escapes(path)
	}
	return &PathError{Op: op, Path: path, Err: err}
}

func readDirIn(ctx context.Context, p place, path string, tol Tolerance) (Listing, error) {
	fd, err := openBeneath(p, p.target(), unix.O_RDONLY)
	if err != nil {
		return Listing{}, failedIn("readdir", path, err)
	}
	d := &dir{fd: fd, path: path}
	defer d.close()
	return list(ctx, d, path, tol)
}

func statIn(p place, path string) (Entry, error) {
	fd, err := openBeneath(p, p.dir, unix.O_PATH)
	if err != nil {
		return Entry{}, failedIn("stat", path, err)
	}
	defer unix.Close(fd)
	var scratch []byte
	e, op, err := describeAt(fd, p.name, &scratch)
	if err != nil {
		if op == "lstat" {
			op = "stat"
		}
		return Entry{}, &PathError{Op: op, Path: path, Err: err}
	}
	if p.mustDir && e.Kind != KindDir {
		return Entry{}, &PathError{Op: "stat", Path: path, Err: unix.ENOTDIR}
	}
	return e, nil
}

func chmodIn(p place, path string, mode uint32) error {
	fd, err := openBeneath(p, p.dir, unix.O_PATH)
	if err != nil {
		return failedIn("chmod", path, err)
	}
	defer unix.Close(fd)
	if p.mustDir {
		var st unix.Stat_t
		if err := fstatatNoFollow(fd, p.name, &st); err != nil {
			return &PathError{Op: "chmod", Path: path, Err: err}
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return &PathError{Op: "chmod", Path: path, Err: unix.ENOTDIR}
		}
	}
	if err := chmodNoFollowAt(fd, p.name, mode); err != nil {
		return &PathError{Op: "chmod", Path: path, Err: err}
	}
	return nil
}

func removeIn(p place, path string) error {
	fd, err := openBeneath(p, p.dir, unix.O_PATH)
	if err != nil {
		return failedIn("remove", path, err)
	}
	defer unix.Close(fd)
	return removeFailed(path, removeAt(fd, p.name))
}

func mkdirIn(p place, path string) error {
	fd, err := openBeneath(p, p.dir, unix.O_PATH)
	if err != nil {
		return failedIn("mkdir", path, err)
	}
	defer unix.Close(fd)
	return mkdirFailed(path, mkdirAt(fd, p.name))
}

func renameIn(pf, pt place, from, to string, overwrite bool) error {
	const op = "rename"
	failed := func(err error, sourceMissing func() bool) error {
		return &PathError{Op: op, Path: from, Path2: to, Err: explainRename(err, overwrite, sourceMissing)}
	}
	fromfd, err := openBeneath(pf, pf.dir, unix.O_PATH)
	if err == ErrEscapesRoot {
		return escapes(from)
	}
	if err != nil {
		return failed(err, func() bool { return err == unix.ENOENT })
	}
	defer unix.Close(fromfd)
	sourceMissing := func() bool {
		var st unix.Stat_t
		return fstatatNoFollow(fromfd, pf.name, &st) == unix.ENOENT
	}
	tofd, err := openBeneath(pt, pt.dir, unix.O_PATH)
	if err == ErrEscapesRoot {
		return escapes(to)
	}
	if err != nil {
		return failed(err, sourceMissing)
	}
	defer unix.Close(tofd)
	if overwrite {
		err = renameReplaceAt(fromfd, pf.name, tofd, pt.name)
	} else {
		err = renameNoReplaceAt(fromfd, pf.name, tofd, pt.name)
	}
	if err != nil {
		return failed(err, sourceMissing)
	}
	return nil
}
