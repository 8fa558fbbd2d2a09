package luabind

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLuaSuite runs every script in testdata/lua as the first task of a
// fresh binding, with a fixture directory in arg[1]. A script proves its
// part of the Lua API contract with assert/error; the test fails if the
// script's task fails or any task error goes uncollected. Covers: every
// pmacs.workers and pmacs.async function, supersede from Lua, cancel, stream
// iteration with max_batch, fs errors with their names, parse with
// highlights and prior, and every misuse error.
func TestLuaSuite(t *testing.T) {
	scripts, err := filepath.Glob("../testdata/lua/*.lua")
	require.NoError(t, err)
	require.NotEmpty(t, scripts)
	for _, path := range scripts {
		name := strings.TrimSuffix(filepath.Base(path), ".lua")
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFixture(t, dir)
			h := newHarness(t, false)
			task, err := h.b.RunFile(path, []string{dir})
			require.NoError(t, err)
			h.drive(t, 30*time.Second)
			require.True(t, task.Done())
			require.NoError(t, task.Err(), "stderr:\n%s", h.stderr.String())
			for _, f := range h.b.TakeFailed() {
				t.Errorf("uncollected task error: %v\n%s", f.Err(), f.err.Traceback)
			}
			require.Zero(t, h.b.Stats().Jobs)
		})
	}
}
