package editor

import "github.com/gdamore/tcell/v2"

// wheelRows is how many rows one wheel step scrolls.
const wheelRows = 3

// mouseState follows the first button between events: where it went down,
// so a drag selects from there.
type mouseState struct {
	down bool
	buf  *buffer
	from pos
}

// handleMouse places the cursor on a click, selects on a drag (a transient
// selection, as with shift+movement) and scrolls on the wheel. Only the
// text window takes the mouse; the bottom lines ignore it.
func (e *session) handleMouse(ev *tcell.EventMouse) {
	b := e.cur
	x, y := ev.Position()
	btn := ev.Buttons()
	switch {
	case btn&tcell.WheelUp != 0:
		e.scrollBy(b, -wheelRows)
		return
	case btn&tcell.WheelDown != 0:
		e.scrollBy(b, wheelRows)
		return
	case btn&tcell.Button1 == 0:
		e.mouse.down = false
		return
	}
	y0, _ := e.focusedRect()
	y -= y0
	if y < 0 || y >= e.windowHeight() {
		return
	}
	row := min(b.top+y, b.lines.len()-1)
	p := b.clampPos(pos{row, b.textCol(row, max(x-e.gutterWidth(b), 0)+b.left)})
	if !e.mouse.down || e.mouse.buf != b {
		e.setMessage("", false)
		e.mouse = mouseState{down: true, buf: b, from: p}
		b.mark = nil
		b.setCursor(p)
		b.wantCol = -1
		return
	}
	if p != e.mouse.from {
		from := e.mouse.from
		b.mark, b.markTransient = &from, true
	}
	b.setCursor(p)
	b.wantCol = -1
}

// scrollBy moves b's view by n rows, taking the cursor along where it
// would leave the screen (inside the margin scrollToCursor keeps, so the
// view does not move back).
func (e *session) scrollBy(b *buffer, n int) {
	h := e.windowHeight()
	margin := min(2, (h-1)/2)
	b.top = min(max(b.top+n, 0), max(b.lines.len()-h, 0))
	row := b.cursor.Row
	if row < b.top+margin && b.top > 0 {
		row = b.top + margin
	} else if row >= b.top+h-margin {
		row = b.top + h - margin - 1
	}
	row = min(max(row, 0), b.lines.len()-1)
	if row != b.cursor.Row {
		e.moveVert(b, row-b.cursor.Row)
	}
}
