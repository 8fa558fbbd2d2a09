package editor

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	lua "github.com/yuin/gopher-lua"
)

// Inlays are virtual text: a label drawn at a position of a buffer (an
// inlay hint's type or parameter name) that is no part of its text. The
// text, the cursor's positions, search and saves never see them; drawing
// shifts the rest of the row right by their width, and the cursor and a
// click account for it. Edits move them with the text; an edit over one
// drops it.

// inlay is a label drawn before byte column col of row (at the row's end
// when col is its length).
type inlay struct {
	at    pos
	text  string
	width int
	face  face
}

// Bounds on what a script (from a server's answer) can make the editor
// hold and draw.
const (
	maxInlays     = 10000
	maxInlayBytes = 256
)

// inlaysOnRow returns the row's inlays, in column order (b.inlays is kept
// sorted by position).
func (b *buffer) inlaysOnRow(row int) []inlay {
	lo, _ := slices.BinarySearchFunc(b.inlays, row, func(in inlay, r int) int { return cmp.Compare(in.at.Row, r) })
	hi := lo
	for hi < len(b.inlays) && b.inlays[hi].at.Row == row {
		hi++
	}
	return b.inlays[lo:hi]
}

// inlayWidth is the width of the row's inlays drawn left of the character
// at byte column col: those at col or before it, so the cursor at col
// stands on the character, after its label.
func (b *buffer) inlayWidth(row, col int) int {
	w := 0
	for _, in := range b.inlaysOnRow(row) {
		if in.at.Col > col {
			break
		}
		w += in.width
	}
	return w
}

// textCol turns display column x of a row as drawn (inlays included) into
// the byte column of the text under it; a click on a label lands on the
// column it stands before.
func (b *buffer) textCol(row, x int) int {
	line := b.lines.row(row)
	shift := 0
	for _, in := range b.inlaysOnRow(row) {
		at := displayCol(line, min(in.at.Col, len(line))) + shift
		if x < at {
			break
		}
		if x < at+in.width {
			return min(in.at.Col, len(line))
		}
		shift += in.width
	}
	return byteColAt(line, x-shift)
}

// moveInlays moves the inlays for an edit that turned [s, oldEnd) into text
// ending at newEnd; those inside the replaced text go.
func (b *buffer) moveInlays(s, oldEnd, newEnd pos) {
	if len(b.inlays) == 0 {
		return
	}
	kept := b.inlays[:0]
	for _, in := range b.inlays {
		switch {
		case in.at.before(s):
		case !in.at.before(oldEnd):
			if in.at.Row == oldEnd.Row {
				in.at.Col += newEnd.Col - oldEnd.Col
			}
			in.at.Row += newEnd.Row - oldEnd.Row
		default:
			continue
		}
		kept = append(kept, in)
	}
	b.inlays = kept
}

// spliceInlays mirrors Buffer.spliceLines: rows [start, end) became n rows.
func (b *buffer) spliceInlays(start, end, n int) {
	if len(b.inlays) == 0 {
		return
	}
	kept := b.inlays[:0]
	for _, in := range b.inlays {
		switch {
		case in.at.Row < start:
		case in.at.Row >= end:
			in.at.Row += n - (end - start)
		default:
			continue
		}
		kept = append(kept, in)
	}
	b.inlays = kept
}

// inlayText makes a label one row of plain text: a line break, tab or
// other control character would break the row it is drawn in.
func inlayText(s string) string {
	if len(s) > maxInlayBytes {
		s = s[:maxInlayBytes]
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// luaSetInlays is ed.set_inlays(buf, list): buf's inlays become list, each
// {row, col, text, group} (0-based row, byte column; group defaults to
// "inlay"), replacing those set before. A position outside the text is
// clamped to its row, a row past the end dropped.
func (e *session) luaSetInlays(L *lua.LState) int {
	const fname = "set_inlays"
	b := e.bufArg(L, fname, 1)
	t, ok := L.Get(2).(*lua.LTable)
	if !ok {
		argErr(L, fname, 2, "inlays", "a list of {row, col, text, group}")
	}
	if t.Len() > maxInlays {
		L.RaiseError("pmacs.editor.%s: %d inlays (at most %d)", fname, t.Len(), maxInlays)
	}
	out := make([]inlay, 0, t.Len())
	def := e.faces.intern("inlay")
	for i := 1; i <= t.Len(); i++ {
		it, ok := t.RawGetInt(i).(*lua.LTable)
		if !ok {
			L.RaiseError("pmacs.editor.%s: inlay %d expected a table {row, col, text, group}", fname, i)
		}
		var nums [2]int
		for k, name := range [2]string{"row", "col"} {
			v, ok := spanField(it, name, k+1).(lua.LNumber)
			if !ok || v < 0 {
				L.RaiseError("pmacs.editor.%s: inlay %d field '%s' expected a number >= 0", fname, i, name)
			}
			nums[k] = int(v)
		}
		text, ok := spanField(it, "text", 3).(lua.LString)
		if !ok {
			L.RaiseError("pmacs.editor.%s: inlay %d field 'text' expected a string", fname, i)
		}
		f := def
		if g := spanField(it, "group", 4); g != lua.LNil {
			gs, ok := g.(lua.LString)
			if !ok {
				L.RaiseError("pmacs.editor.%s: inlay %d field 'group' expected a string", fname, i)
			}
			f = e.faces.intern(string(gs))
		}
		if nums[0] >= b.lines.len() || text == "" {
			continue
		}
		s := inlayText(string(text))
		out = append(out, inlay{at: pos{nums[0], min(nums[1], len(b.lines.row(nums[0])))}, text: s, width: displayCol(s, len(s)), face: f})
	}
	slices.SortStableFunc(out, func(a, b inlay) int {
		return cmp.Or(cmp.Compare(a.at.Row, b.at.Row), cmp.Compare(a.at.Col, b.at.Col))
	})
	b.inlays = out
	b.markDirty(0)
	return 0
}

// luaClearInlays is ed.clear_inlays(buf).
func (e *session) luaClearInlays(L *lua.LState) int {
	b := e.bufArg(L, "clear_inlays", 1)
	if len(b.inlays) > 0 {
		b.inlays = nil
		b.markDirty(0)
	}
	return 0
}

// luaInlays is ed.inlays(buf): the inlays as they stand now, after the
// edits since they were set, each {row, col, text}.
func (e *session) luaInlays(L *lua.LState) int {
	b := e.bufArg(L, "inlays", 1)
	out := L.CreateTable(len(b.inlays), 0)
	for i, in := range b.inlays {
		t := L.CreateTable(0, 3)
		t.RawSetString("row", lua.LNumber(in.at.Row))
		t.RawSetString("col", lua.LNumber(in.at.Col))
		t.RawSetString("text", lua.LString(in.text))
		out.RawSetInt(i+1, t)
	}
	L.Push(out)
	return 1
}

// luaRevision is ed.revision(buf): a number that grows with every change
// to buf's text, so a script can tell whether what it asked about the text
// (a language server's answer) is about the text as it is now.
func (e *session) luaRevision(L *lua.LState) int {
	return push(L, lua.LNumber(e.bufArg(L, "revision", 1).rev))
}

// installPaintAPI adds the language server's paint to pmacs.editor: the
// semantic tokens layer and inlays.
func (e *session) installPaintAPI(api *lua.LTable) {
	for name, group := range map[string]string{"inlay": "dim"} {
		if _, ok := e.faces.set[name]; !ok {
			e.faces.setStyle(name, e.faces.resolve(group).Italic(true))
		}
	}
	e.L.SetFuncs(api, map[string]lua.LGFunction{
		"set_semantic_tokens": e.luaSetSemanticTokens, "clear_semantic_tokens": e.luaClearSemanticTokens,
		"set_inlays": e.luaSetInlays, "clear_inlays": e.luaClearInlays, "inlays": e.luaInlays,
		"revision": e.luaRevision,
	})
}
