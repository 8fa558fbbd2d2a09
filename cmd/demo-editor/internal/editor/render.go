package editor

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
)

var (
	styleStatus = tcell.StyleDefault.Reverse(true)
	// The status line of the window without focus, and its cursor: dimmer
	// colours, as Vim and Helix draw an inactive window, so which of two
	// windows takes the keys shows at a glance.
	styleStatusInactive = tcell.StyleDefault.Background(tcell.ColorDimGray).Foreground(tcell.ColorSilver)
	styleCursorInactive = tcell.StyleDefault.Background(tcell.ColorGray).Foreground(tcell.ColorBlack)
	styleHelp           = tcell.StyleDefault.Foreground(tcell.ColorGray)
	styleError          = tcell.StyleDefault.Foreground(tcell.ColorRed).Bold(true)
	stylePrompt         = tcell.StyleDefault.Bold(true)
	styleSelection      = tcell.ColorNavy
	styleTilde          = tcell.StyleDefault.Foreground(tcell.ColorGray)
	// In-buffer search matches, and the one the cursor went to.
	styleMatch    = tcell.StyleDefault.Background(tcell.ColorOlive).Foreground(tcell.ColorBlack)
	styleMatchCur = tcell.StyleDefault.Background(tcell.ColorYellow).Foreground(tcell.ColorBlack)
)

// invalidate makes the next draw repaint everything.
func (e *session) invalidate() {
	e.winAll = true
	e.shownLines = [4]string{"\x00", "\x00", "\x00", "\x00"}
}

// draw repaints what changed since the last draw: the window rows from the
// first changed one, and the bottom lines whose text changed. Appending
// below the visible rows (a streaming grep) repaints nothing but the
// status line.
func (e *session) draw() {
	if e.width <= 0 || e.height <= 0 {
		return
	}
	b := e.cur
	y0, h := e.focusedRect()
	e.rowOff = y0
	changed := e.mustShow
	e.mustShow = false

	from, to := 0, 0 // window rows to repaint
	ss, se, sel := b.selection()
	var selNow [3]pos // a selection change repaints the window
	if sel {
		selNow = [3]pos{ss, se, {Row: 1}}
	}
	// A gutter that widened or narrowed (line numbers toggled, a row
	// count reaching another digit) moves every row's text.
	gutter := e.gutterWidth(b)
	switch {
	case e.winAll || e.shownBuf != b || e.shownTop != b.top || e.shownLeft != b.left || e.shownSel != selNow || e.shownGutter != gutter:
		from, to = 0, h
	case b.dirtyFrom >= 0:
		from = max(b.dirtyFrom-b.top, 0)
		to = min(b.dirtyTo-b.top, h)
		if b.dirtyTo == math.MaxInt {
			to = h
		}
	}
	if b.cursorLine && e.shownCur != b.cursor {
		// The selection moved: repaint the rows it left and reached.
		for _, r := range [2]int{e.shownCur.Row - b.top, b.cursor.Row - b.top} {
			if r >= 0 && r < h && (r < from || r >= to) {
				e.drawRow(b, r)
				changed = true
			}
		}
	}
	for y := from; y < to; y++ {
		e.drawRow(b, y)
		changed = true
	}
	if b.popup != nil && from < to {
		e.drawPopup(b, y0, h) // the rows drawn may have covered it
	}
	focusedChanged := e.winAll || from < to
	e.winAll = false
	e.shownBuf, e.shownTop, e.shownLeft, e.shownSel, e.shownGutter = b, b.top, b.left, selNow, gutter
	b.dirtyFrom = -1
	if e.win.other != nil {
		if !e.win.otherTop && (focusedChanged || e.shownCur != b.cursor) {
			e.drawSplitStatus(-1)
			changed = true
		}
		changed = e.drawOther(focusedChanged) || changed
	}

	y := e.textRows()
	for i, text := range [3]string{e.statusText(), e.help, ""} {
		if y+i >= e.height {
			break
		}
		if i == 2 {
			changed = e.drawBottomLine(y+i) || changed
			continue
		}
		if e.shownLines[i] == text {
			continue
		}
		e.shownLines[i] = text
		st := styleStatus
		if i == 0 && e.lowerUnfocused() {
			st = styleStatusInactive
		}
		if i == 1 {
			st = styleHelp
		}
		e.putLine(0, y+i, text, st)
		changed = true
	}

	// The cursor: in the prompt, in the text, or hidden in a list view
	// whose selected row is drawn highlighted instead.
	cx, cy := -1, -1
	if e.prompt != nil {
		cx, cy = e.promptCursorX(), e.height-1
	} else if !b.cursorLine {
		cx = displayCol(b.lines.row(b.cursor.Row), b.cursor.Col) + b.inlayWidth(b.cursor.Row, b.cursor.Col) - b.left + e.gutterWidth(b)
		cy = b.cursor.Row - b.top + y0
	}
	if b.cursor != e.shownCur || changed {
		e.scr.ShowCursor(cx, cy)
		e.shownCur = b.cursor
		changed = true
	}
	if changed {
		e.scr.Show()
		if e.afterShow != nil {
			e.afterShow()
		}
	}
}

// drawRow paints window row y of b.
func (e *session) drawRow(b *buffer, y int) {
	row := b.top + y
	selected := b.cursorLine && row == b.cursor.Row
	base := tcell.StyleDefault
	if selected {
		base = base.Background(styleSelection)
	}
	// gx is the gutter's width: the text is drawn right of it, in w columns.
	gx := e.gutterWidth(b)
	if gx > 0 {
		e.drawGutter(b, y, row, base)
	}
	w := e.width - gx
	x := 0
	ss, se, sel := b.selection()
	sel = sel && ss.Row <= row && row <= se.Row
	if row < b.lines.len() {
		if b.gv != nil {
			e.formatGrepRow(b, row)
		}
		spans, sem := b.hl.row(row), b.sem.row(row)
		var hits []textMatch
		if b.hits != nil {
			e.hitBuf = b.hits.row(row, e.hitBuf[:0])
			hits = e.hitBuf
		}
		// Inlays are drawn before the character at their column, and
		// shift the rest of the row right by their width.
		inlays := b.inlaysOnRow(row)
		shift := 0
		drawInlays := func(col, at int) bool {
			for len(inlays) > 0 && inlays[0].at.Col <= col {
				in := inlays[0]
				inlays = inlays[1:]
				st := e.faces.style(in.face)
				if selected {
					st = st.Background(styleSelection)
				}
				ok := true
				eachCell(in.text, func(c cell, ix int) bool {
					sx := at + shift + ix - b.left
					if sx+c.width > w {
						ok = false
						return false
					}
					if sx >= 0 {
						e.scr.Put(gx+sx, y+e.rowOff, c.text, st)
						x = sx + c.width
					}
					return true
				})
				shift += in.width
				if !ok {
					return false
				}
			}
			return true
		}
		line := b.lines.row(row)
		eachCell(line, func(c cell, cx int) bool {
			if len(inlays) > 0 && !drawInlays(c.col, cx) {
				return false
			}
			sx := cx + shift - b.left
			if sx >= w {
				return false
			}
			if sx < 0 {
				return true
			}
			st := base
			f := spanAt(sem, c.col)
			if f == 0 {
				f = spanAt(spans, c.col)
			}
			if f != 0 {
				st = e.faces.style(f)
				if selected {
					st = st.Background(styleSelection)
				}
			}
			for _, m := range hits {
				if int(m.start) <= c.col && c.col < int(m.end) {
					st = styleMatch
					if cur := b.hits.cur; cur != nil && *cur == m {
						st = styleMatchCur
					}
					break
				}
			}
			if sel && (row > ss.Row || c.col >= ss.Col) && (row < se.Row || c.col < se.Col) {
				st = st.Reverse(true)
			}
			if c.width > 1 && c.text == " " { // a tab
				for i := 0; i < c.width && sx+i < w; i++ {
					e.scr.Put(gx+sx+i, y+e.rowOff, " ", st)
				}
			} else if sx+c.width <= w {
				e.scr.Put(gx+sx, y+e.rowOff, c.text, st)
			} else {
				e.scr.Put(gx+sx, y+e.rowOff, " ", st) // a wide glyph cut by the edge
			}
			x = sx + c.width
			return true
		})
		if len(inlays) > 0 && x < w {
			// Those at the row's end.
			drawInlays(len(line), displayCol(line, len(line)))
		}
	} else {
		e.scr.Put(gx, y+e.rowOff, "~", styleTilde)
		x = 1
	}
	for ; x < w; x++ {
		e.scr.Put(gx+x, y+e.rowOff, " ", base)
	}
}

// spanAt returns the face of the narrowest span covering col, so a nested
// capture (an escape inside a string) wins over its container; of spans
// as narrow, the last, as if painted in order (an injected tree's capture
// over its host's, a script's overlay added over the syntax colours).
func spanAt(spans []hlSpan, col int) face {
	var f face
	best := -1
	for _, sp := range spans {
		if sp.start <= col && col < sp.end && (best < 0 || sp.end-sp.start <= best) {
			f, best = sp.face, sp.end-sp.start
		}
	}
	return f
}

// putLine paints text across the whole row y from x, padding with spaces.
func (e *session) putLine(x, y int, text string, st tcell.Style) int {
	eachCell(text, func(c cell, cx int) bool {
		if x+cx+c.width > e.width {
			return false
		}
		e.scr.Put(x+cx, y, c.text, st)
		for i := 1; i < c.width && c.text == " "; i++ {
			e.scr.Put(x+cx+i, y, " ", st)
		}
		return true
	})
	end := x + displayCol(text, len(text))
	for i := end; i < e.width; i++ {
		e.scr.Put(i, y, " ", st)
	}
	return end
}

// drawBottomLine paints the prompt or the message; it reports whether the
// row changed.
func (e *session) drawBottomLine(y int) bool {
	var key string
	if p := e.prompt; p != nil {
		key = "p\x00" + p.label + "\x00" + p.text + "\x00" + strconv.Itoa(p.cursor) + "\x00" + p.hint
	} else {
		key = fmt.Sprintf("m\x00%v\x00%s", e.msgErr, e.msg)
	}
	if e.shownLines[2] == key {
		return false
	}
	e.shownLines[2] = key
	if p := e.prompt; p != nil {
		x := e.putLine(0, y, e.promptLabel(), stylePrompt)
		x = e.putLine(x, y, p.text[e.promptSkip():], tcell.StyleDefault)
		if p.hint != "" && x < e.width {
			e.putLine(x, y, p.hint, styleHelp)
		}
		return true
	}
	st := tcell.StyleDefault
	if e.msgErr {
		st = styleError
	}
	msg, _, _ := strings.Cut(e.msg, "\n")
	e.putLine(0, y, msg, st)
	return true
}

// lowerUnfocused reports a split whose lower window, the one above the
// status line, is not the focused one.
func (e *session) lowerUnfocused() bool { return e.win.other != nil && !e.win.otherTop }

// statusText is the status line: the buffer and cursor of the window above
// it (the lower one of a split), then the frame time (p99 over the last
// second) and the work in flight.
func (e *session) statusText() string {
	b, c := e.cur, e.cur.cursor
	if e.lowerUnfocused() {
		b, c = e.win.other.buf, e.win.other.cursor
	}
	left := windowStatus(b, c)
	p99, n := e.stats.p99(time.Now())
	frame := "frame p99 -"
	if n > 0 {
		frame = fmt.Sprintf("frame p99 %.1fms", float64(p99.Microseconds())/1000)
	}
	// Every job the editor runs is started from Lua, so the binding's
	// unsettled jobs are all of them: no copy of the runtime's snapshot.
	st := e.lb.Stats()
	// The project root by its last part: the folder grep, compile, the
	// picker and the trust question are about.
	right := fmt.Sprintf("[%s]  %s  jobs %d  tasks %d ", filepath.Base(e.root), frame, st.Jobs, st.Tasks)
	if e.restricted() {
		// The workspace's own programs do not run (trust.go).
		right = "restricted  " + right
	}
	pad := e.width - displayCol(left, len(left)) - displayCol(right, len(right))
	if pad < 1 {
		pad = 1
	}
	return left + strings.Repeat(" ", pad) + right
}

// windowStatus is a window's part of a status line: its buffer's name and
// flags, its cursor, the language and the buffer's status text.
func windowStatus(b *buffer, c pos) string {
	flags := ""
	switch {
	case b.loading:
		flags = " [loading]"
	case b.saving:
		flags = " [saving]"
	case b.Modified():
		flags = " [+]"
	case b.readOnly:
		flags = " [ro]"
	}
	lang := b.lang
	if lang != "" {
		lang = " " + lang
	}
	if b.status != "" {
		lang += "  " + b.status
	}
	if len(b.statusSlots) > 0 {
		for _, slot := range slices.Sorted(maps.Keys(b.statusSlots)) {
			lang += "  " + b.statusSlots[slot]
		}
	}
	if note := b.rowNote(); note != "" {
		lang += "  " + note
	}
	if b.loading && b.tailFrom > 0 && c.Row >= b.tailFrom {
		// A row of the file's end shown while the rest is read: its
		// number is not known yet.
		return fmt.Sprintf(" %s%s  ?:%d%s", b.name, flags, c.Col+1, lang)
	}
	return fmt.Sprintf(" %s%s  %d:%d%s", b.name, flags, c.Row+1, c.Col+1, lang)
}
