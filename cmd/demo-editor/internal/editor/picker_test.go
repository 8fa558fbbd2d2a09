package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// Acceptance: C-p ranks the project's files live with the matched
// characters highlighted, and Enter opens the selected one; M-p (or "@")
// lists buffers and ">" commands in the same picker.
func TestPickerFindsFilesBuffersAndCommands(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteTree(t, dir, map[string]string{
		"cmd/tool/main.go":     "package main\n",
		"runtime/supersede.go": "package runtime // supersede\n",
		"runtime/stream.go":    "package runtime // stream\n",
		"README.md":            "# readme\n",
	})
	h := startEditor(t, Options{Path: dir})
	h.waitText("README.md")

	h.ctrl('p')
	h.waitText(`files "": 4 of 4`)
	h.typeText("rtsup")
	rows := h.waitText(`files "rtsup": 1 of 4`)
	require.True(t, anyContains(rows, "runtime/supersede.go"), strings.Join(rows, "\n"))

	// The matched characters r, t, s, u, p are drawn in the match style.
	var matchFg tcell.Color
	h.e.call(func() { matchFg, _, _ = h.e.faces.set["match"].Decompose() })
	h.until("match positions highlighted", func(e *session) bool {
		cells, w, _ := h.scr.GetContents()
		for y, r := range screenRows(h.scr) {
			x := strings.Index(r, "runtime/supersede.go")
			if x < 0 {
				continue
			}
			var got []int
			for i := range len("runtime/supersede.go") {
				if fg, _, _ := cells[y*w+x+i].Style.Decompose(); fg == matchFg {
					got = append(got, i)
				}
			}
			// r(0) t(3) then s u p of "supersede" (8, 9, 10): fuzzy's
			// best alignment, word starts first.
			return len(got) == 5 && got[0] == 0 && got[2] == 8
		}
		return false
	})

	h.key(tcell.KeyEnter)
	h.waitText("package runtime // supersede")

	// M-p opens the picker on buffers: the file just opened is one.
	h.alt('p')
	h.waitText(`buffers "": `)
	h.typeText("supsd")
	rows = h.waitText(`buffers "supsd": 1 of`)
	require.True(t, anyContains(rows, "supersede.go"), strings.Join(rows, "\n"))
	h.key(tcell.KeyEnter)
	h.waitText("package runtime // supersede")

	// ">" ranks the M-x commands; Enter runs the selected one.
	h.ctrl('p')
	h.waitText(`files "": `)
	h.typeText(">frmtgt")
	h.waitText(`commands "frmtgt": 1 of`)
	h.key(tcell.KeyEnter)
	h.waitText("frame target ")
}

// Esc closes the picker, stops its job and goes back to the buffer shown
// before it.
func TestPickerEscGoesBack(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "only.txt"), []byte("x\n"), 0o644))
	h := startEditor(t, Options{Path: dir})
	h.waitText("only.txt")
	h.ctrl('p')
	h.waitText(`files "": 1 of 1`)
	h.key(tcell.KeyEsc)
	h.waitScreen("the directory view back", func(rows []string) bool {
		return strings.HasPrefix(rows[0], dir) && !strings.HasPrefix(messageLine(rows), "find")
	})
}
