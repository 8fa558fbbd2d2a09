package fsops

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// withoutFchmodat2 plays a kernel older than 6.6, where x/sys answers a
// no-follow chmod with EOPNOTSUPP, for the rest of the test.
func withoutFchmodat2(t *testing.T) {
	saved := fchmodat
	fchmodat = func(dirfd int, path string, mode uint32, flags int) error {
		if flags&unix.AT_SYMLINK_NOFOLLOW != 0 {
			return unix.EOPNOTSUPP
		}
		return saved(dirfd, path, mode, flags)
	}
	t.Cleanup(func() { fchmodat = saved })
}

// Acceptance: without fchmodat2, Chmod still sets a file's mode and still
// refuses a symlink, confined or not.
func TestChmodWithoutFchmodat2KeepsTheContract(t *testing.T) {
	withoutFchmodat2(t)
	root := fixture(t)
	ctx := context.Background()
	for name, chmod := range map[string]func(string, uint32) error{
		"unconfined": func(p string, m uint32) error { return Chmod(ctx, p, m) },
		"confined":   func(p string, m uint32) error { return Roots{root}.Chmod(ctx, p, m) },
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, chmod(filepath.Join(root, "a.txt"), 0o640))
			fi, err := os.Lstat(filepath.Join(root, "a.txt"))
			require.NoError(t, err)
			require.EqualValues(t, 0o640, fi.Mode().Perm())
			requireUnchanged(t, root, func() {
				requireErrno(t, chmod(filepath.Join(root, "link"), 0o600), "ENOTSUP")
				requireErrno(t, chmod(filepath.Join(root, "missing"), 0o600), "ENOENT")
			})
		})
	}
}

// Without fchmodat2, Chmod checks that the final component is not a
// symlink and then changes the mode. A file exchanged for a symlink to a
// file outside between the two must not lead the chmod to that file: one
// goroutine exchanges root/f (a file) with root/l (a symlink to the outside
// sentinel) while the test goroutine chmods root/f through Roots in a loop.
func TestChmodWithoutFchmodat2NeverFollowsASymlinkSwappedIn(t *testing.T) {
	withoutFchmodat2(t)
	base := t.TempDir()
	root := filepath.Join(base, "root")
	sentinel := filepath.Join(base, "sentinel")
	require.NoError(t, os.Mkdir(root, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "f"), []byte("inside"), 0o600))
	require.NoError(t, os.WriteFile(sentinel, []byte("outside"), 0o600))
	require.NoError(t, os.Chmod(sentinel, 0o600))
	require.NoError(t, os.Symlink(sentinel, filepath.Join(root, "l")))

	stopSwapping := startSwapping(t, filepath.Join(root, "f"), filepath.Join(root, "l"))

	ctx := context.Background()
	var changed, refused int
	for i := 0; i < 2000 && changed < 100; i++ {
		err := Roots{root}.Chmod(ctx, filepath.Join(root, "f"), 0o644)
		if err == nil {
			changed++
		} else if Errno(err) == "ENOTSUP" {
			refused++
		}
		fi, lerr := os.Stat(sentinel)
		require.NoError(t, lerr)
		require.EqualValues(t, 0o600, fi.Mode().Perm(), "iteration %d: the chmod followed the swapped-in link outside", i)
	}
	stopSwapping()
	t.Logf("%d chmods changed the file, %d refused the link", changed, refused)
	require.NotZero(t, changed+refused, "no chmod ran against the swapping tree")
}
