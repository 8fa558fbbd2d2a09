package luabind

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pmacs-go/pmacs-go/runtime"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// Acceptance (issue 11, defect 1): a script that awaits a rename of the
// searched root inside its grep loop finishes. With 100,000 matches the
// grep outruns the stream credit and parks on this very loop; before the
// stream lane it held the root's read gate while parked, the rename waited
// for it and the script hung forever.
func TestRenameAwaitedInsideGrepLoopFinishes(t *testing.T) {
	const files, lines = 100, 1000
	root := t.TempDir()
	writeGrepCorpus(t, root, files, lines)
	require.NoError(t, os.WriteFile(filepath.Join(root, "a"), []byte("x"), 0o644))

	h := newHarness(t, false)
	require.Greater(t, files*lines, runtime.DefaultStreamCredit, "the harness runs with the default credit")
	fn, err := h.b.LoadString(fmt.Sprintf(`
		local w = pmacs.workers
		local R = %q
		local n, batches = 0, 0
		for batch in w.grep{root = R, pattern = "needle"}:batches() do
			n = n + #batch
			batches = batches + 1
			w.fs.rename(R.."/a", R.."/b"):await()
		end
		return n, batches
	`, root), "deadlock.lua")
	require.NoError(t, err)
	task := h.b.Spawn(fn)
	h.drive(t, 20*time.Second)
	require.True(t, task.Done())
	require.NoError(t, task.Err(), "stderr:\n%s", h.stderr.String())
	for _, f := range h.b.TakeFailed() {
		t.Errorf("uncollected task error: %v", f.Err())
	}
	require.FileExists(t, filepath.Join(root, "b"))
	require.NoFileExists(t, filepath.Join(root, "a"))
	got := task.Results()
	require.Len(t, got, 2)
	require.Equal(t, lua.LNumber(files*lines), got[0], "every match reached the loop")
	require.Greater(t, float64(got[1].(lua.LNumber)), 1.0, "the loop renamed between batches")
}
