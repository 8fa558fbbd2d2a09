package editor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// Issue 14, features: M-2 splits the screen into two windows showing the
// buffer; each keeps its own cursor and scroll (moving in one leaves the
// other where it was), M-o switches, a buffer shown in one window leaves
// the other's alone, and M-1 goes back to one window.
func TestTwoWindowsSplitAndSwitch(t *testing.T) {
	path := writeTestFile(t, "w.txt", numberedRows(100))
	h := startEditor(t, Options{Path: path})
	h.waitText("row 001")
	h.alt('2')
	// 30 rows: 27 text rows, the upper window 13 with its status line at
	// row 13, the lower window rows 14 to 26.
	rows := h.waitScreen("two windows", func(rows []string) bool {
		return strings.HasPrefix(rows[14], "row 001") && strings.Contains(rows[13], "w.txt  1:1")
	})
	require.True(t, strings.HasPrefix(rows[0], "row 001"))
	require.True(t, strings.HasPrefix(rows[12], "row 013"))

	for range 40 {
		h.key(tcell.KeyDown)
	}
	rows = h.waitScreen("the upper window scrolled", func(rows []string) bool { return strings.Contains(rows[13], "w.txt  41:1") })
	require.False(t, anyContains(rows[:13], "row 001"), "the upper window follows its cursor")
	require.True(t, anyContains(rows[:13], "row 041"))
	require.True(t, strings.HasPrefix(rows[14], "row 001"), "the lower window stays: %q", rows[14])

	h.alt('o')
	h.until("the lower window focused at its own cursor", func(e *session) bool {
		return e.cur.cursor == pos{0, 0} && e.win.otherTop
	})
	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.waitScreen("the lower window moves", func(rows []string) bool {
		return strings.Contains(rows[27], "3:1") && strings.Contains(rows[13], "41:1")
	})

	h.ctrl('e') // *messages* in the lower window
	rows = h.waitScreen("another buffer below", func(rows []string) bool { return strings.Contains(rows[27], "*messages*") })
	require.True(t, anyContains(rows[:13], "row 041"), "the upper window keeps its buffer")

	h.alt('o')
	h.until("back in the upper window", func(e *session) bool {
		return e.cur.name == "w.txt" && e.cur.cursor == pos{40, 0} && !e.win.otherTop
	})
	h.alt('1')
	h.waitScreen("one window", func(rows []string) bool {
		return !anyContains(rows[:27], "*messages*") && anyContains(rows[:27], "row 041")
	})
	h.alt('o')
	h.waitScreen("M-o with one window says so", bottomHas("one window only"))
}

// Issue 14, features (two windows): the window without focus is drawn
// dimmer, as Vim and Helix draw it: its status line in dim colours and its
// cursor as a dim block, while the focused window's status line stays in
// reverse video and the terminal's cursor is its. The status line above
// the lower window speaks of that window, focused or not.
func TestUnfocusedWindowIsDimmer(t *testing.T) {
	path := writeTestFile(t, "w.txt", numberedRows(100))
	h := startEditor(t, Options{Path: path})
	h.waitText("row 001")
	h.alt('2')
	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.key(tcell.KeyRight)
	// 30 rows: the upper window's status line at row 13, the lower
	// window's rows 14 to 26, its status line at row 27.
	rows := h.waitScreen("the upper window focused at 3:2", func(rows []string) bool {
		return strings.Contains(rows[13], "w.txt  3:2") && strings.Contains(rows[27], "w.txt  1:1")
	})
	require.NotContains(t, rows[27], "3:2", "the lower window's status line shows its own cursor")
	style := func(x, y int) tcell.Style {
		var st tcell.Style
		h.e.call(func() { _, st, _ = h.scr.Get(x, y) })
		return st
	}
	cursor := func() (x, y int) {
		h.e.call(func() { x, y, _ = h.scr.GetCursor() })
		return x, y
	}
	require.Equal(t, styleStatus, style(0, 13), "the focused window's status line")
	require.Equal(t, styleStatusInactive, style(0, 27), "the unfocused window's status line")
	require.NotEqual(t, styleStatus, styleStatusInactive)
	require.Equal(t, styleCursorInactive, style(0, 14), "the unfocused window's cursor, row 1 column 1")
	require.NotEqual(t, styleCursorInactive, style(1, 14), "only the cursor's cell")
	x, y := cursor()
	require.Equal(t, [2]int{1, 2}, [2]int{x, y}, "the terminal's cursor is the focused window's")
	require.NotEqual(t, styleCursorInactive, style(1, 2))

	h.alt('o')
	h.waitScreen("the lower window focused", func(rows []string) bool {
		return strings.Contains(rows[27], "w.txt  1:1") && strings.Contains(rows[13], "w.txt  3:2")
	})
	h.until("the styles follow the focus", func(e *session) bool {
		_, up, _ := h.scr.Get(0, 13)
		_, down, _ := h.scr.Get(0, 27)
		return up == styleStatusInactive && down == styleStatus
	})
	require.Equal(t, styleCursorInactive, style(1, 2), "the upper window's cursor, now unfocused, is a dim block")
	require.NotEqual(t, styleCursorInactive, style(0, 14), "the focused window's cell has no dim block")
	x, y = cursor()
	require.Equal(t, [2]int{0, 14}, [2]int{x, y})
}

// numberedRows is n rows "row 001" to "row n", each ending in a newline.
func numberedRows(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "row %03d\n", i)
	}
	return sb.String()
}
