//go:build unix

package fsops

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// permChildEnv tells a re-executed test binary which tree to run the
// permission cases against, unprivileged.
const permChildEnv = "FSOPS_PERMISSION_CHILD_TREE"

// Acceptance: "permission denied (CI runs as root: drop privileges in a
// subprocess or use a case root cannot bypass, and say which)". Root bypasses
// permission bits, so when the tests run as root this test re-executes its
// own binary as uid/gid 65534 (SysProcAttr.Credential) against a root-owned
// tree and the cases run there; as any other user they run in-process
// against a tree whose permission bits lock the owner out. Either way the
// tree is compared with its state before: nothing changed, nothing lost.
func TestPermissionDeniedIsReportedAndTouchesNothing(t *testing.T) {
	if tree := os.Getenv(permChildEnv); tree != "" {
		require.Equal(t, testenv.Nobody, os.Geteuid(), "the child runs unprivileged")
		runPermissionCases(t, tree, false)
		return
	}

	base, err := os.MkdirTemp("", "fsops-permission-")
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if d != nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
		require.NoError(t, os.RemoveAll(base))
	})
	require.NoError(t, os.Chmod(base, 0o755))
	tree := filepath.Join(base, "tree")
	for _, d := range []string{"", "ro", "sealed", "noexec"} {
		require.NoError(t, os.Mkdir(filepath.Join(tree, d), 0o755))
	}
	for _, f := range []string{"ro/f", "sealed/f", "noexec/a", "noexec/b"} {
		require.NoError(t, os.WriteFile(filepath.Join(tree, f), []byte(f), 0o644))
	}

	if os.Geteuid() != 0 {
		before := snapshot(t, tree)
		lock := map[string]os.FileMode{"ro": 0o555, "sealed": 0, "noexec": 0o644}
		for d, m := range lock {
			require.NoError(t, os.Chmod(filepath.Join(tree, d), m))
		}
		runPermissionCases(t, tree, true)
		for d := range lock {
			require.NoError(t, os.Chmod(filepath.Join(tree, d), 0o755))
		}
		require.Equal(t, before, snapshot(t, tree))
		return
	}

	// Root-owned tree; modes chosen so that "other" (nobody) is locked out.
	require.NoError(t, os.Chmod(filepath.Join(tree, "sealed"), 0o700))
	require.NoError(t, os.Chmod(filepath.Join(tree, "noexec"), 0o744))
	before := snapshot(t, tree)

	out, err := testenv.RunTestAsNobody(base, "TestPermissionDeniedIsReportedAndTouchesNothing", permChildEnv+"="+tree)
	require.NoError(t, err, "unprivileged run:\n%s", out)
	require.Equal(t, before, snapshot(t, tree))
}

// runPermissionCases expects tree/ro not writable, tree/sealed not readable
// or searchable, tree/noexec readable but not searchable. owner says whether
// the caller owns tree/ro/f (then chmod is allowed and not tested).
func runPermissionCases(t *testing.T, tree string, owner bool) {
	ctx := context.Background()
	p := func(s string) string { return filepath.Join(tree, s) }
	denied := func(err error, errno string) {
		t.Helper()
		require.ErrorIs(t, err, fs.ErrPermission)
		requireErrno(t, err, errno)
	}

	denied(Rename(ctx, p("ro/f"), p("ro/g"), false), "EACCES")
	denied(Rename(ctx, p("ro/f"), p("ro/g"), true), "EACCES")
	denied(Remove(ctx, p("ro/f")), "EACCES")
	if !owner {
		denied(Chmod(ctx, p("ro/f"), 0o777), "EPERM")
	}

	_, err := ReadDir(ctx, p("sealed"), PerEntry)
	denied(err, "EACCES")
	_, err = Stat(ctx, p("sealed/f"))
	denied(err, "EACCES")
	denied(Remove(ctx, p("sealed/f")), "EACCES")
	denied(Chmod(ctx, p("sealed/f"), 0o600), "EACCES")

	l, err := ReadDir(ctx, p("noexec"), PerEntry)
	require.NoError(t, err, "the names are readable")
	require.Empty(t, l.Entries)
	require.Len(t, l.Errors, 2)
	for i, name := range []string{"a", "b"} {
		require.Equal(t, name, l.Errors[i].Name)
		denied(l.Errors[i].Err, "EACCES")
	}
	_, err = ReadDir(ctx, p("noexec"), Fatal)
	denied(err, "EACCES")
}
