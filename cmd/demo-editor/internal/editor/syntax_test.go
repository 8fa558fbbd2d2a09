package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/runtime"
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
			if c.Kind == runtime.KindParse {
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
