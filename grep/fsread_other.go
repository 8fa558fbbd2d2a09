//go:build !linux

package grep

import (
	"errors"
	"io"
	"os"
)

// errNotRegular refuses a file that is no longer a regular one.
var errNotRegular = errors.New("not a regular file")

// file is a file open for reading.
type file struct{ f *os.File }

// openFile opens the file name in the directory dirPath, by path. Without
// the Linux version's open relative to the directory, which refuses what is
// not a regular file, a file swapped since it was listed is told by its
// mode here.
func openFile(_ int, dirPath, name string) (file, error) {
	f, err := os.Open(dirPath + "/" + name)
	if err != nil {
		return file{}, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return file{}, errNotRegular
	}
	return file{f}, nil
}

// read reads as the Linux version does: 0 and no error at the end of the file.
func (f file) read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	if err == io.EOF {
		err = nil
	}
	return n, err
}

func (f file) readAt(p []byte, off int64) (int, error) {
	n, err := f.f.ReadAt(p, off)
	if err == io.EOF {
		err = nil
	}
	return n, err
}

// stat returns the file's size and whether it is a regular file.
func (f file) stat() (int64, bool, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return 0, false, err
	}
	return fi.Size(), fi.Mode().IsRegular(), nil
}

func (f file) close() { f.f.Close() }
