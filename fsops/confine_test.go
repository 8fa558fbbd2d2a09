//go:build unix

package fsops

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// confineFixture is base/root (the fixture tree plus links that lead out)
// and base/outside/secret, the file an escape would reach.
func confineFixture(t *testing.T) (base, root, outside string) {
	t.Helper()
	base = t.TempDir()
	root = filepath.Join(base, "root")
	outside = filepath.Join(base, "outside")
	require.NoError(t, os.Rename(fixture(t), root))
	require.NoError(t, os.Mkdir(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600))
	require.NoError(t, os.Symlink("../outside", filepath.Join(root, "out")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "absout")))
	require.NoError(t, os.Symlink("root", filepath.Join(base, "rootlink")))
	return base, root, outside
}

// Acceptance: confinement lets through every path that really lies inside a
// root, including a symlink entry whatever it points at (Confine does not
// follow the final component) and paths through links that stay inside.
func TestConfineAcceptsPathsThatResolveInsideARoot(t *testing.T) {
	base, root, _ := confineFixture(t)
	roots := []string{root}
	for _, p := range []string{
		root,
		root + "/",
		filepath.Join(root, "a.txt"),
		filepath.Join(root, "sub", "c.txt"),
		root + "/sub/../a.txt",
		filepath.Join(root, "missing"),
		filepath.Join(root, "missing", "deeper"),
		filepath.Join(root, "dirlink", "c.txt"),
		filepath.Join(root, "out"),      // the link itself is inside
		filepath.Join(root, "dangling"), // so is a dangling one
		filepath.Join(base, "rootlink", "a.txt"),
	} {
		require.NoError(t, Confine(roots, p), p)
	}
	require.NoError(t, Confine([]string{filepath.Join(base, "rootlink")}, filepath.Join(root, "a.txt")),
		"a root given through a symlink is resolved too")
	require.NoError(t, ConfineFollow(roots, filepath.Join(root, "dirlink")))
}

// Acceptance: "A path that escapes (.., an absolute path elsewhere, a
// symlinked parent pointing outside) fails before anything is touched".
func TestConfineRefusesEveryEscapeAndTouchesNothing(t *testing.T) {
	base, root, outside := confineFixture(t)
	roots := []string{root}
	secret := filepath.Join(outside, "secret")
	cases := map[string]string{
		"dot-dot":                           root + "/../outside/secret",
		"dot-dot after a subdirectory":      root + "/sub/../../outside/secret",
		"dot-dot after a missing dir":       root + "/missing/../../outside/secret",
		"absolute path elsewhere":           secret,
		"the filesystem root":               "/",
		"relative symlinked parent":         filepath.Join(root, "out", "secret"),
		"absolute symlinked parent":         filepath.Join(root, "absout", "secret"),
		"missing path under an escape":      filepath.Join(root, "out", "missing", "x"),
		"trailing slash follows the link":   filepath.Join(root, "out") + "/",
		"dot-dot applied after the link":    filepath.Join(root, "out") + "/..",
		"a sibling sharing the root's name": root + "2/x",
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			requireUnchanged(t, base, func() {
				err := Confine(roots, p)
				require.ErrorIs(t, err, ErrEscapesRoot, p)
				requireErrno(t, err, "EACCES")
				var pe *PathError
				require.ErrorAs(t, err, &pe)
				require.Equal(t, "confine", pe.Op)
				require.Equal(t, p, pe.Path)
			})
		})
	}
	require.ErrorIs(t, Confine(nil, filepath.Join(root, "a.txt")), ErrEscapesRoot, "no roots confines everything out")
	require.ErrorIs(t, ConfineFollow(roots, filepath.Join(root, "out")), ErrEscapesRoot,
		"a listing would follow the link, so ConfineFollow refuses it")
	require.ErrorIs(t, Confine(roots, ""), ErrEmptyPath)
	require.ErrorIs(t, Confine(roots, root+"/\x00"), ErrNULInPath)
}

// Acceptance: "symlink swapped in after the check, where the platform allows
// a test of it". Confine judges the tree as it is when called: once a
// directory inside the root is swapped for a link leading out, the same path
// is refused. Confine alone cannot protect an operation already cleared by
// an earlier check; Roots can, which
// TestConfinedOperationsNeverEscapeWhileAParentIsSwappedForASymlink proves.
func TestConfineRefusesAPathOnceASymlinkIsSwappedInForItsParent(t *testing.T) {
	base, root, outside := confineFixture(t)
	roots := []string{root}
	target := filepath.Join(root, "sub", "secret")
	require.NoError(t, Confine(roots, target))

	require.NoError(t, os.Rename(filepath.Join(root, "sub"), filepath.Join(base, "sub-away")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "sub")))

	requireUnchanged(t, base, func() {
		require.ErrorIs(t, Confine(roots, target), ErrEscapesRoot)
		require.ErrorIs(t, Confine(roots, filepath.Join(root, "sub", "missing", "x")), ErrEscapesRoot)
		require.NoError(t, Confine(roots, filepath.Join(root, "sub")), "the swapped-in link itself may still be removed")
	})
	require.NoError(t, Remove(context.Background(), filepath.Join(root, "sub")))
	require.FileExists(t, filepath.Join(outside, "secret"), "removing the link never touches what it points at")
}
