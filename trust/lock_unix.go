//go:build unix

package trust

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// lockWait bounds the wait for another process's change: one holds the
// lock for a read, a rename and an fsync, so a lock held longer belongs
// to a process that hung holding it (an editor stopped in a debugger, a
// stuck disk), which must not hang this one too.
const lockWait = 2 * time.Second

// lockFile takes an exclusive flock on the file at p (made 0600 if
// missing), waiting at most lockWait for another process's change to
// finish; the func it returns releases it. A lock still held then is an
// error wrapping ErrLocked and the errno.
func lockFile(p string) (func(), error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	deadline := time.Now().Add(lockWait)
	pause := time.Millisecond
	for {
		err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w: %s was still held after %v (%w)", ErrLocked, filepath.Base(p), lockWait, err)
		}
		time.Sleep(min(pause, time.Until(deadline)))
		pause = min(2*pause, 50*time.Millisecond)
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
