//go:build linux

package fsops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Issue 11 defect 8: confinement must hold against a symlink swapped into a
// parent directory between the check and the operation. One goroutine
// exchanges root/d (a real directory) with root/swap (a symlink to a
// directory outside the root) as fast as it can, atomically with
// renameat2(RENAME_EXCHANGE), while the test goroutine runs every confined
// operation on paths under root/d. Outside holds a sentinel file and a file
// no listing inside has: nothing outside may be listed, described, renamed,
// chmodded or removed.
func TestConfinedOperationsNeverEscapeWhileAParentIsSwappedForASymlink(t *testing.T) {
	t.Run("openat2", confinedOperationsNeverEscape)
	t.Run("component walk without openat2", func(t *testing.T) {
		withoutOpenat2(t)
		confinedOperationsNeverEscape(t)
	})
}

// withoutOpenat2 plays a kernel older than 5.6 for the rest of the test.
func withoutOpenat2(t *testing.T) {
	saved := openat2
	openat2 = func(int, string, *unix.OpenHow) (int, error) { return -1, unix.ENOSYS }
	t.Cleanup(func() { openat2 = saved })
}

func confinedOperationsNeverEscape(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "d"), 0o755))
	require.NoError(t, os.Mkdir(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "d", "secret"), []byte("i"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("SENTINEL"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "only-outside"), []byte("x"), 0o600))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "swap")))
	outsideBefore := snapshot(t, outside)

	stopSwapping := startSwapping(t, filepath.Join(root, "d"), filepath.Join(root, "swap"))

	roots := Roots{root}
	ctx := context.Background()
	d := func(name string) string { return filepath.Join(root, "d", name) }
	var escapes []string
	var succeeded, refused int
	tally := func(err error) {
		switch {
		case err == nil:
			succeeded++
		case errors.Is(err, ErrEscapesRoot):
			refused++
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; i < 500 || (succeeded == 0 || refused == 0) && time.Now().Before(deadline); i++ {
		l, err := roots.ReadDir(ctx, d(""), PerEntry)
		tally(err)
		for _, e := range l.Entries {
			if e.Name == "only-outside" {
				escapes = append(escapes, "ReadDir listed the outside directory")
			}
		}
		e, err := roots.Stat(ctx, d("secret"))
		tally(err)
		if err == nil && e.Size == int64(len("SENTINEL")) {
			escapes = append(escapes, "Stat described the outside sentinel")
		}
		tally(roots.Chmod(ctx, d("secret"), 0o640|uint32(i%2)<<2))
		tally(roots.Rename(ctx, d("secret"), d("moved"), false))
		tally(roots.Rename(ctx, d("moved"), d("secret"), false))
		tally(roots.Remove(ctx, d("only-outside")))
		if len(escapes) > 0 {
			break
		}
	}
	stopSwapping()
	require.Empty(t, escapes)
	require.Equal(t, outsideBefore, snapshot(t, outside), "an operation touched the directory outside the root")
	require.NotZero(t, succeeded, "no operation ever ran on the real directory: the race was not exercised")
	t.Logf("%d operations succeeded, %d were refused as escapes", succeeded, refused)
	require.NotZero(t, refused, "no operation ever saw the swapped-in link: the race was not exercised")
}
