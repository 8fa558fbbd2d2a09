package luabind

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/runtime"
)

func checkClient(L *lua.LState, fname string) *lspClient {
	return checkSelf[*lspClient](L, fname, "language client (call it as client:method())")
}

func (b *Binding) lspString(L *lua.LState) int {
	c := checkClient(L, "tostring")
	state := "starting"
	switch {
	case c.stopped:
		state = "stopped"
	case c.c.Err() != nil:
		state = "failed"
	case c.c.Initialized():
		state = "running"
	}
	L.Push(lua.LString("pmacs.lsp.client(" + c.name + ", " + state + ")"))
	return 1
}

// lspRequest is client:request(method, params, {key =, timeout_ms =}): a
// handle of kind lsp_request.
func (b *Binding) lspRequest(L *lua.LState) int {
	const fname = "client:request"
	c := checkClient(L, fname)
	method := checkString(L, fname, 2, "method")
	params := jsonArg(L, fname, "params", L.Get(3))
	f := checkTable(L, fname, 4, "opts", "option", true, "key", "timeout_ms")
	var opts lsp.RequestOptions
	if f.t != nil {
		opts.Key = f.str("key", false, "")
		opts.Timeout = msField(f, "timeout_ms")
	}
	id := c.c.Request(method, params, opts)
	b.lsp.owner[id] = c
	L.Push(b.newHandle(L, id, lsp.RequestKind, false))
	return 1
}

func (b *Binding) lspNotify(L *lua.LState) int {
	const fname = "client:notify"
	c := checkClient(L, fname)
	method := checkString(L, fname, 2, "method")
	return pushErr(L, c.c.Notify(method, jsonArg(L, fname, "params", L.Get(3))))
}

// pushErr returns true, or nil and the error's message.
func pushErr(L *lua.LState, err error) int {
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(lua.LTrue)
	return 1
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func (b *Binding) lspOpen(L *lua.LState) int {
	const fname = "client:open"
	c := checkClient(L, fname)
	path := absPath(checkString(L, fname, 2, "path"))
	var text []byte
	switch v := L.Get(3).(type) {
	case lua.LString:
		text = []byte(v)
	case *lua.LNilType:
		// Open reads the file: say so here, where the caller can act on
		// it, rather than in a server's complaint about an empty file.
		b.safeRead(L, fname, path, true)
		data, err := b.readFile(path)
		if err != nil {
			return pushErr(L, fmt.Errorf("%s: %w", fname, err))
		}
		text = data
	default:
		argError(L, fname, 3, "text", "a string or nil", v)
	}
	langID := c.langID
	if langID == "" {
		langID = strings.TrimPrefix(filepath.Ext(path), ".")
	}
	return pushErr(L, c.c.Open(path, langID, text))
}

// lspChange is client:change(path, edits): each edit {line =, col =,
// end_line =, end_col =, text =}, zero-based, columns in UTF-16 units.
func (b *Binding) lspChange(L *lua.LState) int {
	const fname = "client:change"
	c := checkClient(L, fname)
	path := absPath(checkString(L, fname, 2, "path"))
	lt, ok := L.Get(3).(*lua.LTable)
	if !ok {
		argError(L, fname, 3, "edits", "a list of edits", L.Get(3))
	}
	n := lt.Len()
	edits := make([]lsp.Edit, 0, n)
	for i := 1; i <= n; i++ {
		et, ok := lt.RawGetInt(i).(*lua.LTable)
		if !ok {
			raise(L, "%s: edit %d must be a table {line =, col =, end_line =, end_col =, text =}, got %s", fname, i, typeName(lt.RawGetInt(i)))
		}
		num := func(k string) uint32 {
			v, ok := et.RawGetString(k).(lua.LNumber)
			if !ok || v < 0 || v != lua.LNumber(math.Trunc(float64(v))) || v > math.MaxUint32 {
				raise(L, "%s: edit %d: %s must be a whole number >= 0, got %s", fname, i, k, typeName(et.RawGetString(k)))
			}
			return uint32(v)
		}
		txt, ok := et.RawGetString("text").(lua.LString)
		if !ok {
			raise(L, "%s: edit %d: text must be a string, got %s", fname, i, typeName(et.RawGetString("text")))
		}
		edits = append(edits, lsp.Edit{
			Range: protocol.Range{
				Start: protocol.Position{Line: num("line"), Character: num("col")},
				End:   protocol.Position{Line: num("end_line"), Character: num("end_col")},
			},
			Text: string(txt),
		})
	}
	return pushErr(L, c.c.Change(path, edits...))
}

func (b *Binding) lspSave(L *lua.LState) int {
	c := checkClient(L, "client:save")
	return pushErr(L, c.c.Save(absPath(checkString(L, "client:save", 2, "path"))))
}

// lspVersion is client:version(path): the version of the document's
// current text, 0 when it is not open (see lsp.Client.Version).
func (b *Binding) lspVersion(L *lua.LState) int {
	c := checkClient(L, "client:version")
	L.Push(lua.LNumber(c.c.Version(absPath(checkString(L, "client:version", 2, "path")))))
	return 1
}

func (b *Binding) lspClose(L *lua.LState) int {
	c := checkClient(L, "client:close")
	return pushErr(L, c.c.CloseDocument(absPath(checkString(L, "client:close", 2, "path"))))
}

// lspStop is client:stop(): it stops the server and returns a handle of
// kind lsp_request that settles once the server has exited, its whole tree
// has ended and it has been reaped, with {code =, signal =}: its last exit.
// Every call returns the same handle.
func (b *Binding) lspStop(L *lua.LState) int {
	c := checkClient(L, "client:stop")
	c.stopped = true
	if c.stopHandle == nil {
		c.stopHandle = b.newHandle(L, c.c.StopJob(), lsp.RequestKind, false)
	}
	L.Push(c.stopHandle)
	return 1
}

// lspStatus is client:status(): {state, pending, restarts..., progress =
// {{title, message, percentage}}, error, stderr}.
func (b *Binding) lspStatus(L *lua.LState) int {
	c := checkClient(L, "client:status")
	t := L.CreateTable(0, 6)
	state := "starting"
	switch {
	case c.stopped:
		state = "stopped"
	case c.c.Err() != nil:
		state = "failed"
	case c.c.Initialized():
		state = "running"
	}
	t.RawSetString("state", lua.LString(state))
	if err := c.c.Err(); err != nil {
		t.RawSetString("error", lua.LString(err.Error()))
	}
	st := c.c.Stats()
	t.RawSetString("pending", lua.LNumber(st.Pending))
	t.RawSetString("received", lua.LNumber(st.Received))
	t.RawSetString("malformed", lua.LNumber(st.Malformed))
	t.RawSetString("stderr", lua.LString(c.c.Stderr()))
	ps := c.c.Progress()
	pt := L.CreateTable(len(ps), 0)
	for i, p := range ps {
		e := L.CreateTable(0, 4)
		e.RawSetString("token", lua.LString(p.Token))
		e.RawSetString("title", lua.LString(p.Title))
		e.RawSetString("message", lua.LString(p.Message))
		e.RawSetString("percentage", lua.LNumber(p.Percentage))
		pt.RawSetInt(i+1, e)
	}
	t.RawSetString("progress", pt)
	L.Push(t)
	return 1
}

// lspMessages is client:messages(): the server's show/log messages since
// the last call, each {show, type, text}.
func (b *Binding) lspMessages(L *lua.LState) int {
	c := checkClient(L, "client:messages")
	c.messages = append(c.messages, c.c.TakeMessages()...)
	t := L.CreateTable(len(c.messages), 0)
	for i, m := range c.messages {
		e := L.CreateTable(0, 3)
		e.RawSetString("show", lua.LBool(m.Show))
		e.RawSetString("type", lua.LNumber(m.Type))
		e.RawSetString("text", lua.LString(m.Text))
		t.RawSetInt(i+1, e)
	}
	c.messages = nil
	L.Push(t)
	return 1
}

// lspSupports is client:supports(method): whether the server announced the
// request, in its initialize capabilities or a registration it made since
// (lsp.Client.Supports); false for a gated request before initialize.
func (b *Binding) lspSupports(L *lua.LState) int {
	c := checkClient(L, "client:supports")
	method := checkString(L, "client:supports", 2, "method")
	L.Push(lua.LBool(c.c.Supports(method)))
	return 1
}

// lspCapabilities is client:capabilities(): the server's initialize
// capabilities as Lua values (inlayHintProvider and the other LSP 3.17
// ones included), nil before initialize has been answered.
func (b *Binding) lspCapabilities(L *lua.LState) int {
	c := checkClient(L, "client:capabilities")
	raw := c.c.RawCapabilities()
	if raw == nil {
		L.Push(lua.LNil)
		return 1
	}
	t := L.CreateTable(0, len(raw))
	for name, v := range raw {
		lv, err := luaFromJSON(v)
		if err != nil {
			raise(L, "client:capabilities: %s: %v", name, err)
		}
		t.RawSetString(name, lv)
	}
	L.Push(t)
	return 1
}

// lspRegistrations is client:registrations(): what the server registered
// at run time, in order, as {id, method, options}.
func (b *Binding) lspRegistrations(L *lua.LState) int {
	c := checkClient(L, "client:registrations")
	regs := c.c.Registrations()
	out := L.CreateTable(len(regs), 0)
	for _, r := range regs {
		t := L.CreateTable(0, 3)
		t.RawSetString("id", lua.LString(r.ID))
		t.RawSetString("method", lua.LString(r.Method))
		if r.Options != nil {
			lv, err := luaFromJSON(r.Options)
			if err != nil {
				raise(L, "client:registrations: %s: %v", r.Method, err)
			}
			t.RawSetString("options", lv)
		}
		out.Append(t)
	}
	L.Push(out)
	return 1
}

// lspSemanticTokens is client:semantic_tokens(path[, opts]): path's
// semantic tokens, by delta against the last result the client kept when
// the server offers it (lsp.Client.RequestSemanticTokens), or the rows of
// opts.range only (textDocument/semanticTokens/range); the handle awaits
// {result_id, tokens = {{line, col, len, type, mods}, ...}}, or with
// opts.compact the tokens as one userdata (SemanticTokensValue), which
// costs the main goroutine nothing however many tokens there are.
func (b *Binding) lspSemanticTokens(L *lua.LState) int {
	const fname = "client:semantic_tokens"
	c := checkClient(L, fname)
	path := checkString(L, fname, 2, "path")
	f := checkTable(L, fname, 3, "opts", "option", true, "key", "timeout_ms", "compact", "range")
	var opts lsp.RequestOptions
	var rows *[2]uint32
	compact := false
	if f.t != nil {
		opts.Key = f.str("key", false, "")
		opts.Timeout = msField(f, "timeout_ms")
		compact = f.boolean("compact", false)
		if v := f.get("range"); v != lua.LNil {
			rows = semanticRange(f, v)
		}
	}
	var id runtime.JobID
	if rows != nil {
		id = c.c.RequestSemanticTokensRange(absPath(path), rows[0], rows[1], opts)
	} else {
		id = c.c.RequestSemanticTokens(absPath(path), opts)
	}
	b.lsp.owner[id] = c
	h := b.newHandle(L, id, lsp.RequestKind, false)
	if compact {
		h.Value.(*job).compactTokens = true
	}
	L.Push(h)
	return 1
}

// semanticRange reads opts.range, {start_line, end_line}: rows
// [start_line, end_line), end_line past start_line.
func semanticRange(f fields, v lua.LValue) *[2]uint32 {
	t, ok := v.(*lua.LTable)
	if !ok {
		f.fail("range", "{start_line, end_line}", v)
	}
	var out [2]uint32
	for i := range out {
		n, ok := t.RawGetInt(i + 1).(lua.LNumber)
		if !ok || n < 0 || float64(n) != math.Trunc(float64(n)) || n > math.MaxUint32 {
			raise(f.L, "%s: option 'range' expected {start_line, end_line}, whole numbers >= 0 (item %d is %s)", f.fname, i+1, lua.LVAsString(t.RawGetInt(i+1)))
		}
		out[i] = uint32(n)
	}
	if out[1] <= out[0] {
		raise(f.L, "%s: option 'range' {%d, %d} is empty: end_line must be past start_line", f.fname, out[0], out[1])
	}
	return &out
}

// SemanticTokensValue wraps st for Lua: the value a compact
// client:semantic_tokens awaits. st.result_id is the server's result id,
// #st the token count, and st:rows(first, last) the tokens on rows
// [first, last) as {line, col, len, type, mods} tables, so a script reads
// a screenful without building the rest. The embedding program takes the
// tokens back with ud.Value.(*lsp.SemanticTokens); no one modifies them.
func SemanticTokensValue(L *lua.LState, st *lsp.SemanticTokens) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = st
	L.SetMetatable(ud, semanticTokensMeta(L))
	return ud
}

func semanticTokensMeta(L *lua.LState) *lua.LTable {
	if mt, ok := L.GetField(L.Get(lua.RegistryIndex), "pmacs.lsp.tokens").(*lua.LTable); ok {
		return mt
	}
	mt := L.NewTable()
	tokensOf := func(L *lua.LState, fname string) *lsp.SemanticTokens {
		if ud, ok := L.Get(1).(*lua.LUserData); ok {
			if st, ok := ud.Value.(*lsp.SemanticTokens); ok {
				return st
			}
		}
		raise(L, "%s: expected semantic tokens (client:semantic_tokens with compact = true), got %s", fname, typeName(L.Get(1)))
		return nil
	}
	rows := L.NewFunction(func(L *lua.LState) int {
		const fname = "tokens:rows"
		st := tokensOf(L, fname)
		first, last := int(checkNumber(L, fname, 2, "first")), int(checkNumber(L, fname, 3, "last"))
		toks := st.Tokens
		lo, _ := slices.BinarySearchFunc(toks, first, func(t lsp.SemanticToken, row int) int { return cmp.Compare(int(t.Line), row) })
		hi, _ := slices.BinarySearchFunc(toks, last, func(t lsp.SemanticToken, row int) int { return cmp.Compare(int(t.Line), row) })
		out := L.CreateTable(max(hi-lo, 0), 0)
		for i := lo; i < hi; i++ {
			out.RawSetInt(i-lo+1, goToLua(L, toks[i]))
		}
		L.Push(out)
		return 1
	})
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		st := tokensOf(L, "tokens")
		switch L.CheckString(2) {
		case "rows":
			L.Push(rows)
		case "result_id":
			L.Push(lua.LString(st.ResultID))
		default:
			L.Push(lua.LNil)
		}
		return 1
	}))
	mt.RawSetString("__len", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(len(tokensOf(L, "#tokens").Tokens)))
		return 1
	}))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(fmt.Sprintf("semantic tokens (%d)", len(tokensOf(L, "tostring").Tokens))))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString("pmacs.lsp.tokens"))
	L.SetField(L.Get(lua.RegistryIndex), "pmacs.lsp.tokens", mt)
	return mt
}
