package editor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/parsejob"
)

// Issue 14 (60 MB file): a file larger than the first read shows its first
// rows before the whole text is read and split, so the first frame does not
// wait for the whole load. Meanwhile the buffer is loading (keys do not
// edit it); then the whole text replaces the rows, each line keeping its
// ending.
//
// Issue 31 (1 GB file): the rows of its end show with the first ones,
// after a row saying the rows between are being read, so a move to the
// end does not wait for the whole read either; the cursor moved there
// stays on the same row, counted from the end, when the whole text lands.
func TestLargeFileShowsItsFirstAndLastRowsWhileLoading(t *testing.T) {
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

	(<-e.calls)() // the first and last rows, as the loop would run it
	(<-e.calls)() // drawn: the rest of the read goes on
	require.True(t, b.loading)
	n := b.LineCount()
	require.Greater(t, n, 1000)
	require.Less(t, n, total)
	require.Equal(t, "row 0", b.Line(0))
	gap := b.tailFrom - 1
	require.Equal(t, loadingGapRow, b.Line(gap))
	require.Equal(t, fmt.Sprintf("row %d", gap-1), b.Line(gap-1), "complete rows only, without their CR")
	require.Equal(t, fmt.Sprintf("row %d", total-1), b.Line(n-1), "the file's last row")
	require.Equal(t, fmt.Sprintf("row %d", total-(n-gap-1)), b.Line(gap+1), "complete rows of the end only")
	require.ErrorIs(t, b.insert("x"), errLoading)
	require.Contains(t, e.statusText(), "[loading]")
	b.setCursor(pos{n - 2, 2})
	b.top = n - 5
	require.Contains(t, e.statusText(), " ?:3", "the row's number is not known yet")

	(<-e.calls)() // the whole text
	require.False(t, b.loading)
	require.Equal(t, total, b.LineCount())
	require.Equal(t, fmt.Sprintf("row %d", total-1), b.Line(total-1))
	require.Equal(t, sb.String(), string(joinText(&b.lines, b.eol, b.crlf, b.ends)))
	require.Equal(t, pos{total - 2, 2}, b.cursor, "the cursor stays on the row it was on")
	require.Equal(t, total-5, b.top)
}

// A file that fits in the first read arrives whole, in one step.
func TestSmallFileLoadsInOneStep(t *testing.T) {
	e := newIdleEditor(t)
	path := writeTestFile(t, "small.txt", "one\ntwo\n")
	b, err := e.openFile(path)
	require.NoError(t, err)
	(<-e.calls)()
	require.False(t, b.loading)
	require.Equal(t, []string{"one", "two"}, b.lines.all())
}

// Issue 14 (60 MB file): highlights set for the rows on screen take room
// for those rows only, not an entry per row of the buffer, and edits above,
// across and below them keep each span on its text.
func TestHighlightsKeepOnlyTheirWindow(t *testing.T) {
	b := bufferOf(strings.Repeat("func f() {}\n", 5000))
	lineLen := func(r int) int { return len(b.lines.row(r)) }
	kw := face(1)
	for r := 1000; r < 1003; r++ {
		b.hl.add(pos{r, 0}, pos{r, 4}, kw, b.lines.len(), lineLen)
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

// Issue 14 (60 MB file): above 250,000 rows a file gets no full-file tree
// (it would cost about 46 times the file, and each keystroke would copy
// the whole text to a reparse): its colours come from a parse of the rows
// around the window, the message line says so, and the colours follow the
// view when it moves and the text when it changes.
func TestHugeFileIsHighlightedAroundTheWindow(t *testing.T) {
	const groups = 65_000
	path := writeTestFile(t, "huge.go", "package huge\n"+strings.Repeat("func f() {\n\t// x\n}\n\n", groups))
	h := startEditor(t, Options{Path: path})
	h.waitScreen("the message", bottomHas("huge.go: 260001 rows: syntax colours from the rows around the window only"))
	var kwFg, commentFg tcell.Color
	h.e.call(func() {
		kwFg, _, _ = h.e.faces.set["keyword"].Decompose()
		commentFg, _, _ = h.e.faces.set["comment"].Decompose()
	})
	fgAt := func(x, y int) tcell.Color {
		cells, w, _ := h.scr.GetContents()
		fg, _, _ := cells[y*w+x].Style.Decompose()
		return fg
	}
	h.until("'package' coloured as a keyword", func(*session) bool { return fgAt(0, 0) == kwFg })
	var rows int
	h.e.call(func() { rows = len(h.e.cur.hl.rows) })
	require.Less(t, rows, screenH, "highlights for the rows on screen only")

	// Near the end: the colours follow the view.
	row := 1 + 4*(groups-10) // a "func" row
	y := 0
	h.e.call(func() {
		b := h.e.cur
		b.setCursor(pos{row, 0})
		h.e.scrollToCursor(b)
		y = row - b.top
	})
	h.until("the 'func' near the end coloured", func(*session) bool { return fgAt(0, y) == kwFg })

	// And the text: the row turned into a comment is coloured as one.
	h.typeText("// ")
	h.waitText("// func f() {")
	h.until("the new comment coloured", func(*session) bool { return fgAt(3, y) == commentFg })
	require.NotContains(t, messageLine(h.rows()), "parse", "no parse error reported")
}

// A read that fails after the first rows were shown leaves the buffer
// empty and read-only, as a read that fails at once does: the rows shown
// are not the file, and saving them would cut it short.
func TestFailedLoadDropsTheFirstRows(t *testing.T) {
	e := newIdleEditor(t)
	b := e.addBuffer(newBuffer(e.nextBuf, "f.txt"))
	e.nextBuf++
	b.path, b.loading = filepath.Join(t.TempDir(), "f.txt"), true
	b.showHead(newRows([]string{"first", "second"}), nil)
	require.Equal(t, 2, b.LineCount())
	e.loaded(b, fileText{}, errors.New("read f.txt: input/output error"))
	require.Equal(t, []string{""}, b.lines.all())
	require.True(t, b.readOnly)
	require.False(t, b.loading)
}

// Issue 14 (60 MB file): with the collector relaxed (GOGC=400), a large
// file's load sets the pace that allows a fixed growth over the live heap
// instead of four times it, which would let the resident size reach more
// than ten times the file; closing the buffer relaxes it again.
func TestLargeFileFitsTheCollectorsPace(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: the editor leaves the collector alone")
	}
	defer relaxGC()()
	e := newIdleEditor(t)
	path := writeTestFile(t, "big.txt", strings.Repeat("0123456789abcdef\n", bigTextBytes*3/2/17))
	b, err := e.openFile(path)
	require.NoError(t, err)
	(<-e.calls)() // the first rows
	(<-e.calls)() // drawn
	(<-e.calls)() // the whole text
	(<-e.calls)() // the refit
	loaded := readMetric("/gc/gogc:percent")
	require.Less(t, loaded, uint64(relaxedGCPercent))
	require.GreaterOrEqual(t, loaded, uint64(minGCPercent))

	require.NoError(t, e.closeBuffer(b))
	(<-e.calls)() // the refit
	require.Greater(t, readMetric("/gc/gogc:percent"), loaded)
}

// Issue 14 (60 MB file): the text of a file just opened is the string it
// was read into, not a copy built from the rows (0.2 s of the main loop
// for 60 MB, which the language server's open asks for at once); once the
// text is edited, or when its rows are stored without the CRs it had, the
// text is built from the rows.
func TestTextOfAnUneditedFileIsTheFileItself(t *testing.T) {
	const text = "package p\n\nfunc f() {}\n"
	b := bufferOf(text)
	got := b.Text()
	require.Equal(t, text, got)
	require.True(t, unsafe.StringData(b.lines.row(0)) == unsafe.StringData(got), "no copy")
	require.Equal(t, len(text), b.ByteCount())

	b.setCursor(pos{2, 0})
	require.NoError(t, b.insert("x"))
	require.Equal(t, "package p\n\nxfunc f() {}\n", b.Text())
	require.Equal(t, len(text)+1, b.ByteCount())
	require.True(t, b.undoStep())
	require.Equal(t, text, b.Text())

	for _, crlf := range []string{"a\r\nb\r\n", "a\nb\r\n", "a\r\nb"} {
		b := bufferOf(crlf)
		require.Equal(t, strings.ReplaceAll(crlf, "\r\n", "\n"), b.Text(), "%q", crlf)
		require.Equal(t, len(b.Text()), b.ByteCount())
	}
	for _, plain := range []string{"a", "a\r", "a\rb\n", "\n"} {
		require.Equal(t, plain, bufferOf(plain).Text(), "%q", plain)
	}
}

// A large file whose rows around the window hold more than the window's
// parse takes (one long minified row) gets no colours, and the message
// line says so, rather than a parse of megabytes on every keystroke.
func TestHugeFileOfLongRowsIsNotColoured(t *testing.T) {
	path := writeTestFile(t, "min.go", "package min\nvar x = []int{"+strings.Repeat("1, ", 2<<20)+"}\n")
	h := startEditor(t, Options{Path: path})
	h.waitScreen("the message", bottomHas("min.go: the rows around the window hold over 1024 KiB: no syntax colours there"))
	var parses int
	h.e.call(func() {
		for _, c := range h.e.rt.Snapshot().Completed {
			if c.Kind == parsejob.Kind {
				parses++
			}
		}
	})
	require.Zero(t, parses, "no parse job")
}

// A Go file above the language-server size limit is not synced with gopls
// (whose open alone makes three copies of the text, and whose server holds
// several times more): *messages* says so, and no client is started for it.
func TestHugeFileIsNotSyncedWithTheLanguageServer(t *testing.T) {
	path := writeTestFile(t, "huge.go", "package huge\n"+strings.Repeat("// "+strings.Repeat("x", 1021)+"\n", 17*1024))
	h := startEditor(t, Options{Path: path})
	h.until("the note in *messages*", func(e *session) bool {
		for _, b := range e.bufs {
			if b.name == "*messages*" && strings.Contains(b.Text(), "huge.go: 17 MiB: no language server for files above 16 MiB") {
				return true
			}
		}
		return false
	})
	var clients int
	h.e.call(func() { clients = h.e.lb.Stats().LSPClients })
	require.Zero(t, clients)
}
