package editor

import (
	"strings"

	"github.com/gdamore/tcell/v2"
	lua "github.com/yuin/gopher-lua"
)

// spanField reads a span's field by name or position.
func spanField(t *lua.LTable, name string, i int) lua.LValue {
	if v := t.RawGetString(name); v != lua.LNil {
		return v
	}
	return t.RawGetInt(i)
}

func (e *session) addHighlights(L *lua.LState, fname string, b *buffer, n int) {
	t, ok := L.Get(n).(*lua.LTable)
	if !ok {
		argErr(L, fname, n, "spans", "a list of spans")
	}
	lineLen := func(r int) int { return len(b.lines.row(r)) }
	for i := 1; i <= t.Len(); i++ {
		st, ok := t.RawGetInt(i).(*lua.LTable)
		if !ok {
			L.RaiseError("pmacs.editor.%s: span %d expected a table {start_row, start_col, end_row, end_col, group}", fname, i)
		}
		var nums [4]int
		for k, name := range [4]string{"start_row", "start_col", "end_row", "end_col"} {
			v, ok := spanField(st, name, k+1).(lua.LNumber)
			if !ok {
				L.RaiseError("pmacs.editor.%s: span %d field '%s' expected a number", fname, i, name)
			}
			nums[k] = int(v)
		}
		group, ok := spanField(st, "group", 5).(lua.LString)
		if !ok {
			L.RaiseError("pmacs.editor.%s: span %d field 'group' expected a string", fname, i)
		}
		b.hl.add(pos{nums[0], nums[1]}, pos{nums[2], nums[3]}, e.faces.intern(string(group)), b.lines.len(), lineLen)
	}
	b.markDirty(0)
}

func (e *session) luaSetHighlights(L *lua.LState) int {
	b := e.bufArg(L, "set_highlights", 1)
	b.hl = hlRows{}
	e.addHighlights(L, "set_highlights", b, 2)
	return 0
}

func (e *session) luaAddHighlights(L *lua.LState) int {
	b := e.bufArg(L, "add_highlights", 1)
	e.addHighlights(L, "add_highlights", b, 2)
	return 0
}

// luaClearHighlights is ed.clear_highlights(buf[, group]): every span, or
// only group's (a script's own overlay, such as the document highlight,
// goes without the syntax colours under it).
func (e *session) luaClearHighlights(L *lua.LState) int {
	b := e.bufArg(L, "clear_highlights", 1)
	if L.Get(2) == lua.LNil {
		b.hl = hlRows{}
		b.markDirty(0)
		return 0
	}
	f := e.faces.intern(strArg(L, "clear_highlights", 2, "group"))
	for i, spans := range b.hl.rows {
		kept := spans[:0]
		for _, sp := range spans {
			if sp.face != f {
				kept = append(kept, sp)
			}
		}
		if len(kept) != len(spans) {
			clear(spans[len(kept):])
			b.hl.rows[i] = kept
			b.markDirtyRows(b.hl.first+i, b.hl.first+i+1)
		}
	}
	return 0
}

var colorNames = func() map[string]tcell.Color {
	m := map[string]tcell.Color{}
	for name, c := range tcell.ColorNames {
		m[name] = c
	}
	return m
}()

func (e *session) luaSetStyle(L *lua.LState) int {
	group := strArg(L, "set_style", 1, "group")
	t := optTable(L, "set_style", 2, "style", "fg", "bg", "bold", "italic", "underline", "reverse")
	st := tcell.StyleDefault
	color := func(name string) (tcell.Color, bool) {
		v, ok := t.RawGetString(name).(lua.LString)
		if !ok {
			return 0, false
		}
		if c, ok := colorNames[strings.ToLower(string(v))]; ok {
			return c, true
		}
		if strings.HasPrefix(string(v), "#") {
			return tcell.GetColor(string(v)), true
		}
		L.RaiseError("pmacs.editor.set_style: unknown colour %q (a name like \"red\" or \"#rrggbb\")", string(v))
		return 0, false
	}
	if t != nil {
		if c, ok := color("fg"); ok {
			st = st.Foreground(c)
		}
		if c, ok := color("bg"); ok {
			st = st.Background(c)
		}
		st = st.Bold(optBool(t, "bold", false)).Italic(optBool(t, "italic", false)).
			Underline(optBool(t, "underline", false)).Reverse(optBool(t, "reverse", false))
	}
	e.faces.setStyle(group, st)
	e.winAll = true
	return 0
}
