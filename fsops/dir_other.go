//go:build !linux

package fsops

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// dir is an open directory read through the os package; entries are
// described by joined path, which is portable if slower than Linux's
// descriptor-relative lstat.
type dir struct {
	f    *os.File
	path string
	// root, when set, is the listed directory opened as an os.Root: a
	// confined listing describes its entries through it, never by path.
	root *os.Root
}

// nameBatch is how many names one Readdirnames call returns, and so the
// cancellation granularity of the name phase.
const nameBatch = 256

func openDir(path string) (*dir, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, osCause(err)
	}
	return &dir{f: f, path: path}, nil
}

func (d *dir) close() { _ = d.f.Close() }

func (d *dir) readNames(ctx context.Context, op string) ([]string, error) {
	var names []string
	for {
		if err := checkCancel(ctx, op, d.path, ""); err != nil {
			return nil, err
		}
		batch, err := d.f.Readdirnames(nameBatch)
		names = append(names, batch...)
		if err == io.EOF {
			return names, nil
		}
		if err != nil {
			return nil, &PathError{Op: op, Path: d.path, Err: osCause(err)}
		}
	}
}

func (d *dir) describe(name string) (Entry, string, error) {
	var e Entry
	var op string
	var err error
	if d.root != nil {
		e, op, err = lstatIn(d.root, name)
	} else {
		e, op, err = lstatPath(filepath.Join(d.path, name))
	}
	e.Name = name
	return e, op, err
}

func lstatPath(path string) (Entry, string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return Entry{}, "lstat", osCause(err)
	}
	return describeInfo(fi, func() (string, error) { return os.Readlink(path) })
}

// lstatIn is lstatPath for name inside root.
func lstatIn(root *os.Root, name string) (Entry, string, error) {
	fi, err := root.Lstat(name)
	if err != nil {
		return Entry{}, "lstat", osCause(err)
	}
	return describeInfo(fi, func() (string, error) { return root.Readlink(name) })
}

func describeInfo(fi fs.FileInfo, readlink func() (string, error)) (Entry, string, error) {
	var err error
	m := fi.Mode()
	e := Entry{
		Name:  fi.Name(),
		Size:  fi.Size(),
		Mode:  modeBits(m),
		MTime: fi.ModTime().UnixNano(),
	}
	switch {
	case m.IsRegular():
		e.Kind = KindFile
	case m.IsDir():
		e.Kind = KindDir
	case m&fs.ModeSymlink != 0:
		e.Kind = KindSymlink
		if e.Target, err = readlink(); err != nil {
			return Entry{}, "readlink", osCause(err)
		}
	default:
		e.Kind = KindOther
	}
	return e, "", nil
}

// modeBits converts Go's FileMode to chmod's octal layout.
func modeBits(m fs.FileMode) uint32 {
	b := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		b |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		b |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		b |= 0o1000
	}
	return b
}

// fileMode is modeBits' inverse, for os.Chmod.
func fileMode(b uint32) fs.FileMode {
	m := fs.FileMode(b & 0o777)
	if b&0o4000 != 0 {
		m |= fs.ModeSetuid
	}
	if b&0o2000 != 0 {
		m |= fs.ModeSetgid
	}
	if b&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// osCause strips the os package's own path wrapper: PathError carries the
// op and path itself.
func osCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
