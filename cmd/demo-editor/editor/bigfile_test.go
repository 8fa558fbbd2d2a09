package editor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 14 (60 MB file): a file larger than the first read shows its first
// rows before the whole text is read and split, so the first frame does not
// wait for the whole load. Meanwhile the buffer is loading (keys do not
// edit it); then the whole text replaces the rows, each line keeping its
// ending.
func TestLargeFileShowsItsFirstRowsWhileLoading(t *testing.T) {
	e := newIdleEditor(t)
	var sb strings.Builder
	total := 0
	for ; sb.Len() < 4*headBytes; total++ {
		fmt.Fprintf(&sb, "row %d\r\n", total)
	}
	path := writeTestFile(t, "big.txt", sb.String())
	b, err := e.openFile(path)
	require.NoError(t, err)
	e.show(b)

	(<-e.calls)() // the first rows, as the loop would run it
	require.True(t, b.loading)
	n := b.LineCount()
	require.Greater(t, n, 1000)
	require.Less(t, n, total)
	require.Equal(t, "row 0", b.Line(0))
	require.Equal(t, fmt.Sprintf("row %d", n-1), b.Line(n-1), "complete rows only, without their CR")
	require.ErrorIs(t, b.insert("x"), errLoading)
	require.Contains(t, e.statusText(), "[loading]")

	(<-e.calls)() // the whole text
	require.False(t, b.loading)
	require.Equal(t, total, b.LineCount())
	require.Equal(t, fmt.Sprintf("row %d", total-1), b.Line(total-1))
	require.Equal(t, sb.String(), string(joinText(b.lines, b.eol, b.crlf, b.ends)))
}

// A file that fits in the first read arrives whole, in one step.
func TestSmallFileLoadsInOneStep(t *testing.T) {
	e := newIdleEditor(t)
	path := writeTestFile(t, "small.txt", "one\ntwo\n")
	b, err := e.openFile(path)
	require.NoError(t, err)
	(<-e.calls)()
	require.False(t, b.loading)
	require.Equal(t, []string{"one", "two"}, b.lines)
}

// Issue 14 (60 MB file): highlights set for the rows on screen take room
// for those rows only, not an entry per row of the buffer, and edits above,
// across and below them keep each span on its text.
func TestHighlightsKeepOnlyTheirWindow(t *testing.T) {
	b := bufferOf(strings.Repeat("func f() {}\n", 5000))
	lineLen := func(r int) int { return len(b.lines[r]) }
	kw := face(1)
	for r := 1000; r < 1003; r++ {
		b.hl.add(pos{r, 0}, pos{r, 4}, kw, len(b.lines), lineLen)
	}
	require.Len(t, b.hl.rows, 3, "one entry per highlighted row")
	require.Nil(t, b.hl.row(999))

	b.setCursor(pos{10, 0})
	require.NoError(t, b.insert("x\ny\n")) // two rows above the window
	require.Nil(t, b.hl.row(1000))
	require.Equal(t, []hlSpan{{0, 4, kw}}, b.hl.row(1002))
	require.Equal(t, []hlSpan{{0, 4, kw}}, b.hl.row(1004))
	require.Nil(t, b.hl.row(1005))
	require.Len(t, b.hl.rows, 3)

	b.setCursor(pos{4000, 0})
	require.NoError(t, b.insert("\n")) // below the window
	require.Equal(t, []hlSpan{{0, 4, kw}}, b.hl.row(1002))
	require.Len(t, b.hl.rows, 3)

	// Delete from row 500 to column 5 of row 1003 (the window's second
	// row): the window's first row goes, the rest of the second row keeps
	// no colour (its keyword was deleted), the third moves up to row 501.
	b.edit(pos{500, 0}, pos{1003, 5}, "", false)
	require.Equal(t, []hlSpan{{0, 4, kw}}, b.hl.row(501))
	require.Nil(t, b.hl.row(500))
	require.Nil(t, b.hl.row(1004))
	require.True(t, b.undoStep())
	require.Equal(t, []hlSpan{{0, 4, kw}}, b.hl.row(1004), "undo puts the rows back below, colours following")
}
