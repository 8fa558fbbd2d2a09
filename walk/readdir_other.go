//go:build !linux

package walk

import (
	"io"
	"os"

	"github.com/pmacs-go/pmacs-go/internal/dirent"
)

// readDir lists path into dst and returns its modification time. It keeps no descriptor
// open: the descriptor it returns is always -1.
func readDir(path string, _ []byte, dst []dirent.Entry, stopped func() bool) ([]dirent.Entry, int, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return dst, -1, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return dst, -1, 0, err
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
			return dst, -1, 0, err
		}
	}
	return dst, -1, fi.ModTime().UnixNano(), nil
}

func closeDir(int) {}
