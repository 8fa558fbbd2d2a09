//go:build linux

package grep

import (
	"bytes"

	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/internal/eintr"
)

// firstRead is the size of a file's first read: most source files fit in it whole.
const firstRead = 128 << 10

// readFile reads the regular file name in the directory dirPath whole into buf (grown as
// needed). dirfd, when not -1, is that directory open: the file is opened relative to it,
// which spares the kernel a lookup of every component of dirPath. A file that fits in the
// first read costs open, read and close: no os.File and its poller registration, no fstat, no
// fresh buffer. A short read of a regular file is its end; only a file that fills the first
// read is fstat'ed for its size. It returns fileOversize for a file larger than maxBytes,
// fileBinary for a NUL in its first binaryProbe bytes and fileUnreadable for one it cannot read.
func readFile(dirfd int, dirPath, name string, buf []byte, maxBytes int64, stopped func() bool) ([]byte, []byte, fileStatus) {
	// O_NONBLOCK: should a fifo replace the file after the walk saw it, open and read must not
	// block (it changes nothing for a regular file).
	const flags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK
	fd, err := eintr.Value(func() (int, error) {
		if dirfd < 0 {
			return unix.Open(dirPath+"/"+name, flags, 0)
		}
		return unix.Openat(dirfd, name, flags, 0)
	})
	if err != nil {
		return nil, buf, fileUnreadable
	}
	defer unix.Close(fd)
	if cap(buf) < firstRead {
		buf = make([]byte, firstRead)
	}
	want := int(min(int64(firstRead), maxBytes+1)) // one byte past maxBytes tells an oversize file
	n, err := readRetry(fd, buf[:want])
	if err != nil {
		return nil, buf, fileUnreadable
	}
	if n < want {
		data := buf[:n]
		if bytes.IndexByte(data[:min(n, binaryProbe)], 0) >= 0 {
			return nil, buf, fileBinary
		}
		return data, buf, fileOK
	}
	var st unix.Stat_t
	if eintr.Retry(func() error { return unix.Fstat(fd, &st) }) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, buf, fileUnreadable
	}
	if st.Size > maxBytes {
		return nil, buf, fileOversize
	}
	if bytes.IndexByte(buf[:min(n, binaryProbe)], 0) >= 0 {
		return nil, buf, fileBinary
	}
	size := max(int(st.Size), n)
	if cap(buf) < size {
		grown := make([]byte, size+size/8)
		copy(grown, buf[:n])
		buf = grown
	}
	data := buf[:size]
	for n < size {
		if stopped() {
			return nil, buf, fileStopped
		}
		m, err := readRetry(fd, data[n:min(size, n+readChunk)])
		if err != nil {
			return nil, buf, fileUnreadable
		}
		if m == 0 {
			break // the file shrank since fstat
		}
		n += m
	}
	return data[:n], buf, fileOK
}

func readRetry(fd int, p []byte) (int, error) {
	return eintr.Value(func() (int, error) { return unix.Read(fd, p) })
}
