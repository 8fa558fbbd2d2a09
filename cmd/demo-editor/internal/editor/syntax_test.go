package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/parsejob"
)

// Acceptance: syntax highlighting from parse jobs under the buffer's
// supersede key. The text shows at once; colours follow when the parse
// lands, and again after an edit (an incremental reparse).
func TestSyntaxHighlightingFollowsParses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "main.go")
	require.NoError(t, os.WriteFile(path, []byte("package main\n\nfunc f() {}\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.waitText("func f() {}")

	var kwFg, commentFg tcell.Color
	h.e.call(func() {
		kwFg, _, _ = h.e.faces.set["keyword"].Decompose()
		commentFg, _, _ = h.e.faces.set["comment"].Decompose()
	})
	waitFg := func(what string, x, y int, want tcell.Color) {
		t.Helper()
		h.until(what, func(e *session) bool {
			cells, w, _ := h.scr.GetContents()
			fg, _, _ := cells[y*w+x].Style.Decompose()
			return fg == want
		})
	}
	waitFg("'package' coloured as a keyword", 0, 0, kwFg)
	waitFg("'func' coloured as a keyword", 0, 2, kwFg)

	// Turn row 2 into a comment: its colour changes once the reparse lands.
	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.typeText("// ")
	h.waitText("// func f() {}")
	waitFg("the new comment coloured", 3, 2, commentFg)

	var keys []string
	h.e.call(func() {
		for _, c := range h.e.rt.Snapshot().Completed {
			if c.Kind == parsejob.Kind {
				keys = append(keys, c.Key)
			}
		}
	})
	require.NotEmpty(t, keys)
	var id int
	h.e.call(func() { id = h.e.cur.id })
	for _, k := range keys {
		require.Equal(t, fmt.Sprintf("buf:%d", id), k, "every parse runs under the buffer's key")
	}
	require.False(t, strings.Contains(messageLine(h.rows()), "parse"), "no parse error reported")
}

// A task that closes a buffer (as a refused workspace edit closes the
// files it opened) can do so in the frame where the buffer's parse lands,
// before the "close" event reaches the syntax hooks: the parse's task then
// still found the buffer in its table and raised "visible_rows: no buffer
// N". Tasks that yielded run first in a frame, after its Tick and before
// the tasks of the jobs that Tick settled: the closing task here looks
// each frame for the buffer's parse among the settled jobs and closes the
// buffer in the frame it appears. No task may fail.
func TestBufferClosedAsItsParseLandsRaisesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.go")
	require.NoError(t, os.WriteFile(path, []byte("package m\n\nvar x = 1\n"), 0o644))
	h := startEditor(t, Options{Path: dir})
	h.e.call(func() {
		require.NoError(t, h.e.L.DoString(fmt.Sprintf(`local ed, w = pmacs.editor, pmacs.workers
			pmacs.async.run(function()
				local buf = assert(ed.open(%q))
				local key = "buf:" .. buf
				while true do
					for _, j in ipairs(w.snapshot().completed) do
						if j.key == key then
							ed.close(buf)
							CLOSED = true
							return
						end
					end
					coroutine.yield()
				end
			end)`, path)))
	})
	h.until("the file closed, and its parse's task done", func(e *session) bool {
		return e.L.GetGlobal("CLOSED") == lua.LTrue && onlyWatching(e)
	})
	var log string
	h.e.call(func() { log = h.e.messages.Text() })
	require.NotContains(t, log, "task failed")
}
