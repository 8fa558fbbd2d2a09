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
