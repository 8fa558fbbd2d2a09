package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

func (h *harness) mouse(x, y int, b tcell.ButtonMask) {
	h.post(tcell.NewEventMouse(x, y, b, tcell.ModNone))
}

// Issue 14, features: a click places the cursor, a drag selects (and a
// movement without shift ends that selection), the wheel scrolls.
func TestMouseClickDragAndWheel(t *testing.T) {
	var sb strings.Builder
	for i := range 100 {
		fmt.Fprintf(&sb, "row %02d text\n", i)
	}
	path := filepath.Join(t.TempDir(), "m.txt")
	require.NoError(t, os.WriteFile(path, []byte(sb.String()), 0o644))
	h := startEditor(t, Options{Path: path})
	h.waitText("row 00 text")

	h.mouse(4, 3, tcell.Button1)
	h.mouse(4, 3, tcell.ButtonNone)
	h.until("the click", func(e *session) bool { return e.cur.cursor == pos{3, 4} && e.cur.mark == nil })

	h.mouse(0, 5, tcell.Button1)
	h.mouse(3, 5, tcell.Button1)
	h.mouse(6, 6, tcell.Button1)
	h.mouse(6, 6, tcell.ButtonNone)
	h.until("the drag", func(e *session) bool {
		s, en, ok := e.cur.selection()
		return ok && s == pos{5, 0} && en == pos{6, 6}
	})
	require.True(t, h.reversed(0, 5) && h.reversed(5, 6), "the dragged range is drawn selected")
	h.ctrl('c')
	h.waitScreen("the copy", func(rows []string) bool { return messageLine(rows) == "copied 18 bytes" })
	require.Equal(t, "row 05 text\nrow 06", string(h.scr.GetClipboardData()))

	h.mouse(0, 1, tcell.Button1)
	h.mouse(0, 1, tcell.ButtonNone)
	h.mouse(3, 2, tcell.Button1) // a new press: no drag from the last one
	h.mouse(3, 2, tcell.ButtonNone)
	h.until("a click, no selection", func(e *session) bool { return e.cur.cursor == pos{2, 3} && e.cur.mark == nil })

	h.mouse(0, 0, tcell.Button1)
	h.mouse(5, 1, tcell.Button1)
	h.mouse(5, 1, tcell.ButtonNone)
	h.until("a drag", func(e *session) bool { _, _, ok := e.cur.selection(); return ok })
	h.key(tcell.KeyDown)
	h.until("the movement ends it", func(e *session) bool { return e.cur.mark == nil && e.cur.cursor == pos{2, 5} })

	for range 4 {
		h.mouse(10, 10, tcell.WheelDown)
	}
	h.waitScreen("scrolled 12 rows", func(rows []string) bool { return strings.HasPrefix(rows[0], "row 12 text") })
	h.until("the cursor kept on the screen", func(e *session) bool { return e.cur.cursor.Row == 14 && e.cur.top == 12 })
	h.mouse(10, 10, tcell.WheelUp)
	h.waitScreen("scrolled back 3", func(rows []string) bool { return strings.HasPrefix(rows[0], "row 09 text") })
}
