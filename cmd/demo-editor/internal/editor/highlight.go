package editor

import (
	"slices"
	"strings"

	"github.com/gdamore/tcell/v2"
)

// hlSpan colours bytes [start, end) of one row with a face.
type hlSpan struct {
	start, end int
	face       face
}

// hlRows holds a buffer's highlight spans for a window of rows: rows
// [first, first+len(rows)), the rows highlights were set for. Edits move the
// spans with the text (see replace), so the colours stay roughly right
// between an edit and the reparse that corrects them.
//
// Only the rows that have spans (and the rows between them) take room: a
// script that colours the rows on screen of a 60 MB file (5 million rows)
// costs a few dozen entries, where one entry per row of the buffer would
// cost 24 bytes a row (115 MB), and every line break typed would move them
// all.
type hlRows struct {
	first int
	rows  [][]hlSpan
}

func (h *hlRows) row(r int) []hlSpan {
	if r < h.first || r >= h.first+len(h.rows) {
		return nil
	}
	return h.rows[r-h.first]
}

// cover grows the window to hold rows [from, to).
func (h *hlRows) cover(from, to int) {
	if len(h.rows) == 0 {
		h.first, h.rows = from, make([][]hlSpan, to-from)
		return
	}
	if from < h.first {
		h.rows = slices.Insert(h.rows, 0, make([][]hlSpan, h.first-from)...)
		h.first = from
	}
	if end := h.first + len(h.rows); to > end {
		h.rows = append(h.rows, make([][]hlSpan, to-end)...)
	}
}

// setRow makes spans row r's highlights.
func (h *hlRows) setRow(r int, spans []hlSpan) {
	h.cover(r, r+1)
	h.rows[r-h.first] = spans
}

// add colours [s, e) with f, split into per-row pieces; rows past nrows
// (the buffer's row count) are ignored. lineLen gives a row's length for
// the pieces that run to the end of a row.
func (h *hlRows) add(s, e pos, f face, nrows int, lineLen func(int) int) {
	if e.before(s) || s.Row >= nrows {
		return
	}
	s.Row = max(s.Row, 0)
	e.Row = min(e.Row, nrows-1)
	for r := s.Row; r <= e.Row; r++ {
		start, end := 0, lineLen(r)
		if r == s.Row {
			start = s.Col
		}
		if r == e.Row {
			end = min(end, e.Col)
		}
		if end <= start {
			continue
		}
		h.cover(r, r+1)
		h.rows[r-h.first] = append(h.rows[r-h.first], hlSpan{start, end, f})
	}
}

// replace moves the spans for an edit that turned [s, oldEnd) into text
// ending at newEnd; nrows is the row count after the edit. An edit above
// the window shifts it; one below leaves it.
func (h *hlRows) replace(s, oldEnd, newEnd pos, nrows int) {
	if len(h.rows) == 0 {
		return
	}
	switch {
	case s.Row >= h.first+len(h.rows):
		h.truncate(nrows)
		return
	case oldEnd.Row < h.first:
		h.first += newEnd.Row - oldEnd.Row
		return
	}
	insertOnly := s == oldEnd
	var head, tail []hlSpan
	for _, sp := range h.row(s.Row) {
		switch {
		case sp.end <= s.Col:
			head = append(head, sp)
		case insertOnly && newEnd.Row == s.Row && sp.start < s.Col:
			// Typing inside a token keeps the token's colour.
			sp.end += newEnd.Col - s.Col
			head = append(head, sp)
		case sp.start < s.Col:
			head = append(head, hlSpan{sp.start, s.Col, sp.face})
		}
	}
	shift := newEnd.Col - oldEnd.Col
	for _, sp := range h.row(oldEnd.Row) {
		if oldEnd.Row == s.Row && sp.start < s.Col {
			continue // already kept in head
		}
		if sp.end <= oldEnd.Col {
			continue // inside the replaced text
		}
		sp.start = max(sp.start, oldEnd.Col) + shift
		sp.end += shift
		tail = append(tail, sp)
	}
	added := make([][]hlSpan, newEnd.Row-s.Row+1)
	added[0] = head
	added[len(added)-1] = append(added[len(added)-1], tail...)
	// The replaced rows are those of the window in [s.Row, oldEnd.Row]; a
	// window that starts inside them now starts at s.Row.
	hi := min(oldEnd.Row+1-h.first, len(h.rows))
	if lo := s.Row - h.first; lo >= 0 {
		h.rows = slices.Replace(h.rows, lo, hi, added...)
	} else {
		h.rows = slices.Replace(h.rows, 0, hi, added...)
		h.first = s.Row
	}
	h.truncate(nrows)
}

// truncate drops the rows at and past nrows.
func (h *hlRows) truncate(nrows int) {
	if h.first+len(h.rows) > nrows {
		h.rows = h.rows[:max(nrows-h.first, 0)]
	}
}

// splice mirrors Buffer.spliceLines: rows [start, end) become n rows with no
// highlights.
func (h *hlRows) splice(start, end, n int) {
	if len(h.rows) == 0 || start >= h.first+len(h.rows) {
		return
	}
	if end <= h.first {
		h.first += n - (end - start)
		return
	}
	hi := min(end-h.first, len(h.rows))
	if lo := start - h.first; lo >= 0 {
		h.rows = slices.Replace(h.rows, lo, hi, make([][]hlSpan, n)...)
	} else {
		h.rows = slices.Replace(h.rows, 0, hi, make([][]hlSpan, n)...)
		h.first = start
	}
}

// face is an interned highlight group ("keyword", "function.call", ...).
type face uint16

// faces interns highlight groups and resolves them to styles. A group with
// no style of its own takes its parent's: "function.call" falls back to
// "function".
type faces struct {
	ids    map[string]face
	names  []string
	styles []tcell.Style
	set    map[string]tcell.Style // styles set by name (defaults and scripts)
}

func newFaces() *faces {
	f := &faces{ids: map[string]face{}, set: map[string]tcell.Style{}}
	f.intern("") // face 0 is plain text
	d := tcell.StyleDefault
	for name, st := range map[string]tcell.Style{
		"keyword":     d.Foreground(tcell.ColorFuchsia),
		"conditional": d.Foreground(tcell.ColorFuchsia),
		"repeat":      d.Foreground(tcell.ColorFuchsia),
		"include":     d.Foreground(tcell.ColorFuchsia),
		"string":      d.Foreground(tcell.ColorGreen),
		"character":   d.Foreground(tcell.ColorGreen),
		"escape":      d.Foreground(tcell.ColorTeal),
		"comment":     d.Foreground(tcell.ColorGray).Italic(true),
		"function":    d.Foreground(tcell.ColorBlue),
		"method":      d.Foreground(tcell.ColorBlue),
		"constructor": d.Foreground(tcell.ColorBlue),
		"type":        d.Foreground(tcell.ColorTeal),
		"number":      d.Foreground(tcell.ColorOlive),
		"float":       d.Foreground(tcell.ColorOlive),
		"boolean":     d.Foreground(tcell.ColorOlive),
		"constant":    d.Foreground(tcell.ColorOlive),
		"operator":    d.Foreground(tcell.ColorSilver),
		"property":    d.Foreground(tcell.ColorAqua),
		"field":       d.Foreground(tcell.ColorAqua),
		"attribute":   d.Foreground(tcell.ColorAqua),
		"tag":         d.Foreground(tcell.ColorFuchsia),
		"label":       d.Foreground(tcell.ColorAqua),
		"namespace":   d.Foreground(tcell.ColorTeal),
		"punctuation": d,
		"variable":    d,
		"text.title":  d.Bold(true),
		"markup":      d,
		"match":       d.Foreground(tcell.ColorRed).Bold(true),
		"directory":   d.Foreground(tcell.ColorBlue).Bold(true),
		"symlink":     d.Foreground(tcell.ColorTeal),
		"header":      d.Bold(true),
		"dim":         d.Foreground(tcell.ColorGray),
		"line_number": d.Foreground(tcell.ColorGray),
		"error":       d.Foreground(tcell.ColorRed),
		"warning":     d.Foreground(tcell.ColorYellow),
		"ok":          d.Foreground(tcell.ColorGreen),
	} {
		f.set[name] = st
	}
	return f
}

func (f *faces) intern(group string) face {
	if id, ok := f.ids[group]; ok {
		return id
	}
	id := face(len(f.names))
	f.ids[group] = id
	f.names = append(f.names, group)
	f.styles = append(f.styles, f.resolve(group))
	return id
}

func (f *faces) resolve(group string) tcell.Style {
	for g := group; g != ""; {
		if st, ok := f.set[g]; ok {
			return st
		}
		i := strings.LastIndexByte(g, '.')
		if i < 0 {
			break
		}
		g = g[:i]
	}
	return tcell.StyleDefault
}

// setStyle gives group (and the groups that fall back to it) a style.
func (f *faces) setStyle(group string, st tcell.Style) {
	f.set[group] = st
	for i, name := range f.names {
		if i > 0 {
			f.styles[i] = f.resolve(name)
		}
	}
}

func (f *faces) style(id face) tcell.Style {
	if int(id) < len(f.styles) {
		return f.styles[id]
	}
	return tcell.StyleDefault
}
