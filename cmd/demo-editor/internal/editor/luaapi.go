package editor

import (
	"math"
	"slices"
	"strings"
	"time"

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
		"close": e.luaClose, "reload": e.luaReload, "disk_check": e.luaDiskCheck, "file_lines": e.luaFileLines, "name": e.luaName, "path": e.luaPath, "language": e.luaLanguage,
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
		"map": e.luaMap, "unmap": e.luaUnmap, "keys": e.luaKeys, "on": e.luaOn, "off": e.luaOff,
		// prompts and messages
		"prompt": e.luaPrompt, "prompt_text": e.luaPromptText, "close_prompt": e.luaClosePrompt,
		"set_prompt_text": e.luaSetPromptText, "set_prompt_hint": e.luaSetPromptHint,
		"message": e.luaMessage, "error": e.luaError, "set_help": e.luaSetHelp,
		// the editor
		"quit": e.luaQuit, "frame_stats": e.luaFrameStats, "root": e.luaRoot,
		"find_root": e.luaFindRoot, "set_root": e.luaSetRoot, "replace_matches": e.luaReplaceMatches,
		"user_config": e.luaUserConfig,
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
	e.installPaintAPI(api)
	e.installWorkspaceEditAPI(api)
	e.installTrustAPI(pmacs)
	e.installJournalAPI(api)
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
