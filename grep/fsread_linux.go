//go:build linux

package grep

import (
	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/internal/eintr"
)

// file is a file open for reading: a bare descriptor, with no os.File and its poller
// registration.
type file struct{ fd int }

// openFile opens the file name in the directory dirPath. dirfd, when not -1, is that
// directory open: the file is opened relative to it, which spares the kernel a lookup of
// every component of dirPath. Symlinks are not followed.
func openFile(dirfd int, dirPath, name string) (file, error) {
	// O_NONBLOCK: should a fifo replace the file after the walk saw it, open and read must not
	// block (it changes nothing for a regular file).
	const flags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK
	fd, err := eintr.Value(func() (int, error) {
		if dirfd < 0 {
			return unix.Open(dirPath+"/"+name, flags, 0)
		}
		return unix.Openat(dirfd, name, flags, 0)
	})
	return file{fd}, err
}

func (f file) read(p []byte) (int, error) {
	return eintr.Value(func() (int, error) { return unix.Read(f.fd, p) })
}

func (f file) readAt(p []byte, off int64) (int, error) {
	return eintr.Value(func() (int, error) { return unix.Pread(f.fd, p, off) })
}

// stat returns the file's size and whether it is a regular file.
func (f file) stat() (int64, bool, error) {
	var st unix.Stat_t
	if err := eintr.Retry(func() error { return unix.Fstat(f.fd, &st) }); err != nil {
		return 0, false, err
	}
	return st.Size, st.Mode&unix.S_IFMT == unix.S_IFREG, nil
}

func (f file) close() { unix.Close(f.fd) }
