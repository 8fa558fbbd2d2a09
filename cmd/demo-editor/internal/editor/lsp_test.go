package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// goplsTimeout bounds each wait on gopls: it loads the module's packages
// before its first answer, which takes seconds on a loaded machine.
const goplsTimeout = 90 * time.Second

func (h *harness) untilLong(what string, cond func(e *session) bool) {
	h.t.Helper()
	h.untilWithin(goplsTimeout, what, cond)
}

func (h *harness) gotoLine(spec string) {
	h.alt('g')
	h.waitText("go to line")
	h.typeText(spec)
	h.key(tcell.KeyEnter)
}

// TestGoplsInTheEditor drives the embedded init.lua against gopls from the
// project's .bin directory (skipping when it is absent): the diagnostic of
// an undefined name in the status line and *diagnostics* (Enter jumps), go
// to definition, hover, references into a list, and an edit through incremental
// didChange that fixes the error and clears the diagnostic.
func TestGoplsInTheEditor(t *testing.T) {
	src := "package m\n\nfunc Target() int { return 1 }\n\nvar X = Target() + undefinedName\n"
	dir := goplsModule(t, map[string]string{"m.go": src})
	path := filepath.Join(dir, "m.go")

	h := startEditor(t, Options{Path: path})
	statusHas := func(s string) func(e *session) bool {
		return func(e *session) bool { return strings.Contains(e.statusText(), s) }
	}
	h.untilLong("the undefined name's error in the status line", statusHas("E1 W0"))

	h.alt('e')
	h.waitText("undefined: undefinedName")
	h.key(tcell.KeyDown)
	h.key(tcell.KeyEnter)
	h.until("the jump to the diagnostic", func(e *session) bool {
		return e.cur.path == path && e.cur.cursor == pos{4, 19}
	})

	h.gotoLine("5:10")
	h.until("the cursor on Target", func(e *session) bool { return e.cur.cursor == pos{4, 9} })
	h.alt('.')
	h.untilLong("the jump to Target's definition", func(e *session) bool {
		return e.cur.path == path && e.cur.cursor == pos{2, 5}
	})
	h.alt(',')
	h.until("back where M-. left", func(e *session) bool { return e.cur.path == path && e.cur.cursor == pos{4, 9} })
	h.alt('>')
	h.until("forward to the definition again", func(e *session) bool {
		return e.cur.path == path && e.cur.cursor == pos{2, 5}
	})

	h.alt('?')
	h.untilLong("two references", func(e *session) bool {
		return e.cur.name == "*references*" && strings.HasPrefix(e.cur.Line(0), "references: 2")
	})
	rows := h.waitText("m.go:5:9: var X = Target() + undefinedName")
	require.True(t, anyContains(rows, "m.go:3:6: func Target() int { return 1 }"), "each reference quotes its line")
	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.key(tcell.KeyEnter)
	h.until("the jump to the second reference, the call of Target", func(e *session) bool {
		return e.cur.path == path && e.cur.cursor == pos{4, 8}
	})

	h.alt('k')
	h.untilLong("Target's signature on the message line", func(e *session) bool {
		return strings.Contains(e.msg, "func Target() int")
	})

	// Replace undefinedName by 2 with keys: each key is an incremental
	// edit gopls must apply to its copy for the error to go.
	h.gotoLine("5:20")
	h.until("the cursor on undefinedName", func(e *session) bool { return e.cur.cursor == pos{4, 19} })
	for range len("undefinedName") {
		h.key(tcell.KeyDelete)
	}
	h.typeText("2")
	h.until("the fix in the buffer", func(e *session) bool { return e.cur.Line(4) == "var X = Target() + 2" })
	h.untilLong("the diagnostic cleared", func(e *session) bool {
		return !strings.Contains(e.statusText(), "E1") && e.cur.Modified()
	})
}

// TestGoFileWithoutGopls proves a missing gopls only leaves a note in
// *messages*: the file opens and edits as usual, with no error shown.
func TestGoFileWithoutGopls(t *testing.T) {
	t.Setenv("PATH", "/usr/bin:/bin")
	dir := t.TempDir()
	path := filepath.Join(dir, "m.go")
	require.NoError(t, os.WriteFile(path, []byte("package m\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.until("the note in *messages*", func(e *session) bool {
		for _, b := range e.bufs {
			if b.name == "*messages*" && strings.Contains(b.Text(), "gopls not found") {
				return true
			}
		}
		return false
	})
	h.typeText("x")
	h.until("the edit", func(e *session) bool { return e.cur.Line(0) == "xpackage m" })
	h.alt('.')
	h.until("the refusal", func(e *session) bool { return e.msg == "no language server for this buffer" && !e.msgErr })
}
