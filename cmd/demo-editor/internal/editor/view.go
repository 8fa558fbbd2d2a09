package editor

import (
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// tabWidth is how many columns a tab advances to.
const tabWidth = 4

// cell is one grapheme of a row as drawn: where it starts in the row's
// bytes, its text and its width in columns.
type cell struct {
	col   int    // byte column in the row
	text  string // what to draw ("" for the columns a tab or wide glyph covers)
	width int
}

// eachCell walks line's graphemes with their display columns, expanding
// tabs and showing control bytes as '?'. fn returns false to stop.
func eachCell(line string, fn func(c cell, x int) bool) {
	x := 0
	state := -1
	for i := 0; i < len(line); {
		b := line[i]
		switch {
		case b == '\t':
			w := tabWidth - x%tabWidth
			if !fn(cell{col: i, text: " ", width: w}, x) {
				return
			}
			x += w
			i++
			state = -1
			continue
		case b < 0x20 || b == 0x7f:
			if !fn(cell{col: i, text: "?", width: 1}, x) {
				return
			}
			x++
			i++
			state = -1
			continue
		case b < utf8.RuneSelf:
			// ASCII is by far the common case: a one-byte slice of the
			// row, no allocation.
			if i+1 >= len(line) || line[i+1] < utf8.RuneSelf {
				if !fn(cell{col: i, text: line[i : i+1], width: 1}, x) {
					return
				}
				x++
				i++
				state = -1
				continue
			}
		}
		g, _, w, st := uniseg.FirstGraphemeClusterInString(line[i:], state)
		state = st
		if g == "" {
			return
		}
		if !utf8.ValidString(g) {
			g, w = "?", 1
		}
		if !fn(cell{col: i, text: g, width: w}, x) {
			return
		}
		x += w
		i += len(g)
	}
}

// displayCol returns the screen column of byte column col in line.
func displayCol(line string, col int) int {
	x := 0
	eachCell(line, func(c cell, cx int) bool {
		if c.col >= col {
			return false
		}
		x = cx + c.width
		return true
	})
	return x
}

// byteColAt returns the byte column of the grapheme at screen column x (or
// the end of the line when x is past it).
func byteColAt(line string, x int) int {
	col := len(line)
	eachCell(line, func(c cell, cx int) bool {
		if cx+c.width > x {
			col = c.col
			return false
		}
		return true
	})
	return col
}

// windowHeight is the number of text rows of the focused window: the
// screen minus the status, help and message lines, and when split, minus
// the other window and its status line.
func (e *session) windowHeight() int {
	_, h := e.focusedRect()
	return h
}

func (e *session) moveVert(b *buffer, dy int) {
	if b.wantCol < 0 {
		b.wantCol = displayCol(b.lines.row(b.cursor.Row), b.cursor.Col)
	}
	row := min(max(b.cursor.Row+dy, 0), b.lines.len()-1)
	want := b.wantCol
	b.setCursor(pos{row, byteColAt(b.lines.row(row), want)})
	b.wantCol = want
}

func (e *session) moveHoriz(b *buffer, dx int) {
	c := b.cursor
	line := b.lines.row(c.Row)
	switch {
	case dx < 0 && c.Col > 0:
		_, n := utf8.DecodeLastRuneInString(line[:c.Col])
		c.Col -= n
	case dx < 0 && c.Row > 0:
		c.Row--
		c.Col = len(b.lines.row(c.Row))
	case dx > 0 && c.Col < len(line):
		_, n := utf8.DecodeRuneInString(line[c.Col:])
		c.Col += n
	case dx > 0 && c.Row < b.lines.len()-1:
		c = pos{c.Row + 1, 0}
	}
	b.setCursor(c)
	b.wantCol = -1
}

// movePage scrolls a window-height and moves the cursor with it.
func (e *session) movePage(b *buffer, dir int) {
	h := e.windowHeight()
	step := max(h-1, 1) * dir
	b.top = min(max(b.top+step, 0), max(b.lines.len()-1, 0))
	e.moveVert(b, step)
}

// scrollToCursor moves b's view so its cursor is visible, keeping a
// margin of context rows where there is room.
func (e *session) scrollToCursor(b *buffer) {
	h := e.windowHeight()
	margin := min(2, (h-1)/2)
	row := b.cursor.Row
	if row < b.top+margin {
		b.top = max(row-margin, 0)
	}
	if row >= b.top+h-margin {
		b.top = row - h + margin + 1
	}
	b.top = min(max(b.top, 0), max(b.lines.len()-1, 0))
	w := e.width - e.gutterWidth(b)
	x := displayCol(b.lines.row(row), b.cursor.Col) + b.inlayWidth(row, b.cursor.Col)
	if x < b.left {
		b.left = max(x-w/4, 0)
	}
	if x >= b.left+w {
		b.left = x - w + w/4 + 1
	}
}
