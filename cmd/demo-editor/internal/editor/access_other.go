//go:build !unix

package editor

import "os"

// canWrite reports whether the file at path can be opened for writing.
func canWrite(path string) bool {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
