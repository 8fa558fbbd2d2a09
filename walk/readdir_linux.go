//go:build linux

package walk

import (
	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/internal/dirent"
	"github.com/pmacs-go/pmacs-go/internal/eintr"
)

// readDir lists path into dst with the getdents reader and the caller's reused buffer, and
// returns the directory's modification time (nanoseconds since the epoch), read from the open
// descriptor. stopped is polled between getdents calls.
func readDir(path string, buf []byte, dst []dirent.Entry, stopped func() bool) ([]dirent.Entry, int64, error) {
	fd, err := dirent.Open(path)
	if err != nil {
		return dst, 0, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := eintr.Retry(func() error { return unix.Fstat(fd, &st) }); err != nil {
		return dst, 0, err
	}
	for more := true; more && !stopped(); {
		if dst, more, err = dirent.Read(fd, buf, dst); err != nil {
			return dst, 0, err
		}
	}
	return dst, st.Mtim.Nano(), nil
}
