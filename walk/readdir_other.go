//go:build !linux

package walk

import (
	"io"
	"os"

	"github.com/pmacs-go/pmacs-go/internal/dirent"
)

func readDir(path string, _ []byte, dst []dirent.Entry, stopped func() bool) ([]dirent.Entry, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return dst, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return dst, 0, err
	}
	for !stopped() {
		ents, err := f.ReadDir(256)
		for _, de := range ents {
			e := dirent.Entry{Name: de.Name()}
			switch t := de.Type(); {
			case t.IsRegular():
				e.Type = dirent.File
			case t.IsDir():
				e.Type = dirent.Dir
			case t&os.ModeSymlink != 0:
				e.Type = dirent.Symlink
			}
			dst = append(dst, e)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return dst, 0, err
		}
	}
	return dst, fi.ModTime().UnixNano(), nil
}
