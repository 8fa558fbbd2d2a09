//go:build unix

package fsops

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// node is one path of a tree snapshot: everything a failed operation could
// have changed or lost.
type node struct {
	Kind   string
	Size   int64
	Mode   fs.FileMode
	Hash   string // sha256 of a regular file's contents
	Target string // symlink target
}

// snapshot records every path under root (root included), without
// following symlinks.
func snapshot(t testing.TB, root string) map[string]node {
	t.Helper()
	out := map[string]node{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		rel, err := filepath.Rel(root, p)
		require.NoError(t, err)
		n := node{Size: fi.Size(), Mode: fi.Mode()}
		switch {
		case fi.Mode().IsRegular():
			n.Kind = "file"
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			sum := sha256.Sum256(b)
			n.Hash = hex.EncodeToString(sum[:])
		case fi.IsDir():
			n.Kind = "dir"
			n.Size = 0 // a directory's size changes with entries it once had
		case fi.Mode()&fs.ModeSymlink != 0:
			n.Kind = "symlink"
			n.Target, err = os.Readlink(p)
			require.NoError(t, err)
		default:
			n.Kind = "other"
		}
		out[rel] = n
		return nil
	})
	require.NoError(t, err)
	return out
}

// requireUnchanged runs f and proves that the tree under root is exactly as
// it was before: nothing changed, nothing lost, nothing added.
func requireUnchanged(t *testing.T, root string, f func()) {
	t.Helper()
	before := snapshot(t, root)
	f()
	require.Equal(t, before, snapshot(t, root), "tree changed under a failing operation")
}

// fixture builds a small tree with one of each kind of entry:
//
//	a.txt "alpha" 0644, b.txt "bravo" 0600, exec.sh 0755,
//	sub/ (c.txt), empty/, link -> a.txt, dangling -> nowhere,
//	dirlink -> sub, fifo (a named pipe).
func fixture(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	write := func(name, body string, mode fs.FileMode) {
		p := filepath.Join(root, name)
		require.NoError(t, os.WriteFile(p, []byte(body), mode))
		require.NoError(t, os.Chmod(p, mode)) // umask-proof
	}
	require.NoError(t, os.Mkdir(filepath.Join(root, "sub"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(root, "empty"), 0o755))
	write("a.txt", "alpha", 0o644)
	write("b.txt", "bravo", 0o600)
	write("exec.sh", "#!/bin/sh\n", 0o755)
	write("sub/c.txt", "charlie", 0o644)
	require.NoError(t, os.Symlink("a.txt", filepath.Join(root, "link")))
	require.NoError(t, os.Symlink("nowhere", filepath.Join(root, "dangling")))
	require.NoError(t, os.Symlink("sub", filepath.Join(root, "dirlink")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	return root
}

// requireErrno asserts err's errno name, the way the Lua binding sees it.
func requireErrno(t *testing.T, err error, name string) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, name, Errno(err), "error: %v", err)
}
