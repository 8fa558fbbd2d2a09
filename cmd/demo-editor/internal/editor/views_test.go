package editor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// Acceptance: the *workers* buffer lists a running job with its age and
// key, and cancelling it from its row works.
func TestWorkersViewListsAndCancelsAJob(t *testing.T) {
	h := startEditor(t, Options{Path: t.TempDir()})
	h.waitText("..")
	h.stopProjectWatch()
	h.alt('x')
	h.waitText("command (")
	h.typeText("sleep 60000")
	h.key(tcell.KeyEnter)
	h.waitText("for 60000 ms")

	h.ctrl('w')
	rows := h.waitText("Active jobs: 1")
	var row string
	for _, r := range rows {
		// The first: the job's own row (the task awaiting it, listed
		// below, names it too).
		if strings.Contains(r, "sleep") {
			row = r
			break
		}
	}
	require.Contains(t, row, "running")
	require.Regexp(t, `sleep\s+\d+ms`, row, "the row shows the job's age")

	// The cursor starts on the first job row.
	h.typeText("c")
	// The message says the cancel was requested until the job settles, which
	// can be within the same frame: either message proves the key worked.
	h.waitScreen("the cancel", func(rows []string) bool {
		m := messageLine(rows)
		return strings.Contains(m, "cancel requested for job") || strings.Contains(m, "cancelled")
	})
	rows = h.waitText("Active jobs: 0")
	require.True(t, anyContains(rows, "cancelled"), "the completion shows the outcome")
	h.until("the sleep settled cancelled", func(e *session) bool {
		for _, c := range e.rt.Snapshot().Completed {
			if c.Kind == demojob.Sleep {
				return c.State == runtime.Cancelled
			}
		}
		return false
	})
}

// Acceptance: the directory view renames, removes and chmods, refreshing
// from the runtime's reports (and after a chmod, which is not reported);
// a failed operation shows its error on the message line.
func TestDiredRenameRemoveChmodRefreshTheView(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	h := startEditor(t, Options{Path: dir})
	h.waitText("a.txt")

	// Rows: 0 the path, 1 "..", 2 a.txt, 3 b.txt, 4 sub.
	h.key(tcell.KeyDown)
	h.typeText("r")
	h.waitText("rename a.txt to:")
	h.ctrl('u')
	h.typeText("c.txt")
	h.key(tcell.KeyEnter)
	// The prompt's line shows "c.txt" as it is typed: wait for the view's
	// rows, where the rename shows once it has landed.
	h.waitScreen("the view refreshed after the rename", func(rows []string) bool {
		return anyContains(windowRows(rows), "c.txt") && !anyContains(windowRows(rows), "a.txt")
	})
	require.FileExists(t, filepath.Join(dir, "c.txt"))
	require.NoFileExists(t, filepath.Join(dir, "a.txt"))

	// The selection followed c.txt to row 3; b.txt is row 2.
	h.key(tcell.KeyUp)
	h.typeText("d")
	h.waitText("remove b.txt? (y/n)")
	h.typeText("y")
	h.waitScreen("b.txt gone", func(rows []string) bool { return !anyContains(windowRows(rows), "b.txt") })
	require.NoFileExists(t, filepath.Join(dir, "b.txt"))

	// Rows now: 2 c.txt, 3 sub.
	h.key(tcell.KeyHome)
	h.until("c.txt selected", func(e *session) bool { return strings.HasSuffix(e.cur.Line(e.cur.cursor.Row), "c.txt") })
	h.typeText("m")
	h.waitText("chmod c.txt (octal): 644")
	h.ctrl('u')
	h.typeText("600")
	h.key(tcell.KeyEnter)
	h.waitText("-rw-------")
	st, err := os.Stat(filepath.Join(dir, "c.txt"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	// Renaming onto an existing name fails and says why.
	h.typeText("r")
	h.waitText("rename c.txt to:")
	h.ctrl('u')
	h.typeText("sub")
	h.key(tcell.KeyEnter)
	rows := h.waitScreen("the error", func(rows []string) bool { return strings.Contains(messageLine(rows), "EEXIST") })
	require.Contains(t, messageLine(rows), "rename:")
	require.FileExists(t, filepath.Join(dir, "c.txt"))
}

// Acceptance: an error in Lua shows on the message line and, with its
// traceback, in *messages*; the editor keeps running and answering keys.
func TestLuaErrorsShowAndTheEditorKeepsRunning(t *testing.T) {
	initFile := filepath.Join(t.TempDir(), "init.lua")
	src := EmbeddedInit() + `
pmacs.editor.map("global", "F5", function() local t = nil; return t.field end)
pmacs.editor.map("global", "F6", function()
  pmacs.async.run(function()
    pmacs.workers.sleep(1):await()
    error("task went wrong")
  end)
end)
`
	require.NoError(t, os.WriteFile(initFile, []byte(src), 0o644))
	h := startEditor(t, Options{Path: t.TempDir(), InitFile: initFile})
	h.waitText("..")

	h.key(tcell.KeyF5)
	rows := h.waitScreen("the key error", func(rows []string) bool {
		return strings.Contains(messageLine(rows), "key F5")
	})
	require.Contains(t, messageLine(rows), "attempt to index")

	h.key(tcell.KeyF6)
	h.waitScreen("the task error", func(rows []string) bool {
		return strings.Contains(messageLine(rows), "task went wrong")
	})

	h.ctrl('e')
	rows = h.waitText("*messages*")
	require.True(t, anyContains(rows, "error: key F5"), "the key error is logged")
	require.True(t, anyContains(rows, "stack traceback:"), "with its traceback")
	require.True(t, anyContains(rows, "pmacs: task failed:"), "the task error is logged:\n%s", strings.Join(rows, "\n"))

	// Still running: a prompt opens and takes keys.
	h.ctrl('o')
	h.typeText("x")
	h.waitScreen("the open prompt", func(rows []string) bool {
		return strings.HasPrefix(messageLine(rows), "open: ") && strings.HasSuffix(messageLine(rows), "/x")
	})
}

// A broken init file is reported, and the built-in keys still edit, save
// and quit the file the editor was started on.
func TestBrokenInitFileLeavesAUsableEditor(t *testing.T) {
	dir := t.TempDir()
	initFile := filepath.Join(dir, "init.lua")
	require.NoError(t, os.WriteFile(initFile, []byte("this is not lua"), 0o644))
	path := filepath.Join(dir, "new.txt")
	h := startEditor(t, Options{Path: path, InitFile: initFile})
	rows := h.waitScreen("the init error", func(rows []string) bool {
		return strings.Contains(messageLine(rows), "init:")
	})
	require.Contains(t, messageLine(rows), "init.lua")
	// Keys do not edit a buffer whose file is still being read.
	h.until("new.txt loaded", func(e *session) bool { return e.cur.name == "new.txt" && !e.cur.loading })
	h.typeText("xy")
	h.key(tcell.KeyBackspace2)
	h.ctrl('s')
	h.waitText("wrote " + path)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "x\n", string(got), "a new file ends with a newline")
	h.ctrl('q')
	select {
	case err := <-h.done:
		require.NoError(t, err)
		h.done <- err // for the cleanup
	case <-time.After(waitTimeout):
		t.Fatal("C-q did not quit")
	}
}

// A key binding or a task stuck in a loop that never waits does not freeze
// the editor for good: C-g interrupts it, the error shows, and the editor
// answers keys again.
func TestQuitKeyInterruptsARunawayScript(t *testing.T) {
	initFile := filepath.Join(t.TempDir(), "init.lua")
	// Each loop leaves a file behind as it starts, so that C-g comes once
	// the main goroutine spins (before, it would interrupt nothing).
	spinning := filepath.Join(t.TempDir(), "spinning")
	src := EmbeddedInit() + fmt.Sprintf(`
local function spin(name) io.open(%q .. name, "w"):close() end
pmacs.editor.map("global", "F7", function() spin("7") while true do end end)
pmacs.editor.map("global", "F8", function()
  pmacs.async.run(function() spin("8") local n = 0; while true do n = n + 1 end end)
end)
`, spinning)
	require.NoError(t, os.WriteFile(initFile, []byte(src), 0o644))
	h := startEditor(t, Options{Path: t.TempDir(), InitFile: initFile})
	h.waitText("..")

	for i, k := range []tcell.Key{tcell.KeyF7, tcell.KeyF8} {
		h.key(k)
		mark := spinning + []string{"7", "8"}[i]
		require.Eventually(t, func() bool { _, err := os.Stat(mark); return err == nil }, waitTimeout, time.Millisecond,
			"the main goroutine is spinning in Lua")
		h.ctrl('g')
		h.waitScreen("the interrupt", func(rows []string) bool {
			return strings.Contains(messageLine(rows), "interrupted")
		})
	}
	h.ctrl('e')
	h.waitText("*messages*")
}

// Acceptance (issue 11, defect 6): *workers* lists a fatal root with its
// panic message, and r on that row resets it: the row goes and the root
// takes jobs again.
func TestWorkersViewListsAndResetsAFatalRoot(t *testing.T) {
	dir := t.TempDir()
	h := startEditor(t, Options{Path: dir})
	h.waitText("..")
	h.stopProjectWatch()
	var root string
	h.e.call(func() { root = h.e.rt.Roots()[0] })
	boom := make(chan workers.Result, 1)
	h.e.rt.Executor().Submit(context.Background(), workers.Task{Actor: workers.ActorID(root), Lane: workers.LaneMutating,
		Name: "fs_rename", Run: func(context.Context, workers.Actor) (any, error) { panic("disk on fire") },
		Done: func(r workers.Result) { boom <- r }})
	select {
	case r := <-boom:
		require.ErrorIs(t, r.Err, workers.ErrInternal)
	case <-time.After(waitTimeout):
		t.Fatal("the panicking job did not settle")
	}

	h.ctrl('w')
	rows := h.waitText("Fatal roots: 1")
	require.True(t, anyContains(rows, "disk on fire"), "the row shows the panic message")
	require.True(t, anyContains(rows, root), "the row shows the root")

	// Rows: 0 "Active jobs: 0", 1 the column header, 2 blank,
	// 3 "Fatal roots: 1", 4 the root, 5 its reason. The cursor starts on
	// row 2.
	h.typeText("r")
	h.waitScreen("the refusal on a row without a root", func(rows []string) bool {
		return strings.Contains(messageLine(rows), "no fatal root on this row")
	})
	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.typeText("r")
	h.waitScreen("the reset", func(rows []string) bool {
		return strings.Contains(messageLine(rows), "reset root "+root) && !anyContains(rows, "Fatal roots")
	})
	h.until("the root is no longer fatal", func(e *session) bool { return len(e.rt.Snapshot().Fatal) == 0 })
}

// Issue 11 (where the seed's behaviour was lost): a completed job's row in
// *workers* shows what it returned.
func TestWorkersViewShowsWhatACompletedJobReturned(t *testing.T) {
	h := startEditor(t, Options{Path: t.TempDir()})
	h.waitText("..")
	h.alt('x')
	h.waitText("command (")
	h.typeText("sum 10")
	h.key(tcell.KeyEnter)
	h.waitText("sum 1..10 = 55")
	h.ctrl('w')
	h.waitScreen("the sum's row with its result", func(rows []string) bool {
		for _, r := range rows {
			if strings.Contains(r, "compute_sum") && strings.Contains(r, "complete: 55") {
				return true
			}
		}
		return false
	})
}

// A task that awaits a rename finds the renamed file's buffer at its new
// path when it resumes. Before, buffers followed a rename only after the
// frame's tasks had run, so the task still saw the old path (and a
// workspace edit's renamed buffers kept their server documents under it).
func TestTaskAwaitingARenameSeesTheBufferMoved(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	require.NoError(t, os.WriteFile(from, []byte("text\n"), 0o644))
	h := startEditor(t, Options{Path: from})
	h.waitText("text")
	var err error
	h.e.call(func() {
		err = h.e.L.DoString(fmt.Sprintf(`
			local ed, buf = pmacs.editor, pmacs.editor.current()
			pmacs.async.run(function()
				assert(pmacs.workers.fs.rename(%q, %q):await())
				seen_path = ed.path(buf)
			end)`, from, to))
	})
	require.NoError(t, err)
	var seen string
	h.until("the task's view of the path", func(e *session) bool {
		seen = lua.LVAsString(e.L.GetGlobal("seen_path"))
		return seen != ""
	})
	require.Equal(t, to, seen)
}
