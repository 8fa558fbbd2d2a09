//go:build linux

package editor

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// permChildEnv tells a re-executed test binary which tree to run the
// permission cases against, unprivileged.
const permChildEnv = "EDITOR_PERMISSION_CHILD_TREE"

// Issue 14: saving a writable file in a directory the user cannot write
// falls back to writing in place and says so (the message never names a
// temporary file); a write that fails half-way puts the old text back; a
// file the user cannot write opens read-only. Root bypasses permission
// bits, so as root the test re-executes its own binary as uid/gid 65534
// (SysProcAttr.Credential) against a root-owned tree; as another user it
// runs in-process against a tree whose directory is mode 0555.
func TestSaveInUnwritableDirectoryWritesInPlace(t *testing.T) {
	if tree := os.Getenv(permChildEnv); tree != "" {
		require.Equal(t, testenv.Nobody, os.Geteuid(), "the child runs unprivileged")
		runSavePermissionCases(t, tree)
		return
	}
	base, err := os.MkdirTemp("", "editor-permission-")
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = os.Chmod(filepath.Join(base, "tree"), 0o755)
		require.NoError(t, os.RemoveAll(base))
	})
	require.NoError(t, os.Chmod(base, 0o755))
	tree := filepath.Join(base, "tree")
	require.NoError(t, os.Mkdir(tree, 0o755))
	shared := filepath.Join(tree, "shared.txt")
	require.NoError(t, os.WriteFile(shared, []byte("one\ntwo\n"), 0o666))
	require.NoError(t, os.Chmod(shared, 0o666)) // past the umask
	require.NoError(t, os.WriteFile(filepath.Join(tree, "locked.txt"), []byte("locked\n"), 0o444))

	if os.Geteuid() != 0 {
		require.NoError(t, os.Chmod(tree, 0o555))
		runSavePermissionCases(t, tree)
		return
	}
	out, err := testenv.RunTestAsNobody(base, "TestSaveInUnwritableDirectoryWritesInPlace", permChildEnv+"="+tree)
	require.NoError(t, err, "unprivileged run:\n%s", out)
	got, err := os.ReadFile(shared)
	require.NoError(t, err)
	require.Equal(t, "xone\ntwo\n", string(got))
}

func runSavePermissionCases(t *testing.T, tree string) {
	shared := filepath.Join(tree, "shared.txt")
	h := startEditor(t, Options{Path: shared})
	h.waitText("two")
	h.typeText("x")
	h.ctrl('s')
	rows := h.waitScreen("the save's message", func(rows []string) bool {
		return strings.Contains(messageLine(rows), "wrote") || strings.Contains(messageLine(rows), "save")
	})
	msg := messageLine(rows)
	require.Contains(t, msg, "wrote "+shared+" (9 bytes) in place", "the save fell back and said so")
	require.NotContains(t, msg, "pmacs-save")
	got, err := os.ReadFile(shared)
	require.NoError(t, err)
	require.Equal(t, "xone\ntwo\n", string(got))
	entries, err := os.ReadDir(tree)
	require.NoError(t, err)
	require.Len(t, entries, 2, "no temporary file is left")

	// A write that fails half-way: a file size limit below the new text.
	var old syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old))
	limit := syscall.Rlimit{Cur: 12, Max: old.Max}
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit))
	h.typeText(strings.Repeat("y", 40))
	h.ctrl('s')
	h.waitScreen("the failed save", func(rows []string) bool {
		return strings.Contains(messageLine(rows), "save "+shared)
	})
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old))
	var full string
	h.e.call(func() { full = h.e.msg })
	require.Contains(t, full, "save "+shared+" in place (its directory is not writable): file too large (the old text was put back)")
	got, err = os.ReadFile(shared)
	require.NoError(t, err)
	require.Equal(t, "xone\ntwo\n", string(got), "the old text is back")
	var modified bool
	h.e.call(func() { modified = h.e.cur.Modified() })
	require.True(t, modified, "the unsaved text is still in the buffer")

	locked := filepath.Join(tree, "locked.txt")
	h2 := startEditor(t, Options{Path: locked})
	rows = h2.waitText("locked.txt [ro]")
	require.Contains(t, messageLine(rows), locked+" is not writable by you: opened read-only")
	h2.typeText("z")
	h2.waitScreen("the refusal", func(rows []string) bool { return strings.Contains(messageLine(rows), "read-only") })
	h2.key(tcell.KeyEsc)
	got, err = os.ReadFile(locked)
	require.NoError(t, err)
	require.Equal(t, "locked\n", string(got))
}
