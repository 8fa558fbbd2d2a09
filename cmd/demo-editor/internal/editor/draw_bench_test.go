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
