//go:build !linux

package grep

import (
	"bytes"
	"io"
	"os"
)

// readFile reads the regular file name in the directory dirPath whole into buf (grown as
// needed), as the Linux version does, with the same statuses; it opens the file by path.
func readFile(_ int, dirPath, name string, buf []byte, maxBytes int64, stopped func() bool) ([]byte, []byte, fileStatus) {
	f, err := os.Open(dirPath + "/" + name)
	if err != nil {
		return nil, buf, fileUnreadable
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, buf, fileUnreadable
	}
	if fi.Size() > maxBytes {
		return nil, buf, fileOversize
	}
	size := int(fi.Size())
	if cap(buf) < size {
		buf = make([]byte, size+size/8)
	}
	data := buf[:size]
	n := 0
	for n < size {
		if stopped() {
			return nil, buf, fileStopped
		}
		m, err := f.Read(data[n:min(size, n+readChunk)])
		n += m
		if err == io.EOF || (err == nil && m == 0) {
			break
		}
		if err != nil {
			return nil, buf, fileUnreadable
		}
	}
	data = data[:n]
	if bytes.IndexByte(data[:min(n, binaryProbe)], 0) >= 0 {
		return nil, buf, fileBinary
	}
	return data, buf, fileOK
}
