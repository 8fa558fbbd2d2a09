package editor

import (
	"fmt"
	"testing"
)

// BenchmarkRedrawWindow measures a full repaint of a 120x40 window of grep
// results (what a new live grep query costs to show), split into the
// editor's painting and the simulation screen's Show.
func BenchmarkRedrawWindow(b *testing.B) {
	e, buf := grepWindow(b)
	b.Run("paint", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf.top = i % 2 // a different first row: every row changes
			e.draw()
		}
	})
}

// BenchmarkRedrawOneRow measures a frame of a streaming search once the
// window is full: one row (the header) changes.
func BenchmarkRedrawOneRow(b *testing.B) {
	e, buf := grepWindow(b)
	e.draw()
	for i := 0; b.Loop(); i++ {
		buf.spliceLines(0, 1, []string{fmt.Sprintf("grep \"func\": %d matches  searching", i)})
		e.draw()
	}
}

// grepWindow shows 200 grep-result rows in a 120x40 editor.
func grepWindow(b *testing.B) (*session, *buffer) {
	e := newIdleEditor(b)
	e.scr.SetSize(120, 40)
	e.width, e.height = e.scr.Size()
	buf := e.newScratch("*bench*")
	lines := make([]string, 200)
	for i := range lines {
		lines[i] = fmt.Sprintf("src/pkg/file%03d.go:%d: func example%d(ctx context.Context) error { return nil }", i, i*7, i)
	}
	buf.appendLines(lines)
	e.show(buf)
	return e, buf
}

// BenchmarkDrawTypedChar measures the draw after one character typed into
// a file buffer of 2,000 rows in a 120x40 window, with and without line
// numbers: the row typed in is the only one repainted, its number with it.
// Each op types a character and deletes it again (two edits, two draws),
// so the row keeps its length.
func BenchmarkDrawTypedChar(b *testing.B) {
	for _, numbers := range []bool{false, true} {
		b.Run(fmt.Sprintf("numbers=%v", numbers), func(b *testing.B) {
			e := newIdleEditor(b)
			e.scr.SetSize(120, 40)
			e.width, e.height = e.scr.Size()
			buf := newBuffer(e.nextBuf, "typing.go")
			e.nextBuf++
			e.addBuffer(buf)
			lines := make([]string, 2000)
			for i := range lines {
				lines[i] = fmt.Sprintf("\tx%d := compute(ctx, %d) // a row of ordinary Go", i, i)
			}
			buf.spliceLines(0, 1, lines)
			buf.cursor = pos{20, 1}
			e.lineNumbers = numbers
			e.show(buf)
			e.draw()
			for b.Loop() {
				buf.edit(buf.cursor, buf.cursor, "y", true)
				e.draw()
				buf.edit(pos{20, 1}, buf.cursor, "", false)
				e.draw()
			}
		})
	}
}
