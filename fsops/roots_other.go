//go:build !linux

package fsops

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openPlace opens p.anchor as an os.Root and then rel beneath it: os.Root
// refuses any step that leaves it, which is returned as ErrEscapesRoot.
func openPlace(p place, rel string) (*os.Root, error) {
	r, err := os.OpenRoot(p.anchor)
	if err != nil {
		return nil, osCause(err)
	}
	if rel == "." {
		return r, nil
	}
	defer r.Close()
	sub, err := r.OpenRoot(rel)
	if err != nil {
		return nil, rootCause(err)
	}
	return sub, nil
}

// rootCause is osCause for an os.Root error. os.Root does not export its
// escape error, so it is recognised by its text.
func rootCause(err error) error {
	err = osCause(err)
	if err != nil && err.Error() == "path escapes from parent" {
		return ErrEscapesRoot
	}
	return err
}

func failedIn(op, path string, err error) error {
	if err == ErrEscapesRoot {
		return escapes(path)
	}
	return &PathError{Op: op, Path: path, Err: err}
}

func readDirIn(ctx context.Context, p place, path string, tol Tolerance) (Listing, error) {
	r, err := openPlace(p, p.target())
	if err != nil {
		return Listing{}, failedIn("readdir", path, err)
	}
	defer r.Close()
	f, err := r.Open(".")
	if err != nil {
		return Listing{}, failedIn("readdir", path, rootCause(err))
	}
	d := &dir{f: f, path: path, root: r}
	defer d.close()
	return list(ctx, d, path, tol)
}

func statIn(p place, path string) (Entry, error) {
	r, err := openPlace(p, p.dir)
	if err != nil {
		return Entry{}, failedIn("stat", path, err)
	}
	defer r.Close()
	e, op, err := lstatIn(r, p.name)
	if err != nil {
		if op == "lstat" {
			op = "stat"
		}
		return Entry{}, &PathError{Op: op, Path: path, Err: rootCause(err)}
	}
	if p.mustDir && e.Kind != KindDir {
		return Entry{}, &PathError{Op: "stat", Path: path, Err: syscall.ENOTDIR}
	}
	return e, nil
}

// chmodIn is lstat-then-chmod, with the race Chmod documents.
func chmodIn(p place, path string, mode uint32) error {
	r, err := openPlace(p, p.dir)
	if err != nil {
		return failedIn("chmod", path, err)
	}
	defer r.Close()
	fi, err := r.Lstat(p.name)
	if err == nil && p.mustDir && !fi.IsDir() {
		err = syscall.ENOTDIR
	} else if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		err = errSymlinkMode(syscall.ENOTSUP)
	} else if err == nil {
		err = r.Chmod(p.name, fileMode(mode))
	}
	if err != nil {
		return &PathError{Op: "chmod", Path: path, Err: rootCause(err)}
	}
	return nil
}

func removeIn(p place, path string) error {
	r, err := openPlace(p, p.dir)
	if err != nil {
		return failedIn("remove", path, err)
	}
	defer r.Close()
	return removeFailed(path, rootCause(r.Remove(p.name)))
}

func mkdirIn(p place, path string) error {
	r, err := openPlace(p, p.dir)
	if err != nil {
		return failedIn("mkdir", path, err)
	}
	defer r.Close()
	return mkdirFailed(path, rootCause(r.Mkdir(p.name, 0o777)))
}

// renameIn renames within one anchor only: os.Root cannot rename between
// two, so a rename from one root to another fails with EXDEV. Without
// overwrite it is check-then-rename, as Rename documents.
func renameIn(pf, pt place, from, to string, overwrite bool) error {
	failed := func(err error, r *os.Root) error {
		return &PathError{Op: "rename", Path: from, Path2: to, Err: explainRename(err, overwrite, func() bool {
			if r == nil {
				return false
			}
			_, lerr := r.Lstat(pf.target())
			return errors.Is(lerr, fs.ErrNotExist)
		})}
	}
	if pf.anchor != pt.anchor {
		return failed(syscall.EXDEV, nil)
	}
	r, err := openPlace(pf, ".")
	if err != nil {
		return failedIn("rename", from, err)
	}
	defer r.Close()
	if !overwrite {
		if _, err := r.Lstat(pf.target()); err != nil {
			return failed(rootCause(err), r)
		}
		if _, err := r.Lstat(pt.target()); err == nil {
			return failed(syscall.EEXIST, r)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return failed(rootCause(err), r)
		}
	}
	if err := rootCause(r.Rename(pf.target(), pt.target())); err != nil {
		if err == ErrEscapesRoot {
			return escapes(from)
		}
		return failed(err, r)
	}
	return nil
}
