package editor

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func bufferOf(text string) *buffer {
	b := newBuffer(1, "t")
	ft := splitText([]byte(text))
	b.load(ft)
	return b
}

// Editing primitives: insert, newline, delete back and forward across
// line breaks, and the text round-trips.
func TestBufferInsertNewlineDelete(t *testing.T) {
	b := bufferOf("ab\ncd\n")
	b.setCursor(pos{0, 1})
	require.NoError(t, b.insert("X"))
	require.NoError(t, b.insert("\n"))
	require.Equal(t, "aX\nb\ncd\n", b.Text())
	require.Equal(t, pos{1, 0}, b.cursor)
	require.NoError(t, b.deleteBack())
	require.Equal(t, "aXb\ncd\n", b.Text())
	b.setCursor(pos{0, 3})
	require.NoError(t, b.deleteForward())
	require.Equal(t, "aXbcd\n", b.Text())
	b.setCursor(pos{0, 0})
	require.NoError(t, b.deleteBack(), "backspace at the start does nothing")
	require.Equal(t, "aXbcd\n", b.Text())
}

// Multi-byte text: the cursor never lands inside a rune and a delete takes
// the whole rune.
func TestBufferRunesStayWhole(t *testing.T) {
	b := bufferOf("héllo")
	b.setCursor(pos{0, 2}) // inside é
	require.Equal(t, pos{0, 1}, b.cursor)
	b.setCursor(pos{0, 3})
	require.NoError(t, b.deleteBack())
	require.Equal(t, "hllo", b.Text())
}

// Undo and redo restore text and cursor, typing merges into word-sized
// steps, and "modified" follows the saved step through undo.
func TestUndoRedoAndModified(t *testing.T) {
	b := bufferOf("x\n")
	require.False(t, b.Modified())
	b.setCursor(pos{0, 1})
	for _, r := range "ab cd" {
		require.NoError(t, b.insert(string(r)))
	}
	require.Equal(t, "xab cd\n", b.Text())
	require.True(t, b.Modified())
	require.True(t, b.undoStep())
	require.Equal(t, "xab \n", b.Text(), "the last word is one step")
	require.True(t, b.undoStep())
	require.Equal(t, "x\n", b.Text())
	require.False(t, b.Modified(), "back at the loaded text")
	require.False(t, b.undoStep())
	require.True(t, b.redoStep())
	require.True(t, b.redoStep())
	require.Equal(t, "xab cd\n", b.Text())
	require.Equal(t, pos{0, 6}, b.cursor)

	// A save seals the step: typing after it is a new step, so undo gets
	// back to exactly the saved text.
	b.undo.seal()
	b.savedStep = b.undo.current()
	require.NoError(t, b.insert("!"))
	require.True(t, b.Modified())
	require.True(t, b.undoStep())
	require.False(t, b.Modified())

	// A new edit after undo drops the redo history.
	require.NoError(t, b.insert("?"))
	require.False(t, b.redoStep())
}

// setLines on a file buffer is one undoable step, whatever the range.
func TestSetLinesIsUndoable(t *testing.T) {
	for _, tc := range []struct {
		name       string
		start, end int
		lines      []string
		want       string
	}{
		{"replace middle", 1, 2, []string{"B1", "B2"}, "a\nB1\nB2\nc"},
		{"insert before", 1, 1, []string{"new"}, "a\nnew\nb\nc"},
		{"append", 3, 3, []string{"d"}, "a\nb\nc\nd"},
		{"delete middle", 1, 2, nil, "a\nc"},
		{"delete to end", 1, 3, nil, "a"},
		{"replace all", 0, -1, []string{"z"}, "z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bufferOf("a\nb\nc")
			require.NoError(t, b.setLines(tc.start, tc.end, tc.lines))
			require.Equal(t, tc.want, b.Text())
			require.True(t, b.undoStep())
			require.Equal(t, "a\nb\nc", b.Text())
		})
	}
	b := bufferOf("a")
	require.ErrorIs(t, b.setLines(2, 3, nil), errRange)
}

// Highlights move with edits: typing inside a token keeps its colour,
// text after an insertion shifts right, a new line shifts the rows below.
func TestHighlightsFollowEdits(t *testing.T) {
	b := bufferOf("func main\nreturn x")
	lineLen := func(r int) int { return len(b.lines.row(r)) }
	kw := face(1)
	b.hl.add(pos{0, 0}, pos{0, 4}, kw, b.lines.len(), lineLen)
	b.hl.add(pos{0, 5}, pos{0, 9}, kw+1, b.lines.len(), lineLen)
	b.hl.add(pos{1, 0}, pos{1, 6}, kw, b.lines.len(), lineLen)

	b.setCursor(pos{0, 2})
	require.NoError(t, b.insert("nn")) // "funnnc main"
	require.Equal(t, []hlSpan{{0, 6, kw}, {7, 11, kw + 1}}, b.hl.row(0))

	b.setCursor(pos{0, 6})
	require.NoError(t, b.insert("\n")) // "funnnc" / " main" / "return x"
	require.Equal(t, []hlSpan{{0, 6, kw}}, b.hl.row(0))
	require.Equal(t, []hlSpan{{1, 5, kw + 1}}, b.hl.row(1))
	require.Equal(t, []hlSpan{{0, 6, kw}}, b.hl.row(2))

	require.True(t, b.undoStep())
	require.Equal(t, "funnnc main\nreturn x", b.Text())
	require.Equal(t, []hlSpan{{0, 6, kw}}, b.hl.row(1), "the row below moved back up")
}

// A multi-row span is split per row; rows past the end are ignored.
func TestHighlightSpansSplitPerRow(t *testing.T) {
	b := bufferOf("/* a\nb\nc */ x")
	lineLen := func(r int) int { return len(b.lines.row(r)) }
	b.hl.add(pos{0, 0}, pos{2, 4}, 3, b.lines.len(), lineLen)
	b.hl.add(pos{5, 0}, pos{6, 1}, 4, b.lines.len(), lineLen)
	require.Equal(t, []hlSpan{{0, 4, 3}}, b.hl.row(0))
	require.Equal(t, []hlSpan{{0, 1, 3}}, b.hl.row(1))
	require.Equal(t, []hlSpan{{0, 4, 3}}, b.hl.row(2))
	require.Equal(t, 3, b.hl.first+len(b.hl.rows), "no rows past the end")
}

// Scratch buffers append without history, and a fresh one has no blank
// first row after the first append.
func TestScratchAppend(t *testing.T) {
	b := newBuffer(1, "*s*")
	b.noUndo = true
	b.appendLines([]string{"a", "b"})
	b.appendLines([]string{"c"})
	require.Equal(t, []string{"a", "b", "c"}, b.lines.all())
	require.False(t, b.undoStep())
	require.False(t, b.Modified())
}

// Text split and join round-trip, keeping CRLF and a missing final newline.
func TestSplitJoinRoundTrip(t *testing.T) {
	for _, text := range []string{"", "a", "a\n", "a\nb", "a\r\nb\r\n", "\n\n", strings.Repeat("x\n", 1000),
		"a\r\nb\n", "a\nb\r\n", "a\r\nb\r", "a\nb\r", "\r\n\n", "\r", "a\rb\n",
		"a\r\nb\r\nc\nd\r\n", "a\nb\nc\r\nd", "a\nb\nc\r\nd\r"} {
		ft := splitText([]byte(text))
		require.Equal(t, text, string(joinText(&ft.lines, ft.eol, ft.crlf, ft.ends)), "%q", text)
	}
}

// Display columns: tabs expand to the next stop, wide runes take two
// cells, and byteColAt inverts displayCol.
func TestDisplayColumns(t *testing.T) {
	line := "a\tb世c"
	require.Equal(t, 1, displayCol(line, 1))
	require.Equal(t, 4, displayCol(line, 2)) // the tab runs to column 4
	require.Equal(t, 5, displayCol(line, 3))
	require.Equal(t, 7, displayCol(line, 6)) // 世 is two cells
	for _, col := range []int{0, 1, 2, 3, 6, 7} {
		require.Equal(t, col, byteColAt(line, displayCol(line, col)), "col %d", col)
	}
}

// Issue 14: in a file that mixes CRLF and LF, every row keeps its own line
// ending through edits: a line break typed in a row ends like that row,
// joining rows keeps the ending of the lower one, and undo and redo put
// back exactly the endings they took away.
func TestMixedLineEndingsFollowEditsAndUndo(t *testing.T) {
	const text = "a\r\nb\nc\r\n"
	b := bufferOf(text)
	save := func() string { return string(joinText(&b.lines, b.eol, b.crlf, b.ends)) }
	require.Equal(t, text, save(), "nothing edited: the same bytes")

	b.setCursor(pos{1, 1})
	require.NoError(t, b.insert("\n"))          // split the LF row
	require.Equal(t, "a\r\nb\n\nc\r\n", save()) // both halves LF
	b.setCursor(pos{0, 1})
	require.NoError(t, b.insert("\n"))              // split the CRLF row
	require.Equal(t, "a\r\n\r\nb\n\nc\r\n", save()) // both halves CRLF

	// Join "b" (LF) with the CRLF row above it: the joined row keeps the
	// lower row's ending, and undo restores both.
	b.setCursor(pos{2, 0})
	require.NoError(t, b.deleteBack())
	require.Equal(t, "a\r\nb\n\nc\r\n", save())
	require.True(t, b.undoStep())
	require.Equal(t, "a\r\n\r\nb\n\nc\r\n", save())
	for b.undoStep() {
	}
	require.Equal(t, text, save(), "undone to the file's bytes")
	for b.redoStep() {
	}
	require.Equal(t, "a\r\nb\n\nc\r\n", save())
}

// ByteCount is the length of Text, with or without a final newline.
func TestByteCountIsTheTextsLength(t *testing.T) {
	for _, text := range []string{"", "a", "a\n", "a\r\nb\r\n", "héllo\nwörld", "\n\n"} {
		b := bufferOf(text)
		require.Equal(t, len(b.Text()), b.ByteCount(), "%q", text)
	}
}
