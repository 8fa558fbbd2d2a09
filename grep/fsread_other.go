//go:build !linux

package grep

import (
	"io"
	"os"
)

// file is a file open for reading.
type file struct{ f *os.File }

// openFile opens the file name in the directory dirPath, by path.
func openFile(_ int, dirPath, name string) (file, error) {
	f, err := os.Open(dirPath + "/" + name)
	return file{f}, err
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
