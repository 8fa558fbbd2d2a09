package editor

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

func (e *session) luaLineCount(L *lua.LState) int {
	return push(L, lua.LNumber(e.bufArg(L, "line_count", 1).LineCount()))
}

func (e *session) luaByteCount(L *lua.LState) int {
	return push(L, lua.LNumber(e.bufArg(L, "byte_count", 1).ByteCount()))
}

func (e *session) luaGetText(L *lua.LState) int {
	return push(L, lua.LString(e.bufArg(L, "get_text", 1).Text()))
}

// rowRange reads [start, end) at args n, n+1; end may be -1 (or omitted)
// for "to the last row".
func rowRange(L *lua.LState, fname string, b *buffer, n int) (int, int) {
	start := intArg(L, fname, n, "start")
	end := optIntArg(L, fname, n+1, "end", -1)
	if end < 0 {
		end = b.lines.len()
	}
	if start < 0 || start > b.lines.len() || end < start || end > b.lines.len() {
		L.RaiseError("pmacs.editor.%s: rows [%d, %d) are outside buffer %d (%d rows)", fname, start, end, b.id, b.lines.len())
	}
	return start, end
}

func (e *session) luaGetLines(L *lua.LState) int {
	b := e.bufArg(L, "get_lines", 1)
	start, end := rowRange(L, "get_lines", b, 2)
	if b.gv != nil {
		for row := start; row < end; row++ {
			e.formatGrepRow(b, row)
		}
	}
	out := L.CreateTable(end-start, 0)
	for _, l := range b.lines.rows(start, end) {
		out.Append(lua.LString(l))
	}
	return push(L, out)
}

// editable refuses script edits to a buffer that is loading (the read
// would overwrite them).
func editable(L *lua.LState, fname string, b *buffer) {
	if b.loading {
		L.RaiseError("pmacs.editor.%s: buffer %d is still loading (wait for the \"open\" event)", fname, b.id)
	}
}

func (e *session) luaSetLines(L *lua.LState) int {
	b := e.bufArg(L, "set_lines", 1)
	editable(L, "set_lines", b)
	start, end := rowRange(L, "set_lines", b, 2)
	lines := linesArg(L, "set_lines", 4)
	if err := b.setLines(start, end, lines); err != nil {
		L.RaiseError("pmacs.editor.set_lines: %v", err)
	}
	b.cursor = b.clampPos(b.cursor)
	return 0
}

func (e *session) luaAppendLines(L *lua.LState) int {
	b := e.bufArg(L, "append_lines", 1)
	editable(L, "append_lines", b)
	lines := linesArg(L, "append_lines", 2)
	if b.noUndo {
		b.appendLines(lines)
	} else if err := b.setLines(b.lines.len(), b.lines.len(), lines); err != nil {
		L.RaiseError("pmacs.editor.append_lines: %v", err)
	}
	return 0
}

// luaAppendMatches appends grep matches (the items of a
// pmacs.workers.grep batch), one row each, "file:line: text", with the
// prefix dimmed and every span highlighted as "match". It is the hot path
// of the live grep view: formatting in Go instead of a Lua loop keeps a
// frame of a streaming search cheap. It returns the row of the first
// appended match.
func (e *session) luaAppendMatches(L *lua.LState) int {
	const fname = "append_matches"
	b := e.bufArg(L, fname, 1)
	editable(L, fname, b)
	if !b.noUndo {
		L.RaiseError("pmacs.editor.%s: buffer %d keeps history; append matches to a buffer made with create", fname, b.id)
	}
	t, ok := L.Get(2).(*lua.LTable)
	if !ok {
		argErr(L, fname, 2, "matches", "a list of grep matches")
	}
	n := t.Len()
	first := b.lines.len()
	if b.lines.len() == 1 && b.lines.row(0) == "" {
		first = 0
	}
	// A frame of a streaming search appends hundreds of rows: they share
	// one string and their spans one array, so the batch costs a handful
	// of allocations rather than a few per row.
	type row struct {
		start, prefix, end int // byte offsets in text
		spans              *lua.LTable
		ref                rowRef
	}
	rows := make([]row, 0, n)
	text := make([]byte, 0, 96*n)
	nspans := 0
	for i := 1; i <= n; i++ {
		m, ok := t.RawGetInt(i).(*lua.LTable)
		if !ok {
			L.RaiseError("pmacs.editor.%s: item %d expected a grep match table", fname, i)
		}
		file, ok1 := m.RawGetString("file").(lua.LString)
		line, ok2 := m.RawGetString("line").(lua.LNumber)
		body, ok3 := m.RawGetString("text").(lua.LString)
		if !ok1 || !ok2 || !ok3 {
			L.RaiseError("pmacs.editor.%s: item %d lacks file, line or text", fname, i)
		}
		r := row{start: len(text)}
		text = append(text, file...)
		text = append(text, ':')
		text = strconv.AppendInt(text, int64(line), 10)
		text = append(text, ": "...)
		r.prefix = len(text) - r.start
		text = append(text, body...)
		r.end = len(text)
		r.spans, _ = m.RawGetString("spans").(*lua.LTable)
		if r.spans != nil {
			nspans += r.spans.Len()
		}
		col, _ := m.RawGetString("match_start").(lua.LNumber)
		r.ref = rowRef{file: string(file), line: int(line), col: int(col)}
		rows = append(rows, r)
	}
	all := string(text)
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = all[r.start:r.end]
	}
	b.appendLines(lines)
	dim, match := e.faces.intern("dim"), e.faces.intern("match")
	spans := make([]hlSpan, 0, len(rows)+nspans)
	for i, r := range rows {
		from := len(spans)
		spans = append(spans, hlSpan{0, r.prefix - 2, dim})
		if r.spans != nil {
			for j := 1; j <= r.spans.Len(); j++ {
				p, ok := r.spans.RawGetInt(j).(*lua.LTable)
				if !ok {
					continue
				}
				s, ok1 := p.RawGetInt(1).(lua.LNumber)
				en, ok2 := p.RawGetInt(2).(lua.LNumber)
				if ok1 && ok2 && s < en {
					spans = append(spans, hlSpan{r.prefix + int(s), r.prefix + int(en), match})
				}
			}
		}
		// Capped, so a later edit of this row cannot write into the next.
		b.hl.setRow(first+i, spans[from:len(spans):len(spans)])
		b.setRef(first+i, r.ref)
	}
	return push(L, lua.LNumber(first))
}

// luaMatchAt returns {file, line, col} for a row appended by
// append_matches (line 1-based, col a 0-based byte column in the file's
// line), or nil. The editor keeps this per row, so a script need not keep
// 100,000 match tables alive to open one.
func (e *session) luaMatchAt(L *lua.LState) int {
	b := e.bufArg(L, "match_at", 1)
	row := intArg(L, "match_at", 2, "row")
	r, ok := b.refAt(row)
	if !ok {
		return push(L, lua.LNil)
	}
	t := L.CreateTable(0, 3)
	t.RawSetString("file", lua.LString(r.file))
	t.RawSetString("line", lua.LNumber(r.line))
	t.RawSetString("col", lua.LNumber(r.col))
	return push(L, t)
}

// luaInsert types text at the cursor, even in a read-only buffer: the
// read-only flag stops keys, not scripts.
func (e *session) luaInsert(L *lua.LState) int {
	b := e.bufArg(L, "insert", 1)
	editable(L, "insert", b)
	text := strArg(L, "insert", 2, "text")
	b.undo.seal()
	b.typeText(text)
	b.undo.seal()
	return 0
}

func (e *session) luaUndo(L *lua.LState) int {
	return push(L, lua.LBool(e.bufArg(L, "undo", 1).undoStep()))
}

func (e *session) luaRedo(L *lua.LState) int {
	return push(L, lua.LBool(e.bufArg(L, "redo", 1).redoStep()))
}
