package luabind

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	lua "github.com/yuin/gopher-lua"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// LSPBatchSize caps how many items of an array result one h:batches() step
// converts to Lua, and lspBatchBudget the time it may take: a step stops at
// whichever comes first. Results are shaped for Lua on the client's reader
// goroutine (see shapeLSPResult), so the main goroutine only builds tables,
// a few microseconds an item; still, a 6,000-item completion reply built at
// once would cost a frame several times over.
const LSPBatchSize = 200

const lspBatchBudget = 2 * time.Millisecond

// lspFrameBudget is the main-goroutine time one frame spends building
// LSP results in Lua, counted from the start of the frame: while it lasts,
// a task's h:batches() loop gets its next batch at once, in the same
// frame, and a result awaited whole goes on being built; after it, they
// wait for the next frame. lspWholeMin is what a frame builds of a result
// awaited whole even when its budget is gone, so the result always moves.
const (
	lspFrameBudget = 3 * time.Millisecond
	lspWholeMin    = 16
)

// lspState is the binding's language clients and the requests they own.
type lspState struct {
	clients []*lspClient
	// owner maps a request's job to its client, until it settles; keyOf
	// its supersede key, if it has one.
	owner map[runtime.JobID]*lspClient
	keyOf map[runtime.JobID]string
	// big keeps array results whose conversion waits for h:batches(),
	// by job; iters are the tasks waiting for their next batch, fed one
	// batch a frame.
	big   map[*job]*lspItems
	iters []*job
	// frameEnd ends this frame's lspFrameBudget.
	frameEnd time.Time
	// settledHook, when set (by benchmarks), sees each result the binding
	// takes from a client.
	settledHook func(lsp.Result)
	mt          *lua.LTable
	// wake receives a token whenever a client has messages waiting for
	// Poll; quit ends the forwarders when the binding closes.
	wake chan struct{}
	quit chan struct{}
}

// lspItems is an array result not converted yet: the items (shaped, or
// semantic-token rows), and how many have been handed to Lua.
type lspItems struct {
	method string
	items  []any
	toks   []lsp.SemanticToken
	next   int
	// A result awaited whole is built across frames: whole is the value
	// the await returns, wholeItems the table inside it the items go into,
	// out the outcome it settles with once they are all in.
	whole      lua.LValue
	wholeItems *lua.LTable
	out        runtime.Outcome
	key        string
	// prefix holds the items built whole before a task began iterating:
	// its first batch.
	prefix *lua.LTable
}

func (it *lspItems) len() int { return len(it.items) + len(it.toks) }

func (it *lspItems) item(L *lua.LState, i int) lua.LValue {
	if it.toks != nil {
		return shapedToLua(L, it.toks[i])
	}
	return shapedToLua(L, it.items[i])
}

type lspClient struct {
	c        *lsp.Client
	name     string
	langID   string
	onDiag   *lua.LFunction
	messages []lsp.Message
	stopped  bool
}

func (s *lspState) init() {
	if s.owner == nil {
		s.owner = make(map[runtime.JobID]*lspClient)
		s.keyOf = make(map[runtime.JobID]string)
		s.big = make(map[*job]*lspItems)
		s.wake = make(chan struct{}, 1)
		s.quit = make(chan struct{})
	}
}

// LSPReady receives a token when a language client started from Lua has
// messages waiting. A host's frame loop selects on it beside the runtime's
// Ready; Frame then polls the clients.
func (b *Binding) LSPReady() <-chan struct{} {
	b.lsp.init()
	return b.lsp.wake
}

// LSPClients counts the language clients started from Lua that are still
// running.
func (b *Binding) LSPClients() int {
	n := 0
	for _, c := range b.lsp.clients {
		if !c.stopped {
			n++
		}
	}
	return n
}

func (b *Binding) installLSP(pmacs *lua.LTable) {
	L := b.ls
	b.lsp.init()
	b.lsp.mt = metatable(L, map[string]lua.LGFunction{
		"request": b.lspRequest, "notify": b.lspNotify, "open": b.lspOpen,
		"change": b.lspChange, "save": b.lspSave, "close": b.lspClose,
		"diagnostics": b.lspDiagnostics, "on_diagnostics": b.lspOnDiagnostics,
		"stop": b.lspStop, "status": b.lspStatus, "messages": b.lspMessages,
	}, b.lspString)
	pmacs.RawSetString("lsp", L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{"start": b.lspStart}))
}

// lspStart is pmacs.lsp.start{cmd =, root =, filetypes =, settings =,
// language_id =}: the client at once, or nil and a message when the
// program cannot start.
func (b *Binding) lspStart(L *lua.LState) int {
	const fname = "pmacs.lsp.start"
	f := checkTable(L, fname, 1, "opts", "option", false, "cmd", "root", "filetypes", "settings", "language_id", "init_options")
	argv := f.strings("cmd")
	if len(argv) == 0 {
		raise(L, "%s: cmd must be a non-empty list of strings (the server program and its arguments)", fname)
	}
	root := f.str("root", false, "")
	if root == "" {
		root, _ = os.Getwd()
	}
	cfg := lsp.Config{Argv: argv, Dir: root, Root: root, Shape: shapeLSPResult}
	if s, ok := f.get("settings").(*lua.LTable); ok {
		m, _ := luaToGo(s, 0).(map[string]any)
		cfg.Settings = m
	} else if v := f.get("settings"); v != lua.LNil {
		f.fail("settings", "a table", v)
	}
	if v := f.get("init_options"); v != lua.LNil {
		cfg.InitializationOptions = luaToGo(v, 0)
	}
	langID := f.str("language_id", false, "")
	if fts := f.strings("filetypes"); langID == "" && len(fts) > 0 {
		langID = fts[0]
	}
	c, err := lsp.Start(b.rt, cfg)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	lc := &lspClient{c: c, name: filepath.Base(argv[0]), langID: langID}
	b.lsp.clients = append(b.lsp.clients, lc)
	go forwardReady(c, b.lsp.wake, b.lsp.quit)
	L.Push(&lua.LUserData{Value: lc, Metatable: b.lsp.mt})
	return 1
}

// forwardReady passes a client's Ready tokens to the binding's one channel,
// until the client is gone or the binding closes.
func forwardReady(c *lsp.Client, wake chan<- struct{}, quit <-chan struct{}) {
	for {
		select {
		case <-c.Ready():
			select {
			case wake <- struct{}{}:
			default:
			}
		case <-c.Done():
			return
		case <-quit:
			return
		}
	}
}

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
	params := luaToGo(L.Get(3), 0)
	f := checkTable(L, fname, 4, "opts", "option", true, "key", "timeout_ms")
	var opts lsp.RequestOptions
	if f.t != nil {
		opts.Key = f.str("key", false, "")
		opts.Timeout = msField(f, "timeout_ms")
	}
	if opts.Key != "" {
		b.supersedeWhole(opts.Key)
	}
	id := c.c.Request(method, params, opts)
	b.lsp.owner[id] = c
	if opts.Key != "" {
		b.lsp.keyOf[id] = opts.Key
	}
	L.Push(b.newHandle(L, id, runtime.KindLSPRequest, false))
	return 1
}

// supersedeWhole ends the build of a result awaited whole that was
// requested under key: the runtime settled that request before this one
// superseded it, but its value has not reached Lua yet, and now it would
// arrive stale. It awaits "cancelled", as a superseded request does.
func (b *Binding) supersedeWhole(key string) {
	for _, j := range b.lsp.iters {
		if it := b.lsp.big[j]; it != nil && it.whole != nil && it.key == key {
			delete(b.lsp.big, j)
			b.settledWith(j, []lua.LValue{lua.LNil, lua.LString("cancelled")})
			b.wakeConsumer(j)
		}
	}
}

func (b *Binding) lspNotify(L *lua.LState) int {
	const fname = "client:notify"
	c := checkClient(L, fname)
	method := checkString(L, fname, 2, "method")
	return pushErr(L, c.c.Notify(method, luaToGo(L.Get(3), 0)))
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
		data, err := os.ReadFile(path)
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

func (b *Binding) lspClose(L *lua.LState) int {
	c := checkClient(L, "client:close")
	return pushErr(L, c.c.CloseDocument(absPath(checkString(L, "client:close", 2, "path"))))
}

// lspDiagnostics is client:diagnostics(path): a list of {line, col,
// end_line, end_col, severity, message, source, code}, zero-based.
func (b *Binding) lspDiagnostics(L *lua.LState) int {
	c := checkClient(L, "client:diagnostics")
	ds := c.c.Diagnostics(absPath(checkString(L, "client:diagnostics", 2, "path")))
	t := L.CreateTable(len(ds), 0)
	for i := range ds {
		t.RawSetInt(i+1, diagnosticToLua(L, &ds[i]))
	}
	L.Push(t)
	return 1
}

func diagnosticToLua(L *lua.LState, d *protocol.Diagnostic) *lua.LTable {
	t := L.CreateTable(0, 8)
	t.RawSetString("line", lua.LNumber(d.Range.Start.Line))
	t.RawSetString("col", lua.LNumber(d.Range.Start.Character))
	t.RawSetString("end_line", lua.LNumber(d.Range.End.Line))
	t.RawSetString("end_col", lua.LNumber(d.Range.End.Character))
	sev := d.Severity
	if sev == 0 {
		sev = protocol.DiagnosticSeverityError
	}
	t.RawSetString("severity", lua.LNumber(sev))
	switch m := d.Message.(type) {
	case protocol.String:
		t.RawSetString("message", lua.LString(m))
	case *protocol.MarkupContent:
		if m != nil {
			t.RawSetString("message", lua.LString(m.Value))
		}
	}
	if src, ok := d.Source.Get(); ok {
		t.RawSetString("source", lua.LString(src))
	}
	if d.Code != nil {
		if raw, err := protocol.Marshal(d.Code); err == nil {
			t.RawSetString("code", lua.LString(strings.Trim(string(raw), `"`)))
		}
	}
	return t
}

func (b *Binding) lspOnDiagnostics(L *lua.LState) int {
	c := checkClient(L, "client:on_diagnostics")
	switch v := L.Get(2).(type) {
	case *lua.LFunction:
		c.onDiag = v
	case *lua.LNilType:
		c.onDiag = nil
	default:
		argError(L, "client:on_diagnostics", 2, "hook", "a function or nil", v)
	}
	return 0
}

func (b *Binding) lspStop(L *lua.LState) int {
	c := checkClient(L, "client:stop")
	c.stopped = true
	c.c.Stop()
	return 0
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

// pollLSP runs at the start of every frame, before the runtime's Tick: it
// polls every live client (their settled requests then land in this
// frame's Tick), starts the diagnostics hooks, and hands each task waiting
// in an LSP h:batches() loop its next batch.
func (b *Binding) pollLSP() {
	if len(b.lsp.clients) == 0 && len(b.lsp.iters) == 0 {
		return
	}
	budget := lspFrameBudget
	if b.budget > 0 {
		budget = min(budget, b.budget)
	}
	b.lsp.frameEnd = time.Now().Add(budget)
	live := b.lsp.clients[:0]
	for _, c := range b.lsp.clients {
		select {
		case <-c.c.Done():
			// A client gone for good has settled everything already.
			continue
		default:
		}
		live = append(live, c)
		pr := c.c.Poll()
		if c.onDiag == nil {
			continue
		}
		for _, u := range pr.Diagnostics {
			ud := &lua.LUserData{Value: c, Metatable: b.lsp.mt}
			b.Spawn(c.onDiag, ud, lua.LString(u.Path()))
		}
	}
	clear(b.lsp.clients[len(live):])
	b.lsp.clients = live

	iters := b.lsp.iters
	b.lsp.iters = nil
	for _, j := range iters {
		if it := b.lsp.big[j]; it != nil && it.whole != nil {
			b.buildWhole(j, it)
			continue
		}
		if t := j.consumer; t != nil {
			j.consumer = nil
			b.run = append(b.run, resumption{t: t, vals: []lua.LValue{b.lspNextBatch(j)}})
		}
	}
}

// closeLSP stops every client and waits until each is gone, so no server
// outlives the binding.
func (b *Binding) closeLSP() {
	if b.lsp.quit == nil {
		return
	}
	close(b.lsp.quit)
	for _, c := range b.lsp.clients {
		c.c.Close()
	}
	b.lsp.clients = nil
}

// settleLSP settles an LSP request's handle from the client's result,
// shaped for Lua on the reader: the value as Lua tables, or nil, message,
// code name for a server error. An array result is built a part at a time:
// a batch per step of a task's h:batches() loop, or, awaited whole, as
// much as each frame's budget allows, the await returning once all of it
// is in.
func (b *Binding) settleLSP(j *job, c *lspClient) {
	delete(b.lsp.owner, j.id)
	key := b.lsp.keyOf[j.id]
	delete(b.lsp.keyOf, j.id)
	out, ok := b.rt.TakeResult(j.id)
	if !ok {
		return
	}
	res, have := c.c.TakeResult(j.id)
	if b.lsp.settledHook != nil && have {
		b.lsp.settledHook(res)
	}
	if out.State != runtime.Complete {
		b.settledWith(j, failureValues(out, res.Err, have))
		b.wakeConsumer(j)
		return
	}
	if have {
		if it := lspArray(res.Method, res.Value); it != nil {
			b.lsp.big[j] = it
			if j.iterated {
				b.settled(j, out, lspSummary(b.ls, res.Method, it.len()))
				b.wakeConsumer(j)
				return
			}
			it.whole, it.wholeItems = lspWholeValue(b.ls, res.Value, it.len())
			it.out, it.method, it.key = out, res.Method, key
			b.buildWhole(j, it)
			return
		}
	}
	var value lua.LValue = lua.LNil
	if have {
		value = shapedToLua(b.ls, res.Value)
	}
	if value == lua.LNil {
		// A null result awaits as true, like every job with no value, so
		// await's first value still tells success from failure.
		value = lua.LTrue
	}
	b.settled(j, out, value)
	b.wakeConsumer(j)
}

func lspSummary(L *lua.LState, method string, n int) *lua.LTable {
	sum := L.CreateTable(0, 2)
	sum.RawSetString("method", lua.LString(method))
	sum.RawSetString("len", lua.LNumber(n))
	return sum
}

// lspArray returns the array of a result that h:batches() iterates: an
// array result, a completion list's items, semantic-token rows; nil for
// any other result.
func lspArray(method string, v any) *lspItems {
	switch r := v.(type) {
	case []any:
		return &lspItems{items: r}
	case *lspObject:
		if method == protocol.MethodTextDocumentCompletion {
			if items, ok := r.get("items").([]any); ok {
				return &lspItems{items: items}
			}
		}
	case *lsp.SemanticTokens:
		if r != nil {
			return &lspItems{toks: r.Tokens}
		}
	}
	return nil
}

// lspWholeValue makes the value an array result awaits as, with its items
// table still empty: the array itself, or the completion list or the
// semantic tokens around it.
func lspWholeValue(L *lua.LState, v any, n int) (lua.LValue, *lua.LTable) {
	items := L.CreateTable(n, 0)
	switch r := v.(type) {
	case *lspObject:
		t := L.CreateTable(0, len(r.keys))
		for i, k := range r.keys {
			if k == "items" {
				t.RawSetString(k, items)
			} else if r.vals[i] != nil {
				t.RawSetString(k, shapedToLua(L, r.vals[i]))
			}
		}
		return t, items
	case *lsp.SemanticTokens:
		t := L.CreateTable(0, 2)
		t.RawSetString("result_id", lua.LString(r.ResultID))
		t.RawSetString("tokens", items)
		return t, items
	}
	return items, items
}

// buildWhole goes on building a result awaited whole until the frame's
// budget is spent (lspWholeMin items at least), and settles the handle once
// every item is in; until then the handle waits in iters for the next
// frame.
func (b *Binding) buildWhole(j *job, it *lspItems) {
	n := it.len()
	for done := 0; it.next < n; done++ {
		it.wholeItems.RawSetInt(it.next+1, it.item(b.ls, it.next))
		it.next++
		if done >= lspWholeMin && done&15 == 15 && time.Now().After(b.lsp.frameEnd) {
			break
		}
	}
	if it.next < n {
		b.lsp.iters = append(b.lsp.iters, j)
		return
	}
	delete(b.lsp.big, j)
	b.settled(j, it.out, it.whole)
	b.wakeConsumer(j)
}

// wakeConsumer resumes the task parked in j's batch loop with the first
// batch (nil when the request failed).
func (b *Binding) wakeConsumer(j *job) {
	if t := j.consumer; t != nil {
		j.consumer = nil
		b.run = append(b.run, resumption{t: t, vals: []lua.LValue{b.lspNextBatch(j)}})
	}
}

// failureValues is what a failed LSP request awaits as: nil, message, code,
// where code is the LSP code's name for a server error, "Timeout",
// "ServerExited" or "Stopped" for the client's own failures, and absent for
// a cancel (nil, "cancelled").
func failureValues(out runtime.Outcome, err error, have bool) []lua.LValue {
	if out.State == runtime.Cancelled {
		return []lua.LValue{lua.LNil, lua.LString("cancelled")}
	}
	msg := "failed"
	if out.Err != nil {
		msg = out.Err.Message
	}
	if !have || err == nil {
		return []lua.LValue{lua.LNil, lua.LString(msg)}
	}
	var re *lsp.ResponseError
	code := ""
	switch {
	case errors.As(err, &re):
		msg, code = re.Message, re.Name()
	case errors.Is(err, lsp.ErrTimeout):
		code = "Timeout"
	case errors.Is(err, lsp.ErrServerExited):
		code = "ServerExited"
	case errors.Is(err, lsp.ErrStopped):
		code = "Stopped"
	}
	if re == nil {
		msg = err.Error()
	}
	if code == "" {
		return []lua.LValue{lua.LNil, lua.LString(msg)}
	}
	return []lua.LValue{lua.LNil, lua.LString(msg), lua.LString(code)}
}

// settledWith settles j with await's exact values and wakes its waiters.
func (b *Binding) settledWith(j *job, results []lua.LValue) {
	delete(b.jobs, j.id)
	j.settled = true
	j.results = results
	for _, t := range j.waiters {
		b.run = append(b.run, resumption{t: t, vals: results})
	}
	j.waiters = nil
}

// lspBatches is h:batches() on an LSP request handle.
func (b *Binding) lspBatches(L *lua.LState, j *job) int {
	j.iterated = true
	L.Push(L.NewFunction(b.lspIter))
	L.Push(L.Get(1))
	L.Push(lua.LNil)
	return 3
}

// lspIter returns the next batch of an array result: the first as soon as
// the request settles, each later one at once while the frame's LSP budget
// lasts, else at the next frame. A result that is not an array is one
// batch of one.
func (b *Binding) lspIter(L *lua.LState) int {
	j := checkJob(L, "h:batches iterator")
	it := b.lsp.big[j]
	if it != nil && it.whole != nil {
		// Being built for an await: the loop takes over from here, with
		// what is built so far as its first batch.
		it.prefix, it.whole = it.wholeItems, nil
		if it.next == 0 {
			it.prefix = nil
		}
		b.settled(j, it.out, lspSummary(L, it.method, it.len()))
	}
	if j.settled && it == nil {
		if j.items > 0 || len(j.results) == 0 || j.results[0] == lua.LNil {
			L.Push(lua.LNil)
			return 1
		}
		// Settled before the loop began: the value is already in Lua.
		j.items = 1
		if t, ok := j.results[0].(*lua.LTable); ok && t.Len() > 0 {
			L.Push(t)
			return 1
		}
		one := L.CreateTable(1, 0)
		one.RawSetInt(1, j.results[0])
		L.Push(one)
		return 1
	}
	if it != nil && it.prefix == nil && it.next >= it.len() {
		delete(b.lsp.big, j)
		L.Push(lua.LNil)
		return 1
	}
	t := b.waitingTask(L, "h:batches")
	if j.consumer != nil && j.consumer != t {
		raise(L, "h:batches: job %d is already being iterated by another task", j.id)
	}
	if it != nil && (it.prefix != nil || time.Now().Before(b.lsp.frameEnd)) {
		L.Push(b.lspNextBatch(j))
		return 1
	}
	j.consumer = t
	if it != nil {
		b.lsp.iters = append(b.lsp.iters, j)
	}
	return b.park(L, t)
}

// lspNextBatch converts the next LSPBatchSize items; nil at the end.
func (b *Binding) lspNextBatch(j *job) lua.LValue {
	it := b.lsp.big[j]
	if it == nil {
		if len(j.results) > 0 && j.results[0] != lua.LNil {
			j.items = 1
			t := b.ls.CreateTable(1, 0)
			t.RawSetInt(1, j.results[0])
			return t
		}
		return lua.LNil
	}
	if p := it.prefix; p != nil {
		it.prefix = nil
		j.items += uint64(it.next)
		return p
	}
	n := it.len()
	if it.next >= n {
		delete(b.lsp.big, j)
		return lua.LNil
	}
	limit := min(it.next+LSPBatchSize, n)
	t := b.ls.CreateTable(limit-it.next, 0)
	start := time.Now()
	i := it.next
	for i < limit {
		t.RawSetInt(i-it.next+1, it.item(b.ls, i))
		i++
		if i&15 == 0 && time.Since(start) > lspBatchBudget {
			break
		}
	}
	j.items += uint64(i - it.next)
	it.next = i
	return t
}

// goToLua converts a decoded result to Lua tables in the JSON shape the
// server sent: protocol types through their JSON encoding, raw JSON
// directly. Numbers are Lua numbers, JSON null is nil.
func goToLua(L *lua.LState, v any) lua.LValue {
	var raw []byte
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case jsontext.Value:
		raw = x
	case lsp.SemanticToken:
		t := L.CreateTable(0, 5)
		t.RawSetString("line", lua.LNumber(x.Line))
		t.RawSetString("col", lua.LNumber(x.Col))
		t.RawSetString("len", lua.LNumber(x.Len))
		t.RawSetString("type", lua.LNumber(x.Type))
		t.RawSetString("mods", lua.LNumber(x.Mods))
		return t
	case *lsp.SemanticTokens:
		t := L.CreateTable(0, 2)
		t.RawSetString("result_id", lua.LString(x.ResultID))
		rows := L.CreateTable(len(x.Tokens), 0)
		for i := range x.Tokens {
			rows.RawSetInt(i+1, goToLua(L, x.Tokens[i]))
		}
		t.RawSetString("tokens", rows)
		return t
	default:
		var err error
		raw, err = protocol.Marshal(v)
		if err != nil {
			return lua.LString(fmt.Sprint(v))
		}
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return lua.LString(string(raw))
	}
	return anyToLua(L, out)
}

// luaToGo converts request parameters to values protocol.Marshal encodes
// as JSON: a table whose keys are 1..n is an array, any other table an
// object (an empty table is an empty object). Depth is capped so a cyclic
// table is an error value rather than a hang.
func luaToGo(v lua.LValue, depth int) any {
	switch x := v.(type) {
	case *lua.LNilType:
		return nil
	case lua.LBool:
		return bool(x)
	case lua.LNumber:
		f := float64(x)
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f)
		}
		return f
	case lua.LString:
		return string(x)
	case *lua.LTable:
		if depth > 64 {
			return "<table nested too deep>"
		}
		n := x.Len()
		count := 0
		x.ForEach(func(lua.LValue, lua.LValue) { count++ })
		if n > 0 && n == count {
			arr := make([]any, n)
			for i := 1; i <= n; i++ {
				arr[i-1] = luaToGo(x.RawGetInt(i), depth+1)
			}
			return arr
		}
		m := make(map[string]any, count)
		x.ForEach(func(k, e lua.LValue) {
			m[lua.LVAsString(k)] = luaToGo(e, depth+1)
		})
		return m
	}
	return v.String()
}
