package editor

import (
	lua "github.com/yuin/gopher-lua"
)

func (e *session) luaCursor(L *lua.LState) int {
	b := e.bufArg(L, "cursor", 1)
	c := b.cursor
	if b.pendingCursor != nil {
		c = *b.pendingCursor
	}
	return push(L, lua.LNumber(c.Row), lua.LNumber(c.Col))
}

// luaSetCursor moves the cursor (clamped to the text). On a buffer still
// loading, the move waits for the text.
func (e *session) luaSetCursor(L *lua.LState) int {
	b := e.bufArg(L, "set_cursor", 1)
	p := pos{intArg(L, "set_cursor", 2, "row"), optIntArg(L, "set_cursor", 3, "col", 0)}
	if b.loading {
		b.pendingCursor = &p
		return 0
	}
	b.setCursor(p)
	b.wantCol = -1
	return 0
}

// ---- movement, selection and the clipboard ----

// luaMove moves the cursor as a movement key does.
func (e *session) luaMove(L *lua.LState) int {
	b := e.bufArg(L, "move", 1)
	how := strArg(L, "move", 2, "how")
	if !e.moveCursor(b, how) {
		L.RaiseError("pmacs.editor.move: unknown movement %q (known: %s)", how, movements)
	}
	return 0
}

// luaSetMark sets the selection's other end: at (row, col), clamped, or at
// the cursor. A true transient marks a selection the next movement without
// shift ends.
func (e *session) luaSetMark(L *lua.LState) int {
	b := e.bufArg(L, "set_mark", 1)
	p := b.cursor
	if L.Get(2) != lua.LNil {
		p = b.clampPos(pos{intArg(L, "set_mark", 2, "row"), optIntArg(L, "set_mark", 3, "col", 0)})
	}
	b.mark = &p
	b.markTransient = lua.LVAsBool(L.Get(4))
	return 0
}

func (e *session) luaClearMark(L *lua.LState) int {
	e.bufArg(L, "clear_mark", 1).mark = nil
	return 0
}

func (e *session) luaMark(L *lua.LState) int {
	b := e.bufArg(L, "mark", 1)
	if b.mark == nil {
		return push(L, lua.LNil)
	}
	m := b.clampPos(*b.mark)
	return push(L, lua.LNumber(m.Row), lua.LNumber(m.Col), lua.LBool(b.markTransient))
}

// luaSelection returns the selected range (start before end), or nil when
// there is no mark or the range is empty.
func (e *session) luaSelection(L *lua.LState) int {
	s, en, ok := e.bufArg(L, "selection", 1).selection()
	if !ok {
		return push(L, lua.LNil)
	}
	return push(L, lua.LNumber(s.Row), lua.LNumber(s.Col), lua.LNumber(en.Row), lua.LNumber(en.Col))
}

// rangeArgs reads start_row, start_col, end_row, end_col at n..n+3: valid
// positions, start not after end.
func rangeArgs(L *lua.LState, fname string, b *buffer, n int) (pos, pos) {
	s := pos{intArg(L, fname, n, "start_row"), intArg(L, fname, n+1, "start_col")}
	en := pos{intArg(L, fname, n+2, "end_row"), intArg(L, fname, n+3, "end_col")}
	for _, p := range [2]pos{s, en} {
		if err := b.validPos(p); err != nil {
			L.RaiseError("pmacs.editor.%s: %v", fname, err)
		}
	}
	if en.before(s) {
		L.RaiseError("pmacs.editor.%s: the range ends (%d:%d) before it starts (%d:%d)", fname, en.Row, en.Col, s.Row, s.Col)
	}
	return b.clampPos(s), b.clampPos(en)
}

func (e *session) luaGetRange(L *lua.LState) int {
	b := e.bufArg(L, "get_range", 1)
	s, en := rangeArgs(L, "get_range", b, 2)
	return push(L, lua.LString(b.textRange(s, en)))
}

// luaDeleteRange removes a range as one undo step and leaves the cursor at
// its start. Like insert, it works on read-only buffers: read-only stops
// keys, not scripts.
func (e *session) luaDeleteRange(L *lua.LState) int {
	b := e.bufArg(L, "delete_range", 1)
	editable(L, "delete_range", b)
	s, en := rangeArgs(L, "delete_range", b, 2)
	if s != en {
		b.edit(s, en, "", false)
	}
	return 0
}

// luaSetClipboard puts text on the system clipboard through the terminal
// (OSC 52), which works over ssh and in tmux with set-clipboard on;
// a terminal that does not support it ignores it.
func (e *session) luaSetClipboard(L *lua.LState) int {
	e.scr.SetClipboard([]byte(strArg(L, "set_clipboard", 1, "text")))
	return 0
}
