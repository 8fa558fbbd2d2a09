package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeExe(t *testing.T, p string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755))
}

// Issue 25, workspace trust: a program name resolves on PATH without its
// relative entries and without the entries the caller skips (those inside
// an untrusted folder); what was passed over is reported, so the caller
// can say why nothing ran.
func TestLookPathSkipsRelativeAndUntrustedEntries(t *testing.T) {
	proj := t.TempDir()
	sys := t.TempDir()
	writeExe(t, filepath.Join(proj, "bin", "gopls"))
	writeExe(t, filepath.Join(sys, "gopls"))
	require.NoError(t, os.WriteFile(filepath.Join(sys, "plain"), []byte("x"), 0o644))
	t.Chdir(proj)
	writeExe(t, filepath.Join(proj, "gopls"))
	inProj := func(dir string) bool { return Inside(dir, proj) }
	list := strings.Join([]string{"", ".", "bin", filepath.Join(proj, "bin"), sys}, string(os.PathListSeparator))

	found, skipped := LookPath("gopls", list, inProj)
	require.Equal(t, filepath.Join(sys, "gopls"), found)
	require.Empty(t, skipped)

	found, skipped = LookPath("gopls", strings.Join([]string{".", filepath.Join(proj, "bin")}, string(os.PathListSeparator)), inProj)
	require.Empty(t, found)
	require.Equal(t, "gopls", skipped, "the first program passed over: the relative entry's")

	found, skipped = LookPath("gopls", filepath.Join(proj, "bin"), inProj)
	require.Empty(t, found)
	require.Equal(t, filepath.Join(proj, "bin", "gopls"), skipped)

	found, _ = LookPath("gopls", filepath.Join(proj, "bin"), nil)
	require.Equal(t, filepath.Join(proj, "bin", "gopls"), found, "nothing skipped when the folder is trusted")

	found, skipped = LookPath("plain", sys, nil)
	require.Empty(t, found, "not executable")
	require.Empty(t, skipped)
	found, _ = LookPath("bin/gopls", list, nil)
	require.Empty(t, found, "a name with a slash is not looked up")
}

// Issue 25, workspace trust: a path is inside a folder as written or
// through symlinks, either way round.
func TestInsideFollowsSymlinksBothWays(t *testing.T) {
	proj := t.TempDir()
	out := t.TempDir()
	writeExe(t, filepath.Join(proj, ".bin", "gopls"))
	writeExe(t, filepath.Join(out, "tool"))
	require.NoError(t, os.Symlink(filepath.Join(proj, ".bin", "gopls"), filepath.Join(out, "gopls")))
	require.NoError(t, os.Symlink(proj, filepath.Join(out, "proj-link")))
	require.NoError(t, os.Symlink(filepath.Join(out, "tool"), filepath.Join(proj, ".bin", "tool")))

	require.True(t, Inside(filepath.Join(proj, ".bin", "gopls"), proj))
	require.True(t, Inside(proj, proj))
	require.True(t, Inside(filepath.Join(out, "gopls"), proj), "a link from outside into the folder")
	require.True(t, Inside(filepath.Join(out, "proj-link", ".bin", "gopls"), proj), "through a link to the folder")
	require.True(t, Inside(filepath.Join(proj, ".bin", "gopls"), filepath.Join(out, "proj-link")), "the folder given as a link")
	require.True(t, Inside(filepath.Join(proj, ".bin", "tool"), proj), "written inside, though it leads out")
	require.True(t, Inside(filepath.Join(proj, "missing", "x"), proj))
	require.False(t, Inside(filepath.Join(out, "tool"), proj))
	require.False(t, Inside(proj+"-sibling", proj))
	require.False(t, Inside(filepath.Dir(proj), proj))
}
