//go:build !linux

package walk

import (
	"io"
	"os"
)

func readDir(path string, _ []byte, dst []dirEntry, stopped func() bool) ([]dirEntry, int64, error) {
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
			e := dirEntry{name: de.Name()}
			switch t := de.Type(); {
			case t.IsRegular():
				e.kind = kindFile
			case t.IsDir():
				e.kind = kindDir
			case t&os.ModeSymlink != 0:
				e.kind = kindSymlink
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
