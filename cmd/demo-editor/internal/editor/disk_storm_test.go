package editor

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// rgFiles is what rg --files lists under dir, sorted.
func rgFiles(t testing.TB, dir string) []string {
	t.Helper()
	cmd := exec.Command(testenv.Peer(t, testenv.Ripgrep), "--files")
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err)
	files := strings.Fields(string(out))
	slices.Sort(files)
	return files
}

// finderList runs w.find_files on root with an empty query, as the picker
// does, and returns its paths, sorted.
func finderList(t testing.TB, h *harness, root string) []string {
	t.Helper()
	h.e.call(func() {
		h.e.L.SetGlobal("FIND_ROOT", lua.LString(root))
		h.e.L.SetGlobal("FOUND", lua.LNil)
		require.NoError(t, h.e.L.DoString(`pmacs.async.run(function()
			local r, err = pmacs.workers.find_files{root = FIND_ROOT, query = "", limit = 100000}:await()
			FOUND = r or err
		end)`))
	})
	var paths []string
	h.until("the finder's list", func(e *session) bool {
		found, ok := e.L.GetGlobal("FOUND").(*lua.LTable)
		if !ok {
			return false
		}
		paths = paths[:0]
		found.ForEach(func(k, v lua.LValue) {
			if row, ok := v.(*lua.LTable); ok {
				paths = append(paths, row.RawGetString("path").String())
			}
		})
		return true
	})
	slices.Sort(paths)
	return paths
}

// countReloads makes the editor count each buffer's "change" events, which
// a reload raises once (nothing else edits the buffers here).
func countReloads(t testing.TB, h *harness) func(path string) int {
	h.e.call(func() {
		require.NoError(t, h.e.L.DoString(`CHANGES = {}
			pmacs.editor.on("change", function(b)
				local p = pmacs.editor.path(b)
				CHANGES[p] = (CHANGES[p] or 0) + 1
			end)`))
	})
	return func(path string) int {
		var n int
		h.e.call(func() {
			if v, ok := h.e.L.GetGlobal("CHANGES").(*lua.LTable).RawGetString(path).(lua.LNumber); ok {
				n = int(v)
			}
		})
		return n
	}
}

// TestCheckoutStormReloadsEachBufferOnce covers a branch switch under a
// running editor: git checkout of another branch of a 10,000-file tree
// reloads each open buffer whose file changed exactly once (and none
// whose file did not), and afterwards the finder's list is what rg --files
// lists.
func TestCheckoutStormReloadsEachBufferOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10,000-file repository")
	}
	r := testenv.NewGitStorm(t, 10_000)
	changed := []string{testenv.StormFile(1), testenv.StormFile(2550), testenv.StormFile(9999)}
	same := "README"
	h := startEditor(t, Options{Path: filepath.Join(r.Root, changed[0])})
	for _, p := range append(changed[1:], same) {
		h.e.call(func() { _, _ = h.e.openFile(filepath.Join(r.Root, p)) })
	}
	h.until("the buffers loaded and the project watched", func(e *session) bool {
		_, ready := watchesRunning(e)
		for _, b := range e.bufs {
			if b.loading {
				return false
			}
		}
		return ready == 1
	})
	require.Equal(t, rgFiles(t, r.Root), finderList(t, h, r.Root), "the finder's list before")
	reloads := countReloads(t, h)

	r.Git("checkout", "-q", "two")
	for _, p := range changed {
		abs := filepath.Join(r.Root, p)
		h.untilWithin(60*time.Second, p+" reloaded", func(e *session) bool {
			b := e.findBuffer(abs)
			return b != nil && !b.loading && b.lines.len() > 0 && b.lines.row(0) == "two"
		})
	}
	want := rgFiles(t, r.Root)
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := finderList(t, h, r.Root)
		if slices.Equal(got, want) {
			break
		}
		require.True(t, time.Now().Before(deadline), "the finder's list never matched rg --files: %d files against %d", len(got), len(want))
		time.Sleep(20 * time.Millisecond)
	}
	// Every change of the checkout has been reported by now (the finder
	// learnt them from the same watch); no reload is still in flight.
	h.until("no check in flight", func(e *session) bool {
		for _, b := range e.bufs {
			if b.loading {
				return false
			}
		}
		return !e.frameWanted()
	})
	for _, p := range changed {
		require.Equal(t, 1, reloads(filepath.Join(r.Root, p)), "%s reloads once", p)
	}
	require.Zero(t, reloads(filepath.Join(r.Root, same)), "a file the checkout left alone is not reloaded")
}
