package editor

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/luabind"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// initWith writes an init file made of the embedded one and extra.
func initWith(t *testing.T, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "init.lua")
	require.NoError(t, os.WriteFile(path, []byte(EmbeddedInit()+"\n"+extra), 0o644))
	return path
}

// tasksNamed returns the live tasks called name.
func tasksNamed(e *session, name string) []luabind.TaskInfo {
	var out []luabind.TaskInfo
	for _, ti := range e.lb.Tasks() {
		if ti.Name == name {
			out = append(out, ti)
		}
	}
	return out
}

// sleepCancelled reports whether a sleep job settled cancelled.
func sleepCancelled(e *session) bool {
	for _, c := range e.rt.Snapshot().Completed {
		if c.Kind == demojob.Sleep && c.State == runtime.Cancelled {
			return true
		}
	}
	return false
}

// *workers* lists the live tasks as a tree under the jobs: a child
// indented under its parent, with what each waits on and the jobs it
// owns; c on a task's row cancels its tree, down to the job, and the rows
// go.
func TestWorkersViewListsTheTaskTreeAndCancelsATask(t *testing.T) {
	initFile := initWith(t, `
pmacs.editor.map("global", "F9", function()
  pmacs.async.run{name = "long parent", function()
    local child = pmacs.async.run{name = "long child", function()
      return pmacs.workers.sleep(3600000):await()
    end}
    child:await()
  end}
end)
`)
	h := startEditor(t, Options{Path: t.TempDir(), InitFile: initFile})
	h.waitText("..")
	h.stopProjectWatch()
	h.key(tcell.KeyF9)
	h.until("the two tasks wait on the sleep", func(e *session) bool {
		return e.lb.Stats().Tasks == 2 && e.lb.Stats().Jobs == 1
	})
	h.ctrl('w')
	h.waitText("long child #")

	var parentRow int
	var parent, child string
	h.e.call(func() {
		b := h.e.cur
		for i := range b.LineCount() {
			l := b.Line(i)
			switch {
			case strings.Contains(l, "long parent #"):
				parentRow, parent = i, l
			case strings.Contains(l, "long child #"):
				child = l
			}
		}
	})
	require.Contains(t, parent, "waiting on task long child")
	require.Regexp(t, `waiting on job \d+ \(sleep\) for \d+ms  jobs \d+$`, child, "the child waits on the job it owns")
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	require.Greater(t, indent(child), indent(parent), "the child is indented under its parent:\n%s\n%s", parent, child)

	h.e.call(func() { h.e.cur.setCursor(pos{parentRow, 0}) })
	h.typeText("c")
	h.waitScreen("the cancel", func(rows []string) bool {
		return strings.Contains(messageLine(rows), "cancelled task long parent #") &&
			strings.Contains(messageLine(rows), "and its tree")
	})
	h.until("the tree and its job end", func(e *session) bool {
		return e.lb.Stats().Tasks == 0 && e.lb.Stats().Jobs == 0 && sleepCancelled(e)
	})
	h.waitScreen("the task rows gone", func(rows []string) bool {
		return anyContains(rows, "Tasks: 0") && !anyContains(rows, "long child #")
	})
}

// The picker ranks in a task named "picker" that owns its ranking job: a
// newer query cancels the last one's task and job, and closing the picker
// (Esc) ends both, leaving no task behind. The ranking is a sleep here, so
// it is still running when the picker moves on.
func TestPickerTaskOwnsItsJobAndEndsWhenClosed(t *testing.T) {
	initFile := initWith(t, `pmacs.workers.fuzzy = function() return pmacs.workers.sleep(3600000) end`)
	h := startEditor(t, Options{Path: t.TempDir(), InitFile: initFile})
	h.waitText("..")
	h.stopProjectWatch()
	h.alt('p')
	h.waitText("find (@ buffers")
	var first uint64
	h.until("the picker's task owns its job", func(e *session) bool {
		ts := tasksNamed(e, "picker")
		if len(ts) != 1 || len(ts[0].Jobs) != 1 {
			return false
		}
		first = ts[0].ID
		return true
	})

	h.typeText("x")
	h.until("a newer query's task replaced it", func(e *session) bool {
		ts := tasksNamed(e, "picker")
		return len(ts) == 1 && ts[0].ID != first && len(ts[0].Jobs) == 1 && e.lb.Stats().Jobs == 1 && sleepCancelled(e)
	})

	h.key(tcell.KeyEscape)
	h.until("no task nor job left", func(e *session) bool {
		return e.lb.Stats().Tasks == 0 && e.lb.Stats().Jobs == 0
	})
}

// Completion asks in a task named "completion" that owns the request:
// closing the popup (Esc) cancels the task, and the request with it: the
// server hears $/cancelRequest and no task is left. The scripted server
// holds a request asked anywhere but column 18, so it is still pending.
func TestCompletionTaskOwnsItsRequestAndEndsWhenClosed(t *testing.T) {
	logPath := useFakeLSP(t)
	path := filepath.Join(t.TempDir(), "m.go")
	require.NoError(t, os.WriteFile(path, []byte("package m\n\nvar x = ab\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.untilSynced()
	h.stopProjectWatch()
	h.gotoLine("3:11")
	h.until("the cursor at the end of row 3", func(e *session) bool { return e.cur.cursor == pos{2, 10} })
	h.alt('/')
	h.until("the completion's task owns its request", func(e *session) bool {
		ts := tasksNamed(e, "completion")
		return len(ts) == 1 && len(ts[0].Jobs) == 1
	})
	var l fakeLog
	h.until("the request reached the server", func(*session) bool {
		l = readFakeLog(t, logPath)
		return len(l.requests) == 1
	})

	h.key(tcell.KeyEscape)
	h.until("no task nor job left", func(e *session) bool {
		return e.lb.Stats().Tasks == 0 && e.lb.Stats().Jobs == 0
	})
	h.until("the server told to cancel the request", func(*session) bool {
		l = readFakeLog(t, logPath)
		return l.cancels[l.requests[0]]
	})
}

// A read that fails still raises "loaded", which a task waiting for the
// buffer wakes on, and no "open" (there is no text to sync or parse):
// without it the waiting task would sit out its whole deadline. A
// directory opened as a file fails to read.
func TestFailedReadRaisesLoadedButNotOpen(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	h := startEditor(t, Options{Path: dir})
	h.waitText("..")
	h.stopProjectWatch()
	h.e.call(func() {
		require.NoError(t, h.e.L.DoString(`
			local ed = pmacs.editor
			events_seen = {}
			ed.on("loaded", function(b) events_seen[#events_seen + 1] = "loaded " .. ed.name(b) end)
			ed.on("open", function(b) events_seen[#events_seen + 1] = "open " .. ed.name(b) end)
			failed_buf = assert(ed.open(`+strconv.Quote(sub)+`))
			pmacs.async.run{name = "load waiter", function()
			  local f = pmacs.async.future()
			  ed.on("loaded", function(b) if b == failed_buf and not f:done() then f:set(true) end end)
			  f:await()
			  load_waiter_saw = ed.readonly(failed_buf) and "read-only" or "writable"
			end}`))
	})
	h.until("the waiter woke on the failed read", func(e *session) bool {
		return e.L.GetGlobal("load_waiter_saw").String() == "read-only"
	})
	var seen []string
	h.e.call(func() {
		lt := h.e.L.GetGlobal("events_seen").(*lua.LTable)
		lt.ForEach(func(_, v lua.LValue) { seen = append(seen, v.String()) })
	})
	require.Equal(t, []string{"loaded sub"}, seen)
}
