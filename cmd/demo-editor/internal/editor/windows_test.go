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
	var sb strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&sb, "row %03d\n", i)
	}
	path := writeTestFile(t, "w.txt", sb.String())
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
