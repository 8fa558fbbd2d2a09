//go:build unix

package trust

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Workspace trust: a change never waits for ever on another process that
// holds the database's lock (a hung editor). A second open of the lock
// file holds it as another process would (flock locks belong to the open
// file description); the change gives up with ErrLocked, naming the lock
// file, writes nothing, and reads still work. Once the lock is released,
// the change goes through.
func TestChangeGivesUpOnALockHeldByAnotherProcess(t *testing.T) {
	db := openDB(t)
	folder := project(t, nil)
	_, err := db.Allow(project(t, nil)) // makes the directory and the lock file
	require.NoError(t, err)
	before, err := os.ReadFile(db.Path())
	require.NoError(t, err)

	holder, err := os.OpenFile(db.Path()+".lock", os.O_RDWR, 0)
	require.NoError(t, err)
	defer holder.Close()
	require.NoError(t, unix.Flock(int(holder.Fd()), unix.LOCK_EX))

	done := make(chan error, 1)
	go func() {
		_, err := db.Allow(folder)
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		require.NoError(t, unix.Flock(int(holder.Fd()), unix.LOCK_UN))
		<-done
		t.Fatal("Allow waited 30 s for a lock another process held")
	}
	require.ErrorIs(t, err, ErrLocked)
	require.ErrorIs(t, err, syscall.EWOULDBLOCK)
	require.ErrorContains(t, err, "trust.json.lock was still held after 2s")
	after, rerr := os.ReadFile(db.Path())
	require.NoError(t, rerr)
	require.Equal(t, before, after, "nothing written")
	require.Equal(t, Untrusted, status(t, db, folder).Status, "reads need no lock")

	require.NoError(t, unix.Flock(int(holder.Fd()), unix.LOCK_UN))
	r, err := db.Allow(folder)
	require.NoError(t, err)
	require.Equal(t, Trusted, r.Status)
}
