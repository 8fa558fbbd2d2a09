package editor

import (
	lua "github.com/yuin/gopher-lua"
)

// ---- windows ----

func (e *session) luaCurrent(L *lua.LState) int { return push(L, lua.LNumber(e.cur.id)) }

func (e *session) luaShow(L *lua.LState) int {
	e.show(e.bufArg(L, "show", 1))
	return 0
}

func (e *session) luaPrevious(L *lua.LState) int {
	if e.prev != nil && e.bufs[e.prev.id] == e.prev {
		return push(L, lua.LNumber(e.prev.id))
	}
	return push(L, lua.LNil)
}

// luaVisibleRows returns the rows [top, bottom) the window shows of buf
// (the rows it would show, for a buffer not in the window).
func (e *session) luaVisibleRows(L *lua.LState) int {
	b := e.bufArg(L, "visible_rows", 1)
	if b == e.cur {
		e.scrollToCursor(b)
	}
	return push(L, lua.LNumber(b.top), lua.LNumber(b.top+e.windowHeight()))
}

// luaScroll puts row top at the top of the window, moving the cursor into
// view if it would leave it.
func (e *session) luaScroll(L *lua.LState) int {
	b := e.bufArg(L, "scroll", 1)
	top := min(max(intArg(L, "scroll", 2, "top"), 0), b.lines.len()-1)
	b.top = top
	h := e.windowHeight()
	if b.cursor.Row < top || b.cursor.Row >= top+h {
		b.setCursor(pos{top, 0})
	}
	return 0
}

func (e *session) luaSize(L *lua.LState) int {
	return push(L, lua.LNumber(e.width), lua.LNumber(e.windowHeight()))
}
