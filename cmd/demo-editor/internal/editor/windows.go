package editor

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// window is the unfocused half of a split screen. The focused window's
// buffer is e.cur, and its cursor and scroll are that buffer's own fields;
// the other window keeps its own here, so the two may show one buffer at
// two places. Focusing it swaps the two.
type window struct {
	buf       *buffer
	cursor    pos
	top, left int
}

// split is the second window's state: nil while one window fills the
// screen.
type split struct {
	other *window
	// otherTop says the unfocused window is the upper one.
	otherTop bool
}

// textRows is the rows both windows share: the screen minus the status,
// help and message lines.
func (e *session) textRows() int { return max(e.height-3, 1) }

// splitRows returns the upper window's height; the row below it is the
// upper window's own status line, and the lower window has the rest.
func (e *session) splitRows() (upper, lower int) {
	total := e.textRows()
	upper = max((total-1)/2, 1)
	return upper, max(total-upper-1, 1)
}

// focusedRect returns the screen row the focused window starts at and its
// height.
func (e *session) focusedRect() (y0, h int) {
	if e.win.other == nil {
		return 0, e.textRows()
	}
	upper, lower := e.splitRows()
	if e.win.otherTop {
		return upper + 1, lower
	}
	return 0, upper
}

// splitWindow divides the screen; the new (unfocused, lower) window shows
// the same buffer at the same place.
func (e *session) splitWindow() error {
	if e.win.other != nil {
		return fmt.Errorf("the screen is already split (M-1 makes one window)")
	}
	b := e.cur
	e.win.other = &window{buf: b, cursor: b.cursor, top: b.top, left: b.left}
	e.win.otherTop = false
	e.scrollToCursor(b)
	e.invalidate()
	return nil
}

// unsplit keeps the focused window only.
func (e *session) unsplit() {
	if e.win.other != nil {
		e.win.other = nil
		e.invalidate()
	}
}

// otherWindow focuses the other window: its buffer becomes e.cur with the
// window's cursor and scroll, and the window left keeps its own.
func (e *session) otherWindow() error {
	o := e.win.other
	if o == nil {
		return fmt.Errorf("one window only (M-2 splits)")
	}
	cur := e.cur
	left := &window{buf: cur, cursor: cur.cursor, top: cur.top, left: cur.left}
	b := o.buf
	b.mark = nil // a selection belongs to the window it was made in
	b.top, b.left = o.top, o.left
	b.setCursor(b.clampPos(o.cursor))
	b.wantCol = -1
	e.win.other = left
	e.win.otherTop = !e.win.otherTop
	if b != cur {
		e.prev = cur
		e.cur = b
		if e.prompt != nil && e.prompt.owner != b {
			e.cancelPrompt(cancelSwitch)
		}
	} else if e.prompt != nil && e.prompt.owner == b {
		e.cancelPrompt(cancelSwitch)
	}
	e.scrollToCursor(b)
	e.invalidate()
	return nil
}

// windowClosed points the other window away from a closed buffer.
func (e *session) windowClosed(b, fallback *buffer) {
	if o := e.win.other; o != nil && o.buf == b {
		*o = window{buf: fallback, cursor: fallback.cursor, top: fallback.top, left: fallback.left}
		e.invalidate()
	}
}

// drawOther paints the unfocused window and its status line when what it
// shows may have changed: always after the focused window repainted
// anything (they may show one buffer), else when its own buffer changed.
func (e *session) drawOther(focusedChanged bool) bool {
	o := e.win.other
	if o == nil {
		return false
	}
	b := o.buf
	if !focusedChanged && (b == e.cur || b.dirtyFrom < 0) {
		return false
	}
	upper, lower := e.splitRows()
	y0, h, statusY := upper+1, lower, -1
	if e.win.otherTop {
		y0, h, statusY = 0, upper, upper
	}
	// Draw it with its own cursor and scroll, and no selection.
	cursor, top, left, mark := b.cursor, b.top, b.left, b.mark
	o.cursor = b.clampPos(o.cursor)
	b.cursor, b.top, b.left, b.mark = o.cursor, min(o.top, max(b.lines.len()-1, 0)), o.left, nil
	saved := e.rowOff
	e.rowOff = y0
	for y := range h {
		e.drawRow(b, y)
	}
	e.rowOff = saved
	b.cursor, b.top, b.left, b.mark = cursor, top, left, mark
	if b != e.cur {
		b.dirtyFrom = -1
	}
	e.drawInactiveCursor(o, y0, h)
	e.drawSplitStatus(statusY)
	return true
}

// drawInactiveCursor marks the unfocused window's cursor, in rows [y0,
// y0+h) of the screen, with a dim block: the terminal's one cursor is the
// focused window's, and without a mark the other window's place is lost. A
// list view (its selected row drawn highlighted) needs none.
func (e *session) drawInactiveCursor(o *window, y0, h int) {
	b := o.buf
	if b.cursorLine || o.cursor.Row >= b.lines.len() {
		return
	}
	top := min(o.top, max(b.lines.len()-1, 0))
	x := displayCol(b.lines.row(o.cursor.Row), o.cursor.Col) + b.inlayWidth(o.cursor.Row, o.cursor.Col) - o.left + e.gutterWidth(b)
	y := o.cursor.Row - top
	if x < 0 || x >= e.width || y < 0 || y >= h {
		return
	}
	str, _, _ := e.scr.Get(x, y0+y)
	e.scr.Put(x, y0+y, str, styleCursorInactive)
}

// drawSplitStatus paints the upper window's status line at row y (the
// unfocused window's when y >= 0, dimmed, else the focused one's).
func (e *session) drawSplitStatus(y int) {
	upper, _ := e.splitRows()
	b, c, st := e.cur, e.cur.cursor, styleStatus
	if y < 0 {
		y = upper
	} else {
		b, c, st = e.win.other.buf, e.win.other.cursor, styleStatusInactive
	}
	e.putLine(0, y, windowStatus(b, c), st)
}

func (e *session) luaSplit(L *lua.LState) int {
	if err := e.splitWindow(); err != nil {
		return push(L, lua.LNil, lua.LString(err.Error()))
	}
	return push(L, lua.LTrue)
}

func (e *session) luaUnsplit(L *lua.LState) int {
	e.unsplit()
	return 0
}

func (e *session) luaOtherWindow(L *lua.LState) int {
	if err := e.otherWindow(); err != nil {
		return push(L, lua.LNil, lua.LString(err.Error()))
	}
	return push(L, lua.LNumber(e.cur.id))
}

func (e *session) installWindowAPI(api *lua.LTable) {
	e.L.SetFuncs(api, map[string]lua.LGFunction{
		"split": e.luaSplit, "unsplit": e.luaUnsplit, "other_window": e.luaOtherWindow,
		"windows": e.luaWindows,
	})
}

// luaWindows returns the buffers shown, the focused window's first.
func (e *session) luaWindows(L *lua.LState) int {
	t := L.CreateTable(2, 0)
	t.Append(lua.LNumber(e.cur.id))
	if o := e.win.other; o != nil {
		t.Append(lua.LNumber(o.buf.id))
	}
	L.Push(t)
	return 1
}
