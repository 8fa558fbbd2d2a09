package editor

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	lua "github.com/yuin/gopher-lua"
)

// signColumn is a buffer's gutter: one cell left of the text on every row,
// holding a marker on the rows a script named (a language server's
// diagnostics). It stays while set, empty or not, so the text does not
// jump sideways as markers come and go.
type signColumn struct {
	rows map[int]sign
}

// at is row's sign; none on a nil column.
func (c *signColumn) at(row int) (sign, bool) {
	if c == nil {
		return sign{}, false
	}
	s, ok := c.rows[row]
	return s, ok
}

type sign struct {
	text string // one cell
	face face
	// note is shown in the status line while the cursor is on the row
	// (the diagnostic's message), "" for none.
	note string
}

// signRange marks rows [first, first+count) of a named layer: a version
// control gutter's added, changed and removed lines, a few ranges however
// long the file, kept sorted by first row.
type signRange struct {
	first, count int
	text         string
	face         face
}

// rangeSign returns the sign a range layer puts on row, in the order of
// the layers' names; the rows' own signs (diagnostics) are drawn over
// them.
func (b *buffer) rangeSign(row int) (sign, bool) {
	for _, name := range b.signLayerNames {
		rs := b.signLayers[name]
		i, _ := slices.BinarySearchFunc(rs, row, func(r signRange, row int) int {
			switch {
			case r.first+max(r.count, 1) <= row:
				return -1
			case r.first > row:
				return 1
			}
			return 0
		})
		if i < len(rs) && rs[i].first <= row && row < rs[i].first+max(rs[i].count, 1) {
			return sign{text: rs[i].text, face: rs[i].face}, true
		}
	}
	return sign{}, false
}

// rowNote is the note of the sign on the cursor's row, "" for none.
func (b *buffer) rowNote() string {
	if b.signs == nil {
		return ""
	}
	return b.signs.rows[b.cursor.Row].note
}

// gutterWidth is the number of screen columns left of b's text: the line
// numbers, when they are on and b is a file buffer, then the sign column.
func (e *session) gutterWidth(b *buffer) int {
	return e.numberWidth(b) + b.signWidth()
}

// signWidth is the sign column's width: one cell while a script has set
// signs or a layer of ranges.
func (b *buffer) signWidth() int {
	if b.signs == nil && len(b.signLayers) == 0 {
		return 0
	}
	return 1
}

// numberWidth is the width of b's line-number column, a space after the
// numbers included; 0 when the numbers are off or b is a view (its rows are
// list entries, not lines).
func (e *session) numberWidth(b *buffer) int {
	if !e.lineNumbers || b.noUndo {
		return 0
	}
	n, digits := b.lines.len(), 1
	for n >= 10 {
		n /= 10
		digits++
	}
	return max(digits, 3) + 1
}

// drawGutter paints the gutter of window row y (buffer row row): its
// number, right-aligned, and its sign.
func (e *session) drawGutter(b *buffer, y, row int, base tcell.Style) {
	x := 0
	if nw := e.numberWidth(b); nw > 0 {
		var digits [20]byte
		num := digits[:0]
		// The rows of the file's end shown while the rest is read (and
		// the row between) have no number yet, as the status line says.
		preview := b.loading && b.tailFrom > 0 && row >= b.tailFrom-1
		if row < b.lines.len() && !preview {
			num = strconv.AppendInt(num, int64(row+1), 10)
		}
		st := e.faces.resolve("line_number")
		for i := range nw {
			text := " "
			if j := i - (nw - 1 - len(num)); j >= 0 && j < len(num) {
				text = string(rune(num[j]))
			}
			e.scr.Put(i, y+e.rowOff, text, st)
		}
		x = nw
	}
	if b.signWidth() == 0 {
		return
	}
	st, text := base, " "
	if s, ok := b.signs.at(row); ok {
		st, text = e.faces.style(s.face), s.text
	} else if s, ok := b.rangeSign(row); ok {
		st, text = e.faces.style(s.face), s.text
	}
	e.scr.Put(x, y+e.rowOff, text, st)
}

// popup is a list drawn over the window, under (or above, when there is
// no room below) a position of its buffer: completion candidates.
type popup struct {
	lines    []string
	selected int // 0-based row of lines drawn selected, -1 for none
	at       pos
}

// maxPopupRows bounds the rows a popup draws; a script shows a window of
// a longer list.
const maxPopupRows = 12

// drawPopup paints b's popup over the focused window, whose text rows are
// [y0, y0+h).
func (e *session) drawPopup(b *buffer, y0, h int) {
	p := b.popup
	n := min(len(p.lines), maxPopupRows, h-1)
	if n <= 0 {
		return
	}
	width := 0
	for _, l := range p.lines[:n] {
		width = max(width, displayCol(l, len(l)))
	}
	width = min(width+2, e.width)
	row := min(p.at.Row, b.lines.len()-1)
	y := row - b.top + 1
	if y+n > h {
		y = row - b.top - n // above the anchor
	}
	y = max(y, 0)
	x := displayCol(b.lines.row(row), min(p.at.Col, len(b.lines.row(row)))) + b.inlayWidth(row, p.at.Col) - b.left + e.gutterWidth(b)
	x = max(min(x, e.width-width), 0)
	normal, sel := e.faces.resolve("popup"), e.faces.resolve("popup.selected")
	for i := range n {
		st := normal
		if i == p.selected {
			st = sel
		}
		line := " " + p.lines[i]
		end := 0
		eachCell(line, func(c cell, cx int) bool {
			if cx+c.width > width {
				return false
			}
			e.scr.Put(x+cx, y0+y+i, c.text, st)
			end = cx + c.width
			return true
		})
		for cx := end; cx < width; cx++ {
			e.scr.Put(x+cx, y0+y+i, " ", st)
		}
	}
}

// installLSPViewAPI adds the primitives the language-server views need:
// the gutter, the popup and multi-range edits.
func (e *session) installLSPViewAPI(api *lua.LTable) {
	d := tcell.StyleDefault
	for name, st := range map[string]tcell.Style{
		"popup":          d.Background(tcell.ColorNavy).Foreground(tcell.ColorWhite),
		"popup.selected": d.Background(tcell.ColorTeal).Foreground(tcell.ColorWhite).Bold(true),
		"info":           d.Foreground(tcell.ColorAqua),
		"hint":           d.Foreground(tcell.ColorGray),
	} {
		if _, ok := e.faces.set[name]; !ok {
			e.faces.setStyle(name, st)
		}
	}
	e.L.SetFuncs(api, map[string]lua.LGFunction{
		"set_signs": e.luaSetSigns, "popup": e.luaPopup, "apply_text_edits": e.luaApplyTextEdits, "check_text_edits": e.luaCheckTextEdits,
		"set_line_numbers": e.luaSetLineNumbers, "line_numbers": e.luaLineNumbers,
		"set_sign_ranges": e.luaSetSignRanges,
	})
}

// luaSetLineNumbers is ed.set_line_numbers(on): numbers in the gutter of
// every file buffer. The next draw sees the gutter's new width and
// repaints the window once; after that a keystroke repaints only its rows,
// numbers included.
func (e *session) luaSetLineNumbers(L *lua.LState) int {
	v := L.Get(1)
	if v.Type() != lua.LTBool {
		argErr(L, "set_line_numbers", 1, "on", "a boolean")
	}
	e.lineNumbers = v == lua.LTrue
	return 0
}

// luaLineNumbers is ed.line_numbers(): whether the rows are numbered.
func (e *session) luaLineNumbers(L *lua.LState) int {
	return push(L, lua.LBool(e.lineNumbers))
}

// luaSetSigns is ed.set_signs(buf, signs): the gutter's markers, each
// {row, text, group, note} (text one cell, group a highlight group, note
// an optional line the status line shows while the cursor is on the row),
// replacing the last ones; an empty list keeps an empty gutter, nil
// removes it.
func (e *session) luaSetSigns(L *lua.LState) int {
	const fname = "set_signs"
	b := e.bufArg(L, fname, 1)
	switch v := L.Get(2).(type) {
	case *lua.LNilType:
		b.signs = nil
	case *lua.LTable:
		sc := &signColumn{rows: make(map[int]sign, v.Len())}
		for i := 1; i <= v.Len(); i++ {
			st, ok := v.RawGetInt(i).(*lua.LTable)
			if !ok {
				L.RaiseError("pmacs.editor.%s: sign %d must be a table {row, text, group}, got %s", fname, i, v.RawGetInt(i).Type().String())
			}
			row, ok := st.RawGetInt(1).(lua.LNumber)
			if !ok || row < 0 || float64(row) != math.Trunc(float64(row)) {
				L.RaiseError("pmacs.editor.%s: sign %d: row must be a whole number >= 0, got %s", fname, i, st.RawGetInt(1).String())
			}
			text, ok := st.RawGetInt(2).(lua.LString)
			if !ok || displayCol(string(text), len(text)) != 1 || strings.ContainsAny(string(text), "\t\n") {
				L.RaiseError("pmacs.editor.%s: sign %d: text must be a string one cell wide, got %s", fname, i, st.RawGetInt(2).String())
			}
			group, ok := st.RawGetInt(3).(lua.LString)
			if !ok {
				L.RaiseError("pmacs.editor.%s: sign %d: group must be a string, got %s", fname, i, st.RawGetInt(3).Type().String())
			}
			note := ""
			switch v := st.RawGetInt(4).(type) {
			case lua.LString:
				note, _, _ = strings.Cut(string(v), "\n")
			case *lua.LNilType:
			default:
				L.RaiseError("pmacs.editor.%s: sign %d: note must be a string or nil, got %s", fname, i, v.Type().String())
			}
			sc.rows[int(row)] = sign{text: string(text), face: e.faces.intern(string(group)), note: note}
		}
		b.signs = sc
	default:
		argErr(L, fname, 2, "signs", "a list of signs or nil")
	}
	b.markDirty(0)
	return 0
}

// luaSetSignRanges is ed.set_sign_ranges(buf, layer, ranges): the
// gutter's markers of one named layer, each {first_row, count, text, group}
// marking rows [first_row, first_row+count) (count 0 marks first_row
// alone: a deletion's place), replacing the layer's last ones; an empty
// list keeps the gutter, nil removes the layer. Signs set with set_signs
// show over them on the same row.
func (e *session) luaSetSignRanges(L *lua.LState) int {
	const fname = "set_sign_ranges"
	b := e.bufArg(L, fname, 1)
	layer := strArg(L, fname, 2, "layer")
	switch v := L.Get(3).(type) {
	case *lua.LNilType:
		if _, ok := b.signLayers[layer]; ok {
			delete(b.signLayers, layer)
			b.signLayerNames = slices.DeleteFunc(b.signLayerNames, func(n string) bool { return n == layer })
		}
	case *lua.LTable:
		rs := make([]signRange, 0, v.Len())
		for i := 1; i <= v.Len(); i++ {
			t, ok := v.RawGetInt(i).(*lua.LTable)
			if !ok {
				L.RaiseError("pmacs.editor.%s: range %d must be a table {first_row, count, text, group}, got %s", fname, i, v.RawGetInt(i).Type().String())
			}
			whole := func(k int, what string) int {
				n, ok := t.RawGetInt(k).(lua.LNumber)
				if !ok || n < 0 || n > 1<<40 || float64(n) != math.Trunc(float64(n)) {
					L.RaiseError("pmacs.editor.%s: range %d: %s must be a whole number >= 0, got %s", fname, i, what, t.RawGetInt(k).String())
				}
				return int(n)
			}
			r := signRange{first: whole(1, "first_row"), count: whole(2, "count")}
			text, ok := t.RawGetInt(3).(lua.LString)
			if !ok || displayCol(string(text), len(text)) != 1 || strings.ContainsAny(string(text), "\t\n") {
				L.RaiseError("pmacs.editor.%s: range %d: text must be a string one cell wide, got %s", fname, i, t.RawGetInt(3).String())
			}
			group, ok := t.RawGetInt(4).(lua.LString)
			if !ok {
				L.RaiseError("pmacs.editor.%s: range %d: group must be a string, got %s", fname, i, t.RawGetInt(4).Type().String())
			}
			r.text, r.face = string(text), e.faces.intern(string(group))
			rs = append(rs, r)
		}
		slices.SortStableFunc(rs, func(a, b signRange) int { return a.first - b.first })
		// Overlaps would defeat the binary search: a later range starts
		// after the one before it ends.
		for i := 1; i < len(rs); i++ {
			if end := rs[i-1].first + max(rs[i-1].count, 1); rs[i].first < end {
				L.RaiseError("pmacs.editor.%s: ranges overlap at row %d", fname, rs[i].first)
			}
		}
		if b.signLayers == nil {
			b.signLayers = map[string][]signRange{}
		}
		if _, ok := b.signLayers[layer]; !ok {
			b.signLayerNames = append(b.signLayerNames, layer)
			slices.Sort(b.signLayerNames)
		}
		b.signLayers[layer] = rs
	default:
		argErr(L, fname, 3, "ranges", "a list of ranges or nil")
	}
	b.markDirty(0)
	return 0
}

// luaPopup is ed.popup(buf, lines, {row =, col =, selected =}) or
// ed.popup(buf, nil): shows (or replaces, or with nil removes) buf's popup,
// drawn while buf is in the focused window below row, col of it (the
// cursor by default), with row selected (1-based; 0 for none) in the
// popup.selected style.
func (e *session) luaPopup(L *lua.LState) int {
	const fname = "popup"
	b := e.bufArg(L, fname, 1)
	if L.Get(2) == lua.LNil {
		if b.popup != nil {
			b.popup = nil
			b.markDirty(0)
		}
		return 0
	}
	lines := linesArg(L, fname, 2)
	p := &popup{lines: lines, at: b.cursor, selected: -1}
	if opts, ok := L.Get(3).(*lua.LTable); ok {
		get := func(k string) (int, bool) {
			switch v := opts.RawGetString(k).(type) {
			case *lua.LNilType:
				return 0, false
			case lua.LNumber:
				if float64(v) == math.Trunc(float64(v)) && v >= 0 && v < 1<<40 {
					return int(v), true
				}
			}
			L.RaiseError("pmacs.editor.%s: option %s must be a whole number >= 0, got %s", fname, k, opts.RawGetString(k).String())
			return 0, false
		}
		if r, ok := get("row"); ok {
			p.at.Row, p.at.Col = r, 0
		}
		if c, ok := get("col"); ok {
			p.at.Col = c
		}
		if s, ok := get("selected"); ok {
			p.selected = s - 1
		}
	} else if L.Get(3) != lua.LNil {
		argErr(L, fname, 3, "opts", "a table or nil")
	}
	b.popup = p
	b.markDirty(0)
	return 0
}
