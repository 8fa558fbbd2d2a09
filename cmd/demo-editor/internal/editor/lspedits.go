package editor

import (
	"fmt"
	"math"
	"slices"

	"github.com/pmacs-go/pmacs-go/textpos"
	lua "github.com/yuin/gopher-lua"
)

// maxEditLog bounds the edits a file buffer keeps for a script that has not
// taken them: past it they are dropped and the next take says "resync", so
// a buffer nobody syncs costs little memory.
const maxEditLog = 4096

// lspEdit is one replacement as a language server wants it: the range in
// the text before the edit, in zero-based rows and UTF-16 columns.
type lspEdit struct {
	line, col, endLine, endCol int
	// byteCol and endByteCol are the same columns in bytes, for a server
	// that counts UTF-8 (clangd).
	byteCol, endByteCol int
	text                string
}

// editLog records a file buffer's edits as they happen, so a language
// client can send incremental didChange notifications without diffing the
// text.
type editLog struct {
	edits    []lspEdit
	overflow bool // edits were dropped (or the text was reloaded): resync
}

// record notes a replacement of [s, e) by text; it runs before the buffer
// changes, so the columns are measured on the old rows.
func (l *editLog) record(b *buffer, s, e pos, text string) {
	if b.path == "" || l.overflow {
		return
	}
	if len(l.edits) >= maxEditLog {
		l.edits, l.overflow = nil, true
		return
	}
	l.edits = append(l.edits, lspEdit{
		line: s.Row, col: textpos.Units(b.lines.row(s.Row), s.Col, textpos.UTF16),
		endLine: e.Row, endCol: textpos.Units(b.lines.row(e.Row), e.Col, textpos.UTF16),
		byteCol: s.Col, endByteCol: e.Col,
		text: text,
	})
}

// reset marks the log stale: the whole text changed (a load).
func (l *editLog) reset() { l.edits, l.overflow = nil, true }

// luaTakeEdits is ed.take_edits(buf): the edits since the last call, in
// order, each {line, col, end_line, end_col, byte_col, end_byte_col, text}
// (UTF-16 columns and the same in bytes, the range before the edit), or
// nil, "resync" when some were dropped or the
// text was reloaded, so the caller must send the whole text again.
func (e *session) luaTakeEdits(L *lua.LState) int {
	b := e.bufArg(L, "take_edits", 1)
	l := &b.edits
	if l.overflow {
		l.edits, l.overflow = nil, false
		L.Push(lua.LNil)
		L.Push(lua.LString("resync"))
		return 2
	}
	t := L.CreateTable(len(l.edits), 0)
	for i, ed := range l.edits {
		et := L.CreateTable(0, 7)
		et.RawSetString("line", lua.LNumber(ed.line))
		et.RawSetString("col", lua.LNumber(ed.col))
		et.RawSetString("end_line", lua.LNumber(ed.endLine))
		et.RawSetString("end_col", lua.LNumber(ed.endCol))
		et.RawSetString("byte_col", lua.LNumber(ed.byteCol))
		et.RawSetString("end_byte_col", lua.LNumber(ed.endByteCol))
		et.RawSetString("text", lua.LString(ed.text))
		t.RawSetInt(i+1, et)
	}
	l.edits = nil
	L.Push(t)
	return 1
}

// luaSetStatus is ed.set_status(buf, text[, slot]): a note shown in the
// status line while buf is shown ("" removes it). A named slot keeps a
// note of its own beside the others (the git branch beside the
// diagnostics count).
func (e *session) luaSetStatus(L *lua.LState) int {
	b := e.bufArg(L, "set_status", 1)
	text := strArg(L, "set_status", 2, "text")
	if L.Get(3) == lua.LNil {
		b.status = text
		return 0
	}
	slot := strArg(L, "set_status", 3, "slot")
	if text == "" {
		delete(b.statusSlots, slot)
		return 0
	}
	if b.statusSlots == nil {
		b.statusSlots = map[string]string{}
	}
	b.statusSlots[slot] = text
	return 0
}

// textEdit is one edit of apply_text_edits, in byte positions, with its
// place in the list so inserts at one position keep their order.
type textEdit struct {
	s, e pos
	text string
	n    int
}

// lspPos turns an LSP position into a byte position of b, or says why it
// is not one. The position just past the last row (line = row count,
// column 0) is the end of the text, as servers send for "to the end".
func lspPos(b *buffer, line, col int, enc textpos.Encoding) (pos, error) {
	switch {
	case line < b.lines.len():
		return pos{line, textpos.ByteCol(b.lines.row(line), col, enc)}, nil
	case line == b.lines.len() && col == 0:
		last := b.lines.len() - 1
		return pos{last, len(b.lines.row(last))}, nil
	}
	return pos{}, fmt.Errorf("line %d is past the end of %s (%d rows)", line, b.name, b.lines.len())
}

// luaApplyTextEdits is ed.apply_text_edits(buf, edits): every edit {line,
// col, end_line, end_col, text} (zero-based rows, UTF-16 columns, or
// UTF-8 ones, bytes, in an edit with encoding = "utf-8": a server's that
// chose them; each
// range in the text as it is before any of them, as LSP's TextEdit[])
// applied at once as one undo step. It returns the number applied, or nil
// and a message (and changes nothing) when a range is outside the text,
// the ranges overlap or the buffer is still loading. A cursor after an
// edit moves with the text, one inside an edit's range goes to its end.
func (e *session) luaApplyTextEdits(L *lua.LState) int {
	b := e.bufArg(L, "apply_text_edits", 1)
	edits, err := textEditsArg(L, "apply_text_edits", b)
	if err != nil {
		return pushErr(L, err)
	}
	b.applyEdits(edits)
	L.Push(lua.LNumber(len(edits)))
	return 1
}

// luaCheckTextEdits is ed.check_text_edits(buf, edits): what
// apply_text_edits would return, without applying anything, so that a
// caller editing several buffers can refuse all of them when one would
// fail.
func (e *session) luaCheckTextEdits(L *lua.LState) int {
	b := e.bufArg(L, "check_text_edits", 1)
	edits, err := textEditsArg(L, "check_text_edits", b)
	if err != nil {
		return pushErr(L, err)
	}
	L.Push(lua.LNumber(len(edits)))
	return 1
}

// textEditsArg reads argument 2 of fname as edits of b, sorted by their
// start. A malformed edit raises; a range b cannot take is the error.
func textEditsArg(L *lua.LState, fname string, b *buffer) ([]textEdit, error) {
	lt, ok := L.Get(2).(*lua.LTable)
	if !ok {
		argErr(L, fname, 2, "edits", "a list of edits")
	}
	if b.loading {
		return nil, fmt.Errorf("%s: %s is still loading", fname, b.name)
	}
	n := lt.Len()
	edits := make([]textEdit, 0, n)
	for i := 1; i <= n; i++ {
		et, ok := lt.RawGetInt(i).(*lua.LTable)
		if !ok {
			L.RaiseError("pmacs.editor.%s: edit %d must be a table {line =, col =, end_line =, end_col =, text =}, got %s", fname, i, lt.RawGetInt(i).Type().String())
		}
		num := func(k string) int {
			v, ok := et.RawGetString(k).(lua.LNumber)
			if !ok || v < 0 || float64(v) != math.Trunc(float64(v)) || v > 1<<40 {
				L.RaiseError("pmacs.editor.%s: edit %d: %s must be a whole number >= 0, got %s", fname, i, k, et.RawGetString(k).String())
			}
			return int(v)
		}
		text, ok := et.RawGetString("text").(lua.LString)
		if !ok {
			L.RaiseError("pmacs.editor.%s: edit %d: text must be a string, got %s", fname, i, et.RawGetString("text").Type().String())
		}
		enc := textpos.UTF16
		switch v := et.RawGetString("encoding").(type) {
		case *lua.LNilType:
		case lua.LString:
			var err error
			if enc, err = textpos.ParseEncoding(string(v)); err != nil || enc == textpos.UTF32 {
				L.RaiseError("pmacs.editor.%s: edit %d: encoding must be \"utf-8\" or \"utf-16\", got %q", fname, i, string(v))
			}
		default:
			L.RaiseError("pmacs.editor.%s: edit %d: encoding must be a string, got %s", fname, i, v.Type().String())
		}
		s, err := lspPos(b, num("line"), num("col"), enc)
		if err != nil {
			return nil, fmt.Errorf("%s: edit %d: %w", fname, i, err)
		}
		en, err := lspPos(b, num("end_line"), num("end_col"), enc)
		if err != nil {
			return nil, fmt.Errorf("%s: edit %d: %w", fname, i, err)
		}
		if en.before(s) {
			return nil, fmt.Errorf("%s: edit %d ends (%d:%d) before it starts (%d:%d)", fname, i, en.Row, en.Col, s.Row, s.Col)
		}
		edits = append(edits, textEdit{s: s, e: en, text: string(text), n: i})
	}
	slices.SortStableFunc(edits, func(x, y textEdit) int {
		switch {
		case x.s.before(y.s):
			return -1
		case y.s.before(x.s):
			return 1
		}
		return 0
	})
	for i := 1; i < len(edits); i++ {
		if edits[i].s.before(edits[i-1].e) {
			return nil, fmt.Errorf("%s: edits %d and %d overlap", fname, edits[i-1].n, edits[i].n)
		}
	}
	return edits, nil
}

// applyEdits applies sorted, non-overlapping edits from the last, so each
// range is still where the caller measured it, and records them as one
// undo step (undo reverts them first to last in reverse).
func (b *buffer) applyEdits(edits []textEdit) {
	if len(edits) == 0 {
		return
	}
	before, cur := b.cursor, b.cursor
	changes := make([]change, 0, len(edits))
	for i := len(edits) - 1; i >= 0; i-- {
		ed := edits[i]
		end, removed, oldEnds, newEnds := b.replace(ed.s, ed.e, ed.text, nil)
		switch {
		case !cur.before(ed.e) && cur.Row == ed.e.Row:
			cur = pos{end.Row, end.Col + cur.Col - ed.e.Col}
		case !cur.before(ed.e):
			cur.Row += end.Row - ed.e.Row
		case ed.s.before(cur):
			cur = end
		}
		changes = append(changes, change{at: ed.s, removed: removed, inserted: ed.text, removedEnds: oldEnds, insertedEnds: newEnds})
	}
	b.cursor = b.clampPos(cur)
	b.wantCol = -1
	if b.noUndo {
		return
	}
	u := &b.undo
	u.undone = u.undone[:0]
	u.nextID++
	u.done = append(u.done, step{id: u.nextID, changes: changes, before: before, after: b.cursor})
	u.open = false
}
