package fsops

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Acceptance: "say what other platforms do" / a filesystem that rejects
// RENAME_NOREPLACE: the fallback (link+unlink for non-directories,
// check-then-rename for directories) still refuses an existing destination,
// still moves, and still moves a symlink as a link.
func TestRenameFallbackWithoutNoReplaceSupportKeepsTheContract(t *testing.T) {
	for _, errno := range []error{unix.EINVAL, unix.ENOSYS} {
		t.Run(Errno(errno), func(t *testing.T) {
			saved := renameat2
			calls := 0
			renameat2 = func(int, string, int, string, uint) error { calls++; return errno }
			t.Cleanup(func() { renameat2 = saved })

			root := fixture(t)
			ctx := context.Background()
			p := func(s string) string { return filepath.Join(root, s) }
			requireUnchanged(t, root, func() {
				requireErrno(t, Rename(ctx, p("a.txt"), p("b.txt"), false), "EEXIST")
				requireErrno(t, Rename(ctx, p("sub"), p("empty"), false), "EEXIST")
				requireErrno(t, Rename(ctx, p("missing"), p("x"), false), "ENOENT")
			})
			require.NoError(t, Rename(ctx, p("a.txt"), p("a2.txt"), false))
			require.Equal(t, "alpha", readString(t, p("a2.txt")))
			require.NoFileExists(t, p("a.txt"))
			require.NoError(t, Rename(ctx, p("sub"), p("sub2"), false))
			require.FileExists(t, p("sub2/c.txt"))
			require.NoError(t, Rename(ctx, p("dangling"), p("dangling2"), false))
			e, err := Stat(ctx, p("dangling2"))
			require.NoError(t, err)
			require.Equal(t, Entry{Name: "dangling2", Kind: KindSymlink, Size: 7, Mode: e.Mode, MTime: e.MTime, Target: "nowhere"}, e)
			require.NotZero(t, calls, "the fallback ran because the flag was refused")
		})
	}
}
