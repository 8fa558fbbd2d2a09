package editor

import (
	"unicode/utf16"
	"unicode/utf8"

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
	text                       string
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
		line: s.Row, col: utf16Len(b.lines[s.Row][:s.Col]),
		endLine: e.Row, endCol: utf16Len(b.lines[e.Row][:e.Col]),
		text: text,
	})
}

// reset marks the log stale: the whole text changed (a load).
func (l *editLog) reset() { l.edits, l.overflow = nil, true }

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r == utf8.RuneError {
			n++
			continue
		}
		n += utf16.RuneLen(r)
	}
	return n
}

// luaTakeEdits is ed.take_edits(buf): the edits since the last call, in
// order, each {line, col, end_line, end_col, text} (UTF-16 columns, the
// range before the edit), or nil, "resync" when some were dropped or the
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
		et := L.CreateTable(0, 5)
		et.RawSetString("line", lua.LNumber(ed.line))
		et.RawSetString("col", lua.LNumber(ed.col))
		et.RawSetString("end_line", lua.LNumber(ed.endLine))
		et.RawSetString("end_col", lua.LNumber(ed.endCol))
		et.RawSetString("text", lua.LString(ed.text))
		t.RawSetInt(i+1, et)
	}
	l.edits = nil
	L.Push(t)
	return 1
}

// luaSetStatus is ed.set_status(buf, text): a note shown in the status
// line while buf is shown ("" removes it).
func (e *session) luaSetStatus(L *lua.LState) int {
	b := e.bufArg(L, "set_status", 1)
	b.status = strArg(L, "set_status", 2, "text")
	return 0
}
