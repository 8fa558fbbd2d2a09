package editor

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/grepjob"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// Issue 14: a prompt belongs to the view that opened it. With the live
// grep's prompt open, C-w shows *workers*: the prompt ends (its search
// stops), and a key typed in *workers* goes to *workers*, not into the
// query; C-f then opens the grep view again with a fresh prompt.
func TestPromptEndsWhenItsViewIsLeft(t *testing.T) {
	dir := grepTree(t, 20, 1000)
	h := startEditor(t, Options{Path: dir, runtime: runtime.Options{StreamCredit: 1024}, grepBatch: 256})
	h.waitText("f00.txt")
	h.stopProjectWatch()

	h.ctrl('f')
	h.waitText("grep:")
	h.typeText("alpha")
	h.waitText(`grep "alpha": `)

	h.ctrl('w')
	rows := h.waitText("Active jobs:")
	require.False(t, strings.HasPrefix(messageLine(rows), "grep:"), "the grep prompt ended with its view:\n%s", strings.Join(rows, "\n"))
	h.until("the search stopped", func(e *session) bool {
		active, done := jobsOfKind(e, grepjob.Kind)
		return len(active) == 0 && len(done) > 0 && done[0].State == runtime.Cancelled
	})

	// "c" is *workers*' cancel key; it must not reach the grep query.
	h.typeText("c")
	h.waitScreen("the *workers* answer", func(rows []string) bool {
		return strings.Contains(messageLine(rows), "no running job on this row")
	})
	var prompt *prompt
	var dispatched []string
	h.e.call(func() {
		prompt = h.e.prompt
		for _, c := range h.e.rt.Snapshot().Completed {
			if c.Kind == grepjob.Kind {
				dispatched = append(dispatched, c.Key)
			}
		}
	})
	require.Nil(t, prompt, "no prompt is open in *workers*")
	require.Len(t, dispatched, len("alpha"), "one search per typed key of \"alpha\", none for the \"c\"")

	h.ctrl('f')
	rows = h.waitScreen("a fresh grep prompt", func(rows []string) bool { return messageLine(rows) == "grep:" })
	require.True(t, anyContains(rows, "grep in "+dir), "the grep view is shown again")
	h.typeText("x")
	h.waitText(`grep "x": 0 matches`)
}

// Closing the buffer that owns a prompt ends the prompt, and on_cancel
// hears why; Esc says "key" and opening another prompt says "replaced".
func TestPromptCancelReasons(t *testing.T) {
	h := startEditor(t, Options{Path: t.TempDir()})
	h.waitText("..")
	var reasons []string
	var err error
	h.e.call(func() {
		err = h.e.L.DoString(`
			local ed = pmacs.editor
			reasons = {}
			local function ask(label)
				ed.prompt(label, {on_cancel = function(why) reasons[#reasons + 1] = label .. why end})
			end
			local b = ed.create("owner")
			ed.show(b)
			ask("a")
			ask("b")          -- replaces a
			ed.close(b)       -- ends b
			ed.show(ed.create("other"))
			ask("c")
		`)
	})
	require.NoError(t, err)
	h.key(tcell.KeyEsc)
	h.until("the Esc", func(e *session) bool { return e.prompt == nil })
	h.e.call(func() {
		tbl, ok := h.e.L.GetGlobal("reasons").(*lua.LTable)
		if ok {
			tbl.ForEach(func(_, v lua.LValue) { reasons = append(reasons, v.String()) })
		}
	})
	require.Equal(t, []string{"areplaced", "bclose", "ckey"}, reasons)
}

// A prompt's label wider than the screen (M-x lists every command in its
// label) hid what the user typed: the text went past the right edge. The
// label is now cut, ending in "…", so the typed text and the cursor show.
func TestLongPromptLabelLeavesRoomForTheText(t *testing.T) {
	h := startEditorSized(t, Options{Path: t.TempDir()}, 60, 12)
	// A prompt opened before the directory view shows would end when it
	// shows.
	h.waitText("..")
	h.e.call(func() {
		require.NoError(t, h.e.L.DoString(`pmacs.editor.prompt(string.rep("a long label ", 10) .. ": ", {})`))
	})
	h.typeText("typed")
	rows := h.waitText("typed")
	bottom := messageLine(rows)
	require.True(t, strings.HasPrefix(bottom, "a long label a long label a long label"), bottom)
	require.Contains(t, bottom, "…typed")
	var x int
	h.e.call(func() { x = h.e.promptCursorX() })
	require.Equal(t, strings.Index(bottom, "…typed")+len("…typed")-2, x, "the cursor is after the text")
}
