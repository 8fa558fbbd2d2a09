package editor

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/textsearch"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// cellBg returns the background of the screen cell at (x, y).
func (h *harness) cellBg(x, y int) tcell.Color {
	var bg tcell.Color
	h.e.call(func() {
		cells, w, _ := h.scr.GetContents()
		_, bg, _ = cells[y*w+x].Style.Decompose()
	})
	return bg
}

// waitCellBg waits until the cell at (x, y) has background bg.
func (h *harness) waitCellBg(x, y int, bg tcell.Color, what string) {
	h.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for h.cellBg(x, y) != bg {
		if time.Now().After(deadline) {
			h.t.Fatalf("%s: cell (%d, %d) never got background %v", what, x, y, bg)
		}
		time.Sleep(time.Millisecond)
	}
}

func bgOf(st tcell.Style) tcell.Color {
	_, bg, _ := st.Decompose()
	return bg
}

func writeTestFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

func bottomHas(text string) func([]string) bool {
	return func(rows []string) bool { return strings.Contains(messageLine(rows), text) }
}

// Issue 14, features: M-f searches the buffer as you type, the matches
// drawn highlighted and the one the cursor is on drawn apart; Down and Up
// go to the next and previous match, wrapping; Enter stays on the match
// with the matches still shown, F3 and S-F3 go on from there, and Esc
// clears them. Esc in the prompt goes back to where the search started.
func TestInBufferSearchHighlightsAndSteps(t *testing.T) {
	path := writeTestFile(t, "s.txt", "start here\nthe needle one\nno\nneedle two needle three\n")
	h := startEditor(t, Options{Path: path})
	h.waitText("needle three")
	h.key(tcell.KeyDown) // the search starts at row 1, column 0
	h.alt('f')
	h.waitScreen("the search prompt", bottomHas("search: "))
	h.typeText("needle")
	h.waitScreen("the count", bottomHas("[1/3 matches, literal]"))
	require.Equal(t, pos{1, 4}, h.cursor(), "the first match at or after the start")
	// The count can reach the screen a frame before the highlights do.
	h.waitCellBg(4, 1, bgOf(styleMatchCur), "the current match")
	require.Equal(t, bgOf(styleMatch), h.cellBg(0, 3), "another match")
	require.NotEqual(t, bgOf(styleMatch), h.cellBg(3, 1), "text beside a match")

	h.key(tcell.KeyDown)
	h.waitScreen("next", bottomHas("[2/3 matches"))
	require.Equal(t, pos{3, 0}, h.cursor())
	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.waitScreen("wrapped to the first", bottomHas("[1/3 matches"))
	h.key(tcell.KeyUp)
	h.waitScreen("previous, wrapping back", bottomHas("[3/3 matches"))
	require.Equal(t, pos{3, 11}, h.cursor())

	h.key(tcell.KeyEnter)
	h.waitScreen("the prompt closed", func(rows []string) bool { return !strings.Contains(messageLine(rows), "search:") })
	require.Equal(t, pos{3, 11}, h.cursor(), "Enter stays on the match")
	require.Equal(t, bgOf(styleMatch), h.cellBg(0, 3), "the matches stay drawn")
	h.key(tcell.KeyF3)
	h.waitScreen("F3", bottomHas("match 1/3 (wrapped)"))
	require.Equal(t, pos{1, 4}, h.cursor())
	h.post(tcell.NewEventKey(tcell.KeyF3, 0, tcell.ModShift))
	h.waitScreen("S-F3", bottomHas("match 3/3 (wrapped)"))
	h.key(tcell.KeyEscape)
	h.until("Esc clears the matches", func(e *session) bool { return e.cur.hits == nil })
	h.waitScreen("drawn plain", func([]string) bool { return h.cellBg(0, 3) != bgOf(styleMatch) })

	// Esc in the prompt: back to where the search started.
	h.alt('f')
	h.typeText("two")
	h.waitScreen("found", bottomHas("[1/1 match, literal]"))
	require.Equal(t, pos{3, 7}, h.cursor())
	h.key(tcell.KeyEscape)
	h.until("back at the start", func(e *session) bool { return e.prompt == nil && e.cur.cursor == pos{3, 11} && e.cur.hits == nil })
}

// Issue 14, features: smart case (a capital makes the search
// case-sensitive), M-r toggles regex, and a bad regex says why in the
// prompt instead of raising.
func TestInBufferSearchSmartCaseAndRegex(t *testing.T) {
	path := writeTestFile(t, "s.txt", "Alpha alpha ALPHA\nalp.a\n")
	h := startEditor(t, Options{Path: path})
	h.waitText("alp.a")
	h.alt('f')
	h.typeText("alpha")
	h.waitScreen("folded", bottomHas("alpha  [1/3 matches, literal]"))
	h.key(tcell.KeyBackspace2)
	h.key(tcell.KeyBackspace2)
	h.key(tcell.KeyBackspace2)
	h.key(tcell.KeyBackspace2)
	h.key(tcell.KeyBackspace2)
	h.typeText("Alpha")
	h.waitScreen("case-sensitive", bottomHas("Alpha  [1/1 match, literal]"))
	for range 5 {
		h.key(tcell.KeyBackspace2)
	}
	h.typeText("alp.a")
	h.waitScreen("literal dot", bottomHas("alp.a  [1/1 match, literal]"))
	require.Equal(t, pos{1, 0}, h.cursor())
	h.alt('r')
	h.waitScreen("regex dot", bottomHas("alp.a  [1/4 matches, regex]"))
	h.typeText("(")
	h.waitScreen("the regex error", bottomHas("missing closing )"))
	h.until("no stale matches", func(e *session) bool { return e.cur.hits == nil })
}

// Issue 14, features: every key supersedes the last search (the runtime
// cancels it), and only the newest query's matches are shown, in a buffer
// large enough that the first search is still running.
func TestInBufferSearchSupersedes(t *testing.T) {
	var sb strings.Builder
	for i := range 300_000 {
		fmt.Fprintf(&sb, "line %d alpha beta\n", i)
	}
	sb.WriteString("the last alphabet\n")
	path := writeTestFile(t, "big.txt", sb.String())
	h := startEditor(t, Options{Path: path})
	h.waitText("line 0 alpha")
	// Loaded first: while it loads, the rows shown hold the file's end,
	// and the search of them would find its match too.
	h.until("loaded", func(e *session) bool { return !e.cur.loading })
	h.alt('f')
	h.typeText("alphab")
	h.waitScreen("one match", bottomHas("[1/1 match, literal]"))
	require.Equal(t, pos{300_000, 9}, h.cursor())
	var cancelled, completed int
	h.e.call(func() {
		for _, c := range h.e.rt.Snapshot().Completed {
			if c.Kind != textsearch.Kind {
				continue
			}
			switch c.State {
			case runtime.Cancelled:
				cancelled++
			case runtime.Complete:
				completed++
			}
		}
	})
	require.Positive(t, cancelled, "a keystroke superseded a running search")
	var n int
	h.e.call(func() { n = h.e.cur.hits.len() })
	require.Equal(t, 1, n, "no match of an older query")
}

// An edit while a search job reads the buffer's snapshot never writes
// into what it reads (the race detector checks); an edit with no search
// running retires the
// snapshot instead of copying, so a later search on it fails.
func TestEditDuringSearchKeepsSnapshot(t *testing.T) {
	lines := make([]string, 200_000)
	for i := range lines {
		lines[i] = "x needle"
	}
	path := writeTestFile(t, "e.txt", strings.Join(lines, "\n")+"\n")
	h := startEditor(t, Options{Path: path})
	h.waitText("x needle")
	var snap *textsearch.Snapshot
	h.e.call(func() {
		b := h.e.cur
		snap = b.snapshot()
		id := textsearch.Dispatch(h.e.rt, textsearch.Spec{Text: snap, Pattern: "needle"}, runtime.DispatchOptions{})
		for row := 0; row < 50; row++ {
			b.edit(pos{row, 0}, pos{row, 1}, "needle ", false)
		}
		require.Nil(t, b.snap, "the edit let go of the snapshot")
		// Nobody drains this stream: cancel it so its worker lets go.
		h.e.rt.Cancel(id)
	})
	h.until("the search is done", func(*session) bool { return !snap.InUse() })
	h.e.call(func() {
		b := h.e.cur
		old := b.snapshot()
		require.NotSame(t, snap, old)
		b.edit(pos{0, 0}, pos{0, 0}, "y", false)
		require.ErrorContains(t, textsearch.Spec{Text: old, Pattern: "y"}.Check(), "the text changed")
	})
}

// manyMatchesFile writes a file of n rows, each "row I test 0": n matches
// of "test 0", one a row, at column 4 plus the width of I.
func manyMatchesFile(t testing.TB, n int) string {
	t.Helper()
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "row %d test 0\n", i)
	}
	path := filepath.Join(t.TempDir(), "many.txt")
	require.NoError(t, os.WriteFile(path, []byte(sb.String()), 0o644))
	return path
}

// goToLine moves the cursor to the start of 1-based line n with M-g.
func (h *harness) goToLine(n int) {
	h.t.Helper()
	h.alt('g')
	h.waitScreen("the go-to prompt", bottomHas("go to line"))
	h.typeText(fmt.Sprint(n))
	h.key(tcell.KeyEnter)
	h.until(fmt.Sprintf("the cursor on line %d", n), func(e *session) bool { return e.cur.cursor == pos{n - 1, 0} })
}

// A search with far more matches than a search job delivers by default
// (100,000) counts and keeps them all: the counter's index is the current
// match's own, next and previous from any row go to the match after (or
// before) the cursor, and F3 wraps only past the last match.
func TestInBufferSearchPastAHundredThousandMatches(t *testing.T) {
	const n = 250_000
	h := startEditor(t, Options{Path: manyMatchesFile(t, n)})
	h.waitText("row 0 test 0")
	h.until("the whole file read", func(e *session) bool { return !e.cur.loading && e.cur.LineCount() >= n })

	h.goToLine(200_001)
	h.alt('f')
	h.waitScreen("the search prompt", bottomHas("search: "))
	h.typeText("test 0")
	h.waitScreen("the exact count", bottomHas(fmt.Sprintf("[200001/%d matches, literal]", n)))
	require.Equal(t, pos{200_000, 11}, h.cursor(), "the first match after where the search started")
	h.key(tcell.KeyDown)
	h.waitScreen("next", bottomHas(fmt.Sprintf("[200002/%d matches", n)))
	require.Equal(t, pos{200_001, 11}, h.cursor())
	h.key(tcell.KeyEnter)
	h.waitScreen("the prompt closed", func(rows []string) bool { return !strings.Contains(messageLine(rows), "search:") })

	h.goToLine(150_001)
	h.key(tcell.KeyF3)
	h.waitScreen("F3 from row 150,000", bottomHas(fmt.Sprintf("match 150001/%d", n)))
	require.Equal(t, pos{150_000, 11}, h.cursor())

	h.goToLine(n)
	h.key(tcell.KeyF3)
	h.waitScreen("F3 on the last row", bottomHas(fmt.Sprintf("match %d/%d", n, n)))
	require.Equal(t, pos{n - 1, 11}, h.cursor())
	h.key(tcell.KeyF3)
	h.waitScreen("F3 past the last match wraps", bottomHas(fmt.Sprintf("match 1/%d (wrapped)", n)))
	require.Equal(t, pos{0, 6}, h.cursor())

	h.goToLine(120_001)
	h.post(tcell.NewEventKey(tcell.KeyF3, 0, tcell.ModShift))
	h.waitScreen("S-F3 from row 120,000", bottomHas(fmt.Sprintf("match 120000/%d", n)))
	require.Equal(t, pos{119_999, 11}, h.cursor())
}

// F3 pressed while the matches still stream in (a small stream credit
// makes delivering the first 100,000 take many frames) waits for the
// search to end and then goes to the match after the cursor, never
// wrapping to the top for want of the matches not yet delivered.
func TestSearchStepWhileStreamingWaitsForTheWholeCount(t *testing.T) {
	const n = 250_000
	h := startEditor(t, Options{Path: manyMatchesFile(t, n), runtime: runtime.Options{StreamCredit: 300}})
	h.waitText("row 0 test 0")
	h.until("the whole file read", func(e *session) bool { return !e.cur.loading && e.cur.LineCount() >= n })
	h.goToLine(180_001)
	h.alt('f')
	h.waitScreen("the search prompt", bottomHas("search: "))
	h.typeText("test 0")
	h.key(tcell.KeyEnter)
	h.key(tcell.KeyF3)
	h.waitScreen("F3 after the search ended", bottomHas(fmt.Sprintf("match 180002/%d", n)))
	require.Equal(t, pos{180_001, 11}, h.cursor())
}

// Issue 31 (60 MB file at 3.6x after searches): a search's snapshot of the
// text, and an edit while a job still reads it, copy no row headers: the
// edit copied the whole array of rows (16 bytes a row, 82 MB for the 60 MB
// file) so the job kept reading the old one.
func TestSearchSnapshotAndEditWhileInUseCopyNoRows(t *testing.T) {
	const rows = 200_000
	b := bufferOf(strings.Repeat("alpha beta\n", rows))
	var m0, m1 goruntime.MemStats
	goruntime.ReadMemStats(&m0)
	snap := b.snapshot()
	_, release, err := snap.Hold() // a job reading it
	require.NoError(t, err)
	b.setCursor(pos{rows / 2, 0})
	require.NoError(t, b.insert("x"))
	goruntime.ReadMemStats(&m1)
	release()
	require.Less(t, m1.TotalAlloc-m0.TotalAlloc, uint64(rows), "bytes allocated for the snapshot and the edit of %d rows", rows)
	require.Equal(t, "xalpha beta", b.Line(rows/2))
}
