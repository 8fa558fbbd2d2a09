package editor

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	lua "github.com/yuin/gopher-lua"
)

// installAPI adds pmacs.editor to the Lua state: the primitives init.lua
// builds the editor's commands from. docs/editor-api.md documents each.
func (e *session) installAPI() {
	L := e.L
	e.tracebackFn = L.NewFunction(e.traceback)
	api := L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		// buffers
		"open": e.luaOpen, "create": e.luaCreate, "find": e.luaFind, "buffers": e.luaBuffers,
		"close": e.luaClose, "name": e.luaName, "path": e.luaPath, "language": e.luaLanguage,
		"modified": e.luaModified, "loading": e.luaLoading, "valid": e.luaValid, "line_count": e.luaLineCount, "byte_count": e.luaByteCount,
		"get_text": e.luaGetText, "get_lines": e.luaGetLines, "set_lines": e.luaSetLines,
		"append_lines": e.luaAppendLines, "append_matches": e.luaAppendMatches, "match_at": e.luaMatchAt, "insert": e.luaInsert, "undo": e.luaUndo,
		"redo": e.luaRedo, "save": e.luaSave, "set_highlights": e.luaSetHighlights,
		"add_highlights": e.luaAddHighlights, "clear_highlights": e.luaClearHighlights,
		"cursor": e.luaCursor, "set_cursor": e.luaSetCursor, "set_style": e.luaSetStyle,
		"move": e.luaMove, "readonly": e.luaReadonly, "set_path": e.luaSetPath,
		// selection and clipboard
		"set_mark": e.luaSetMark, "clear_mark": e.luaClearMark, "mark": e.luaMark,
		"selection": e.luaSelection, "get_range": e.luaGetRange, "take_edits": e.luaTakeEdits, "set_status": e.luaSetStatus, "delete_range": e.luaDeleteRange,
		"set_clipboard": e.luaSetClipboard,
		// windows
		"current": e.luaCurrent, "show": e.luaShow, "previous": e.luaPrevious,
		"visible_rows": e.luaVisibleRows, "scroll": e.luaScroll, "size": e.luaSize,
		// keymaps and events
		"map": e.luaMap, "unmap": e.luaUnmap, "on": e.luaOn, "off": e.luaOff,
		// prompts and messages
		"prompt": e.luaPrompt, "prompt_text": e.luaPromptText, "close_prompt": e.luaClosePrompt,
		"set_prompt_text": e.luaSetPromptText, "set_prompt_hint": e.luaSetPromptHint,
		"message": e.luaMessage, "error": e.luaError, "set_help": e.luaSetHelp,
		// the editor
		"quit": e.luaQuit, "frame_stats": e.luaFrameStats, "root": e.luaRoot,
	})
	pmacs, ok := L.GetGlobal("pmacs").(*lua.LTable)
	if !ok {
		pmacs = L.NewTable()
		L.SetGlobal("pmacs", pmacs)
	}
	e.installSearchAPI(api)
	e.installWindowAPI(api)
	e.installGrepViewAPI(api)
	e.installLSPViewAPI(api)
	e.installWorkspaceEditAPI(api)
	e.installTrustAPI(pmacs)
	pmacs.RawSetString("editor", api)
}

// Argument helpers. Like the rest of pmacs, misuse raises an error naming
// the function and the argument.

func argErr(L *lua.LState, fname string, n int, name, want string) {
	got := L.Get(n)
	L.RaiseError("pmacs.editor.%s: argument #%d (%s) expected %s, got %s", fname, n, name, want, got.Type().String())
}

func intArg(L *lua.LState, fname string, n int, name string) int {
	v, ok := L.Get(n).(lua.LNumber)
	if !ok || float64(v) != math.Trunc(float64(v)) || math.Abs(float64(v)) > 1<<40 {
		argErr(L, fname, n, name, "an integer")
	}
	return int(v)
}

func optIntArg(L *lua.LState, fname string, n int, name string, def int) int {
	if L.Get(n) == lua.LNil {
		return def
	}
	return intArg(L, fname, n, name)
}

func strArg(L *lua.LState, fname string, n int, name string) string {
	v, ok := L.Get(n).(lua.LString)
	if !ok {
		argErr(L, fname, n, name, "a string")
	}
	return string(v)
}

func fnArg(L *lua.LState, fname string, n int, name string) *lua.LFunction {
	v, ok := L.Get(n).(*lua.LFunction)
	if !ok {
		argErr(L, fname, n, name, "a function")
	}
	return v
}

// bufArg reads a buffer id; nil or 0 means the buffer in the window.
func (e *session) bufArg(L *lua.LState, fname string, n int) *buffer {
	v := L.Get(n)
	if v == lua.LNil {
		return e.cur
	}
	id := intArg(L, fname, n, "buf")
	if id == 0 {
		return e.cur
	}
	b := e.bufs[id]
	if b == nil {
		L.RaiseError("pmacs.editor.%s: no buffer %d (closed, or never opened)", fname, id)
	}
	return b
}

func linesArg(L *lua.LState, fname string, n int) []string {
	t, ok := L.Get(n).(*lua.LTable)
	if !ok {
		argErr(L, fname, n, "lines", "a list of strings")
	}
	out := make([]string, 0, t.Len())
	for i := 1; i <= t.Len(); i++ {
		switch v := t.RawGetInt(i).(type) {
		case lua.LString:
			s := string(v)
			if strings.IndexByte(s, '\n') >= 0 {
				// A row cannot hold a newline; split it rather than
				// corrupt the row structure.
				out = append(out, strings.Split(s, "\n")...)
				continue
			}
			out = append(out, s)
		case lua.LNumber:
			out = append(out, v.String())
		default:
			L.RaiseError("pmacs.editor.%s: argument #%d (lines) item %d expected a string, got %s", fname, n, i, v.Type().String())
		}
	}
	return out
}

func optTable(L *lua.LState, fname string, n int, name string, known ...string) *lua.LTable {
	v := L.Get(n)
	if v == lua.LNil {
		return nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		argErr(L, fname, n, name, "a table")
	}
	t.ForEach(func(k, _ lua.LValue) {
		if ks, ok := k.(lua.LString); !ok || !slices.Contains(known, string(ks)) {
			L.RaiseError("pmacs.editor.%s: unknown option %s (known: %s)", fname, lua.LVAsString(k), strings.Join(known, ", "))
		}
	})
	return t
}

func optBool(t *lua.LTable, name string, def bool) bool {
	if t == nil {
		return def
	}
	switch v := t.RawGetString(name).(type) {
	case lua.LBool:
		return bool(v)
	case *lua.LNilType:
		return def
	default:
		return lua.LVAsBool(v)
	}
}

func optFn(L *lua.LState, fname string, t *lua.LTable, name string) *lua.LFunction {
	if t == nil {
		return nil
	}
	switch v := t.RawGetString(name).(type) {
	case *lua.LFunction:
		return v
	case *lua.LNilType:
		return nil
	default:
		L.RaiseError("pmacs.editor.%s: option '%s' expected a function, got %s", fname, name, v.Type().String())
	}
	return nil
}

func push(L *lua.LState, vals ...lua.LValue) int {
	for _, v := range vals {
		L.Push(v)
	}
	return len(vals)
}

func pushErr(L *lua.LState, err error) int { return push(L, lua.LNil, lua.LString(err.Error())) }

// ---- buffers ----

func (e *session) luaOpen(L *lua.LState) int {
	path := strArg(L, "open", 1, "path")
	b, err := e.openFile(path)
	if err != nil {
		return pushErr(L, err)
	}
	return push(L, lua.LNumber(b.id))
}

func (e *session) luaCreate(L *lua.LState) int {
	name := strArg(L, "create", 1, "name")
	opts := optTable(L, "create", 2, "opts", "readonly", "list")
	if b := e.findBuffer(name); b != nil && b.path == "" {
		return push(L, lua.LNumber(b.id))
	}
	b := e.newScratch(e.uniqueName(name))
	b.readOnly = optBool(opts, "readonly", true)
	b.cursorLine = optBool(opts, "list", true)
	return push(L, lua.LNumber(b.id))
}

func (e *session) luaFind(L *lua.LState) int {
	if b := e.findBuffer(strArg(L, "find", 1, "name")); b != nil {
		return push(L, lua.LNumber(b.id))
	}
	return push(L, lua.LNil)
}

func (e *session) luaBuffers(L *lua.LState) int {
	out := L.CreateTable(len(e.order), 0)
	for _, id := range e.order {
		b := e.bufs[id]
		t := L.CreateTable(0, 5)
		t.RawSetString("id", lua.LNumber(b.id))
		t.RawSetString("name", lua.LString(b.name))
		if b.path != "" {
			t.RawSetString("path", lua.LString(b.path))
		}
		if b.lang != "" {
			t.RawSetString("language", lua.LString(b.lang))
		}
		t.RawSetString("modified", lua.LBool(b.Modified()))
		out.Append(t)
	}
	return push(L, out)
}

func (e *session) luaClose(L *lua.LState) int {
	if err := e.closeBuffer(e.bufArg(L, "close", 1)); err != nil {
		return pushErr(L, err)
	}
	return push(L, lua.LTrue)
}

func (e *session) luaName(L *lua.LState) int {
	return push(L, lua.LString(e.bufArg(L, "name", 1).name))
}

func (e *session) luaPath(L *lua.LState) int {
	if p := e.bufArg(L, "path", 1).path; p != "" {
		return push(L, lua.LString(p))
	}
	return push(L, lua.LNil)
}

func (e *session) luaLanguage(L *lua.LState) int {
	if l := e.bufArg(L, "language", 1).lang; l != "" {
		return push(L, lua.LString(l))
	}
	return push(L, lua.LNil)
}

func (e *session) luaModified(L *lua.LState) int {
	return push(L, lua.LBool(e.bufArg(L, "modified", 1).Modified()))
}

// luaValid is ed.valid(buf): whether buf is open. Every other primitive
// raises on a closed buffer, and a task that waited may hold the id of one
// closed meanwhile, before its "close" hook has run.
func (e *session) luaValid(L *lua.LState) int {
	return push(L, lua.LBool(e.bufs[intArg(L, "valid", 1, "buf")] != nil))
}

func (e *session) luaLoading(L *lua.LState) int {
	return push(L, lua.LBool(e.bufArg(L, "loading", 1).loading))
}

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
		end = len(b.lines)
	}
	if start < 0 || start > len(b.lines) || end < start || end > len(b.lines) {
		L.RaiseError("pmacs.editor.%s: rows [%d, %d) are outside buffer %d (%d rows)", fname, start, end, b.id, len(b.lines))
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
	for _, l := range b.lines[start:end] {
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
	} else if err := b.setLines(len(b.lines), len(b.lines), lines); err != nil {
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
	first := len(b.lines)
	if len(b.lines) == 1 && b.lines[0] == "" {
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
	b.edit(b.cursor, b.cursor, text, false)
	return 0
}

func (e *session) luaUndo(L *lua.LState) int {
	return push(L, lua.LBool(e.bufArg(L, "undo", 1).undoStep()))
}

func (e *session) luaRedo(L *lua.LState) int {
	return push(L, lua.LBool(e.bufArg(L, "redo", 1).redoStep()))
}

// luaSave saves buf; its second argument is on_done or a table
// {on_done = fn, make_dirs = bool}.
func (e *session) luaSave(L *lua.LState) int {
	b := e.bufArg(L, "save", 1)
	var onDone *lua.LFunction
	makeDirs := false
	switch v := L.Get(2).(type) {
	case *lua.LNilType:
	case *lua.LFunction:
		onDone = v
	case *lua.LTable:
		t := optTable(L, "save", 2, "opts", "on_done", "make_dirs")
		onDone = optFn(L, "save", t, "on_done")
		makeDirs = optBool(t, "make_dirs", false)
	default:
		argErr(L, "save", 2, "on_done", "a function or a table {on_done, make_dirs}")
	}
	e.save(b, onDone, makeDirs)
	return 0
}

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
	lineLen := func(r int) int { return len(b.lines[r]) }
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
		b.hl.add(pos{nums[0], nums[1]}, pos{nums[2], nums[3]}, e.faces.intern(string(group)), len(b.lines), lineLen)
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

func (e *session) luaClearHighlights(L *lua.LState) int {
	b := e.bufArg(L, "clear_highlights", 1)
	b.hl = hlRows{}
	b.markDirty(0)
	return 0
}

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
	top := min(max(intArg(L, "scroll", 2, "top"), 0), len(b.lines)-1)
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

// ---- keymaps and events ----

// scopeArg reads a keymap scope: "global", or a buffer id.
func (e *session) scopeArg(L *lua.LState, fname string) int {
	switch v := L.Get(1).(type) {
	case lua.LString:
		if v != "global" {
			L.RaiseError("pmacs.editor.%s: argument #1 (scope) expected \"global\" or a buffer id, got %q", fname, string(v))
		}
		return 0
	case lua.LNumber:
		return e.bufArg(L, fname, 1).id
	}
	argErr(L, fname, 1, "scope", "\"global\" or a buffer id")
	return 0
}

func (e *session) luaMap(L *lua.LState) int {
	scope := e.scopeArg(L, "map")
	key := normalizeKey(strArg(L, "map", 2, "key"))
	if key == "" {
		L.RaiseError("pmacs.editor.map: argument #2 (key) is empty")
	}
	fn := fnArg(L, "map", 3, "fn")
	if scope == 0 {
		e.keys.global[key] = fn
	} else {
		m := e.keys.buffer[scope]
		if m == nil {
			m = map[string]*lua.LFunction{}
			e.keys.buffer[scope] = m
		}
		m[key] = fn
	}
	return 0
}

func (e *session) luaUnmap(L *lua.LState) int {
	scope := e.scopeArg(L, "unmap")
	key := normalizeKey(strArg(L, "unmap", 2, "key"))
	if scope == 0 {
		delete(e.keys.global, key)
	} else {
		delete(e.keys.buffer[scope], key)
	}
	return 0
}

func eventArg(L *lua.LState, fname string) string {
	name := strArg(L, fname, 1, "event")
	if !slices.Contains(eventNames, name) {
		L.RaiseError("pmacs.editor.%s: unknown event %q (known: %s)", fname, name, strings.Join(eventNames, ", "))
	}
	return name
}

func (e *session) luaOn(L *lua.LState) int {
	name := eventArg(L, "on")
	fn := fnArg(L, "on", 2, "fn")
	buf := 0
	if L.Get(3) != lua.LNil {
		buf = e.bufArg(L, "on", 3).id
	}
	e.hooks.add(name, fn, buf)
	return 0
}

func (e *session) luaOff(L *lua.LState) int {
	name := eventArg(L, "off")
	return push(L, lua.LBool(e.hooks.remove(name, fnArg(L, "off", 2, "fn"))))
}

// ---- prompts and messages ----

func (e *session) luaPrompt(L *lua.LState) int {
	const fname = "prompt"
	label := strArg(L, fname, 1, "label")
	t := optTable(L, fname, 2, "opts", "on_change", "on_submit", "on_cancel", "text", "keys")
	p := &prompt{
		label:    label,
		onChange: optFn(L, fname, t, "on_change"),
		onSubmit: optFn(L, fname, t, "on_submit"),
		onCancel: optFn(L, fname, t, "on_cancel"),
	}
	if t != nil {
		if s, ok := t.RawGetString("text").(lua.LString); ok {
			p.text = string(s)
		}
		switch kt := t.RawGetString("keys").(type) {
		case *lua.LNilType:
		case *lua.LTable:
			p.keys = map[string]*lua.LFunction{}
			kt.ForEach(func(k, v lua.LValue) {
				ks, ok1 := k.(lua.LString)
				fn, ok2 := v.(*lua.LFunction)
				if !ok1 || !ok2 || normalizeKey(string(ks)) == "" {
					L.RaiseError("pmacs.editor.prompt: option 'keys' maps key names to functions, got %s = %s", k.Type(), v.Type())
				}
				p.keys[normalizeKey(string(ks))] = fn
			})
		default:
			L.RaiseError("pmacs.editor.prompt: option 'keys' expected a table, got %s", kt.Type())
		}
	}
	e.openPrompt(p)
	return 0
}

// luaSetPromptText replaces the open prompt's text (the cursor goes to its
// end) without calling on_change; it returns false when no prompt is open.
func (e *session) luaSetPromptText(L *lua.LState) int {
	text := strArg(L, "set_prompt_text", 1, "text")
	if e.prompt == nil {
		return push(L, lua.LFalse)
	}
	e.prompt.text, e.prompt.cursor = text, len(text)
	return push(L, lua.LTrue)
}

// luaSetPromptHint shows text dimmed after the open prompt's text until the
// text is next edited; it returns false when no prompt is open.
func (e *session) luaSetPromptHint(L *lua.LState) int {
	hint := strArg(L, "set_prompt_hint", 1, "hint")
	if e.prompt == nil {
		return push(L, lua.LFalse)
	}
	e.prompt.hint = hint
	return push(L, lua.LTrue)
}

func (e *session) luaPromptText(L *lua.LState) int {
	if e.prompt == nil {
		return push(L, lua.LNil)
	}
	return push(L, lua.LString(e.prompt.text))
}

func (e *session) luaClosePrompt(L *lua.LState) int {
	e.closePrompt()
	return 0
}

func luaJoin(L *lua.LState) string {
	parts := make([]string, 0, L.GetTop())
	for i := 1; i <= L.GetTop(); i++ {
		parts = append(parts, L.ToStringMeta(L.Get(i)).String())
	}
	return strings.Join(parts, " ")
}

func (e *session) luaMessage(L *lua.LState) int {
	e.message(luaJoin(L))
	return 0
}

func (e *session) luaError(L *lua.LState) int {
	e.reportError(luaJoin(L), "")
	return 0
}

func (e *session) luaSetHelp(L *lua.LState) int {
	e.help = strArg(L, "set_help", 1, "text")
	return 0
}

// ---- the editor ----

func (e *session) luaQuit(L *lua.LState) int {
	force := lua.LVAsBool(L.Get(1))
	return push(L, lua.LBool(e.requestQuit(force)))
}

func (e *session) luaFrameStats(L *lua.LState) int {
	p99, n := e.stats.p99(time.Now())
	t := L.CreateTable(0, 3)
	t.RawSetString("p99_ms", lua.LNumber(float64(p99.Microseconds())/1000))
	t.RawSetString("frames", lua.LNumber(n))
	t.RawSetString("total_frames", lua.LNumber(e.stats.total))
	return push(L, t)
}

// luaRoot returns the root as the editor names it and as the kernel
// resolves it now (they differ when a symlink leads to it): a path checked
// against the workspace component by component meets the resolved one.
func (e *session) luaRoot(L *lua.LState) int {
	L.Push(lua.LString(e.root))
	L.Push(lua.LString(realOr(e.root)))
	return 2
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

func (e *session) luaReadonly(L *lua.LState) int {
	return push(L, lua.LBool(e.bufArg(L, "readonly", 1).readOnly))
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

// luaSetPath makes a file buffer visit another path (save as): the text
// stays, it counts as modified until saved, and its name and language
// follow the path. It returns nil and a message when another buffer visits
// that path; a scratch buffer raises.
func (e *session) luaSetPath(L *lua.LState) int {
	b := e.bufArg(L, "set_path", 1)
	path := strArg(L, "set_path", 2, "path")
	if b.path == "" {
		L.RaiseError("pmacs.editor.set_path: buffer %d (%s) is a view, not a file", b.id, b.name)
	}
	if strings.HasSuffix(path, "/") {
		return pushErr(L, fmt.Errorf("set_path %s: a path ending in / names a directory, not a file", path))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return pushErr(L, fmt.Errorf("set_path %s: %w", path, err))
	}
	if abs == b.path {
		return push(L, lua.LTrue)
	}
	for _, o := range e.bufs {
		if o != b && o.path == abs {
			return pushErr(L, fmt.Errorf("set_path %s: buffer %s already visits it", abs, o.name))
		}
	}
	b.name = "" // so that uniqueName does not see the old name as taken
	b.path, b.name, b.lang = abs, e.uniqueName(filepath.Base(abs)), languageFor(abs)
	// Nothing on disk at the new path matches the text yet.
	b.savedStep = math.MaxUint64
	return push(L, lua.LTrue)
}
