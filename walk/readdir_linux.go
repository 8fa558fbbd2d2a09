//go:build linux

package walk

import (
	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/internal/dirent"
	"github.com/pmacs-go/pmacs-go/internal/eintr"
)

// readDir lists path into dst with the getdents reader and the caller's reused buffer, and
// returns the directory's descriptor, still open (the caller closes it with closeDir), and
// its modification time (nanoseconds since the epoch), read from the open descriptor. On an
// error the descriptor is -1. stopped is polled between getdents calls.
func readDir(path string, buf []byte, dst []dirent.Entry, stopped func() bool) ([]dirent.Entry, int, int64, error) {
	fd, err := dirent.Open(path)
	if err != nil {
		return dst, -1, 0, err
	}
	var st unix.Stat_t
	if err := eintr.Retry(func() error { return unix.Fstat(fd, &st) }); err != nil {
		unix.Close(fd)
		return dst, -1, 0, err
	}
	for more := true; more && !stopped(); {
		if dst, more, err = dirent.Read(fd, buf, dst); err != nil {
			unix.Close(fd)
			return dst, -1, 0, err
		}
	}
	return dst, fd, st.Mtim.Nano(), nil
}

// closeDir closes a descriptor readDir returned; -1 is none.
func closeDir(fd int) {
	if fd >= 0 {
		unix.Close(fd)
	}
}
