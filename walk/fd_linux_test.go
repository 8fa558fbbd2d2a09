//go:build linux

package walk_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/walk"
)

// openFds counts the process's open descriptors.
func openFds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(ents)
}

// During a visit of a directory's files, Dir.Fd is that directory open: a file opened
// relative to it is the file at Path/name. After the walk every descriptor is closed and Fd
// says so.
func TestWalkHoldsTheDirectoryOpenForItsFileVisits(t *testing.T) {
	root := manyFiles(t, 500)
	require.NoError(t, os.WriteFile(filepath.Join(root, "d002", "f250.txt"), []byte("content of 250"), 0o644))
	before := openFds(t)
	var mu sync.Mutex
	var dirs []*walk.Dir
	files := 0
	err := walk.Walk(context.Background(), root, walk.Options{Fanout: 2}, func(_ int, d *walk.Dir, names []string) error {
		if names == nil {
			return nil
		}
		fd := d.Fd()
		if fd < 0 {
			return errors.New("no descriptor during a file visit")
		}
		for _, name := range names {
			var viaFd, viaPath unix.Stat_t
			if err := unix.Fstatat(fd, name, &viaFd, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				return err
			}
			if err := unix.Stat(filepath.Join(d.Path(), name), &viaPath); err != nil {
				return err
			}
			if viaFd.Ino != viaPath.Ino || viaFd.Dev != viaPath.Dev {
				return errors.New("the descriptor is not the directory at Path")
			}
		}
		mu.Lock()
		defer mu.Unlock()
		dirs = append(dirs, d)
		files += len(names)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 500, files)
	for _, d := range dirs {
		require.Equal(t, -1, d.Fd(), "directory %q after the walk", d.Rel())
	}
	require.Equal(t, before, openFds(t), "descriptors left open")
}

// A walk that stops early (a visit's error, a cancel, a panic in a visit) with batches of
// files still queued closes the directories it held open for them.
func TestWalkStoppedEarlyClosesTheDirectoriesItHeld(t *testing.T) {
	root := manyFiles(t, 2000)
	before := openFds(t)
	boom := errors.New("boom")
	err := walk.Walk(context.Background(), root, walk.Options{Fanout: 2}, func(_ int, _ *walk.Dir, names []string) error {
		if names != nil {
			return boom
		}
		return nil
	})
	require.ErrorIs(t, err, boom)
	require.Equal(t, before, openFds(t), "after a visit's error")

	ctx, cancel := context.WithCancel(context.Background())
	err = walk.Walk(ctx, root, walk.Options{Fanout: 2}, func(_ int, _ *walk.Dir, names []string) error {
		if names != nil {
			cancel()
		}
		return nil
	})
	cancel()
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, before, openFds(t), "after a cancel")

	require.PanicsWithValue(t, "visit failed", func() {
		_ = walk.Walk(context.Background(), root, walk.Options{Fanout: 2}, func(_ int, _ *walk.Dir, names []string) error {
			if names != nil {
				panic("visit failed")
			}
			return nil
		})
	})
	require.Equal(t, before, openFds(t), "after a panic")
}

// Past the bound on held directories the walk closes a directory at once: its file visits
// see no descriptor (and open by path), and the listing is the same.
func TestWalkPastTheHeldBoundOffersNoDescriptor(t *testing.T) {
	root := manyFiles(t, 500)
	want := list(t, root, walk.Options{Fanout: 2}).files
	defer walk.SetMaxHeldDirsForTest(0)()
	var mu sync.Mutex
	var got []string
	err := walk.Walk(context.Background(), root, walk.Options{Fanout: 2}, func(_ int, d *walk.Dir, names []string) error {
		if names != nil && d.Fd() != -1 {
			return errors.New("a descriptor past the bound")
		}
		mu.Lock()
		defer mu.Unlock()
		for _, n := range names {
			got = append(got, d.Join(n))
		}
		return nil
	})
	require.NoError(t, err)
	require.ElementsMatch(t, want, got)
}
