//go:build unix

package trust

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive flock on the file at p (made 0600 if
// missing), waiting for another process's change to finish; the func it
// returns releases it.
func lockFile(p string) (func(), error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	for {
		err = unix.Flock(fd, unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		unix.Flock(fd, unix.LOCK_UN)
		f.Close()
	}, nil
}

// othersMayWrite says why a database file that others may write cannot be
// believed: another user could trust folders in the owner's name.
func othersMayWrite(fi os.FileInfo) string {
	if fi.Mode().Perm()&0o022 != 0 {
		return "group or others may write it (chmod 600 it if you trust its contents)"
	}
	return ""
}
