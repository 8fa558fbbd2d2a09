package luabind

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	lua "github.com/yuin/gopher-lua"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/fileuri"
	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// LSPBatchSize caps how many items of an array result one h:batches() step
// hands to Lua. Results are built into Lua tables on the client's reader
// goroutine (see lspShaped), so a step only gathers ready items into the
// batch's table.
const LSPBatchSize = 200

// lspFrameBudget is the main-goroutine time, counted from the start of a
// frame, during which a task's h:batches() loop gets its next batch at
// once, in the same frame; after it, the loop waits for the next frame, so
// a task working through a big result spreads its own work over frames.
const lspFrameBudget = 3 * time.Millisecond

// lspState is the binding's language clients and the requests they own.
type lspState struct {
	clients []*lspClient
	// owner maps a request's job to its client, until it settles.
	owner map[runtime.JobID]*lspClient
	// big keeps the array results being iterated with h:batches(), by
	// job; iters are the jobs whose task waits for its next batch at the
	// next frame.
	big   map[*job]*lspItems
	iters []*job
	// frameEnd ends this frame's lspFrameBudget.
	frameEnd time.Time
	// settledHook, when set (by benchmarks), sees each result the binding
	// takes from a client.
	settledHook func(lsp.Result)
	mt          *lua.LTable
}

// lspItems is an array result a task iterates: the array's table, built
// on the reader, its length, and how many items have been handed to Lua.
type lspItems struct {
	items *lua.LTable
	n     int
	next  int
}

type lspClient struct {
	c        *lsp.Client
	name     string
	langID   string
	onDiag   *lua.LFunction
	onApply  *lua.LFunction // workspace/applyEdit (lsp_applyedit.go)
	messages []lsp.Message
	stopped  bool
	// detach removes the client from the runtime's pollers.
	detach func()
	// stopHandle is what client:stop() returned: the same handle for every
	// call.
	stopHandle *lua.LUserData
}

func (s *lspState) init() {
	if s.owner == nil {
		s.owner = make(map[runtime.JobID]*lspClient)
		s.big = make(map[*job]*lspItems)
	}
}

func (b *Binding) installLSP(pmacs *lua.LTable) {
	L := b.ls
	b.lsp.init()
	b.lsp.mt = metatable(L, map[string]lua.LGFunction{
		"request": b.lspRequest, "notify": b.lspNotify, "open": b.lspOpen,
		"change": b.lspChange, "save": b.lspSave, "close": b.lspClose, "version": b.lspVersion,
		"diagnostics": b.lspDiagnostics, "on_diagnostics": b.lspOnDiagnostics,
		"stop": b.lspStop, "status": b.lspStatus, "messages": b.lspMessages,
		"on_apply_edit": b.lspOnApplyEdit,
	}, b.lspString)
	pmacs.RawSetString("lsp", L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{"start": b.lspStart}))
}

// lspStart is pmacs.lsp.start{cmd =, root =, filetypes =, settings =,
// language_id =, init_options =, resource_operations =}: the client at
// once, or nil and a message when the program cannot start (or an option
// is wrong).
func (b *Binding) lspStart(L *lua.LState) int {
	const fname = "pmacs.lsp.start"
	b.unsafe(L, fname, safeNoProgram)
	f := checkTable(L, fname, 1, "opts", "option", false, "cmd", "root", "filetypes", "settings", "language_id", "init_options", "resource_operations")
	argv := f.strings("cmd")
	if len(argv) == 0 {
		raise(L, "%s: cmd must be a non-empty list of strings (the server program and its arguments)", fname)
	}
	root := f.str("root", false, "")
	if root == "" {
		root, _ = os.Getwd()
	}
	if n := b.programOrFail(L, fname, &argv, root); n > 0 {
		return n
	}
	cfg := lsp.Config{Argv: argv, Dir: root, Root: root, Shape: shapeLSPResult, ShapeDiagnostics: shapeDiagnostics}
	if s, ok := f.get("settings").(*lua.LTable); ok {
		m, ok := jsonArg(L, fname, "settings", s).(map[string]any)
		if !ok {
			f.fail("settings", "a table of named sections", s)
		}
		cfg.Settings = m
	} else if v := f.get("settings"); v != lua.LNil {
		f.fail("settings", "a table", v)
	}
	if v := f.get("init_options"); v != lua.LNil {
		cfg.InitializationOptions = jsonArg(L, fname, "init_options", v)
	}
	cfg.ResourceOperations = f.strings("resource_operations")
	langID := f.str("language_id", false, "")
	if fts := f.strings("filetypes"); langID == "" && len(fts) > 0 {
		langID = fts[0]
	}
	lc := &lspClient{name: filepath.Base(argv[0]), langID: langID}
	cfg.ApplyEdit = b.applyEditHook(lc)
	cfg.BeforeLaunch = b.relaunchPolicy(fname, root)
	c, err := lsp.Start(b.rt, cfg)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	lc.c = c
	// Every Tick polls the client; its messages wake the runtime's Ready.
	lc.detach = b.rt.AddPoller(c)
	b.lsp.clients = append(b.lsp.clients, lc)
	L.Push(&lua.LUserData{Value: lc, Metatable: b.lsp.mt})
	return 1
}

// relaunchPolicy is lsp.Config.BeforeLaunch for a client lspStart makes:
// the policy is asked again before every restart, so a server whose
// workspace was untrusted since it started, or whose file the policy
// would now refuse, is not started again. The first launch runs what
// the policy has just chosen, so it is not asked twice. A restart runs
// the program chosen at the start; a policy that would now choose
// another file refuses the restart too, since the script never asked
// for that one.
func (b *Binding) relaunchPolicy(api, dir string) func(argv []string) error {
	if b.policy == nil {
		return nil
	}
	first := true
	return func(argv []string) error {
		if first {
			first = false
			return nil
		}
		out, err := b.checkProgram(api, argv, dir)
		if err != nil {
			return err
		}
		if out[0] != argv[0] {
			return fmt.Errorf("%s: the program policy now chooses %s, not %s", api, out[0], argv[0])
		}
		return nil
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
	params := jsonArg(L, fname, "params", L.Get(3))
	f := checkTable(L, fname, 4, "opts", "option", true, "key", "timeout_ms")
	var opts lsp.RequestOptions
	if f.t != nil {
		opts.Key = f.str("key", false, "")
		opts.Timeout = msField(f, "timeout_ms")
	}
	id := c.c.Request(method, params, opts)
	b.lsp.owner[id] = c
	L.Push(b.newHandle(L, id, runtime.KindLSPRequest, false))
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

// lspDiagnostics is client:diagnostics(path): a list of {line, col,
// end_line, end_col, severity, message, source, code}, zero-based, and
// the field dropped when the publication held more than
// lsp.MaxDiagnostics: how many past the listed first ones. The rows are
// built on the reader when the publication arrives (see
// shapeDiagnostics), so a call costs a list of references however many
// diagnostics there are; each call gets a list of its own, and the rows
// are the same tables until the server publishes again.
func (b *Binding) lspDiagnostics(L *lua.LState) int {
	c := checkClient(L, "client:diagnostics")
	path := absPath(checkString(L, "client:diagnostics", 2, "path"))
	var t *lua.LTable
	if rows, ok := c.c.ShapedDiagnostics(path).([]lua.LValue); ok {
		t = L.CreateTable(len(rows), 1)
		for i, r := range rows {
			t.RawSetInt(i+1, r)
		}
	} else {
		ds := c.c.Diagnostics(path)
		t = L.CreateTable(len(ds), 1)
		for i := range ds {
			t.RawSetInt(i+1, diagnosticToLua(L, &ds[i]))
		}
	}
	if n := c.c.DroppedDiagnostics(path); n > 0 {
		t.RawSetString("dropped", lua.LNumber(n))
	}
	L.Push(t)
	return 1
}

// shapeDiagnostics is the binding's lsp.Config.ShapeDiagnostics: the rows
// of client:diagnostics(), built on the reader (see lspShaped).
func shapeDiagnostics(p *protocol.PublishDiagnosticsParams) any {
	rows := make([]lua.LValue, len(p.Diagnostics))
	for i := range p.Diagnostics {
		rows[i] = diagnosticToLua(tables, &p.Diagnostics[i])
	}
	return rows
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

// lspStop is client:stop(): it stops the server and returns a handle of
// kind lsp_request that settles once the server has exited, its whole tree
// has ended and it has been reaped, with {code =, signal =}: its last exit.
// Every call returns the same handle.
func (b *Binding) lspStop(L *lua.LState) int {
	c := checkClient(L, "client:stop")
	c.stopped = true
	if c.stopHandle == nil {
		c.stopHandle = b.newHandle(L, c.c.StopJob(), runtime.KindLSPRequest, false)
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

// startLSPFrame runs at the start of every frame, before the runtime's
// Tick (which polls the live clients, so their settled requests land in
// this frame): it lets go of the clients gone for good, and hands each
// task waiting in an LSP h:batches() loop its next batch.
func (b *Binding) startLSPFrame() {
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
			// A client gone for good: what is left is its exit, which
			// fails what is still pending and settles its stop handle.
			for c.c.Poll(0) > 0 {
			}
			c.detach()
			continue
		default:
		}
		live = append(live, c)
	}
	clear(b.lsp.clients[len(live):])
	b.lsp.clients = live

	iters := b.lsp.iters
	b.lsp.iters = nil
	for _, j := range iters {
		if t := j.consumer; t != nil {
			j.consumer = nil
			b.run = append(b.run, resumption{t: t, vals: []lua.LValue{b.lspNextBatch(j)}})
		}
	}
}

// lspDiagnosticsHooks runs after the frame's Tick has polled the clients:
// it starts the on_diagnostics hooks for the documents whose diagnostics
// changed.
func (b *Binding) lspDiagnosticsHooks() {
	for _, c := range b.lsp.clients {
		changed := c.c.TakeChangedDiagnostics()
		if c.onDiag == nil {
			continue
		}
		for _, u := range changed {
			// A URI that names no local file has no path to give the
			// hook; client:diagnostics could not look it up either.
			p, err := fileuri.ToPath(string(u))
			if err != nil {
				continue
			}
			ud := &lua.LUserData{Value: c, Metatable: b.lsp.mt}
			b.Spawn(c.onDiag, ud, lua.LString(p))
		}
	}
}

// closeLSP stops every client and waits until each is gone, so no server
// outlives the binding. lsp.CloseAll closes them side by side on one
// clock: their servers shut down (and are killed, if need be) together,
// and the whole wait stays within lsp.CloseTimeout however many there
// are, even when none of them can be reaped.
func (b *Binding) closeLSP() {
	cs := make([]*lsp.Client, len(b.lsp.clients))
	for i, c := range b.lsp.clients {
		cs[i] = c.c
	}
	if err := lsp.CloseAll(cs...); err != nil {
		errs := []error{err}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		}
		for _, e := range errs {
			fmt.Fprintf(b.stderr, "luabind: %v\n", e)
		}
	}
	for _, c := range b.lsp.clients {
		c.detach()
	}
	b.lsp.clients = nil
}

// settleLSP settles an LSP request's handle from the client's result,
// already Lua tables (built on the reader): the value, or nil, message,
// code name for a server error. An array result that a task iterates with
// h:batches() is handed out a batch at a time.
func (b *Binding) settleLSP(j *job, c *lspClient) {
	delete(b.lsp.owner, j.id)
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
	var value lua.LValue = lua.LNil
	if have {
		sh, ok := res.Value.(*lspShaped)
		switch {
		case ok && sh.items != nil && j.iterated:
			b.lsp.big[j] = &lspItems{items: sh.items, n: sh.n}
			sum := b.ls.CreateTable(0, 2)
			sum.RawSetString("method", lua.LString(res.Method))
			sum.RawSetString("len", lua.LNumber(sh.n))
			value = sum
		case ok:
			value = sh.v
		default:
			// Not shaped by the binding's client: converted here.
			value = goToLua(b.ls, res.Value)
		}
	}
	if value == lua.LNil {
		// A null result awaits as true, like every job with no value, so
		// await's first value still tells success from failure.
		value = lua.LTrue
	}
	b.settled(j, out, value)
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
// "FrameTooLarge", "NotReading", "HookPanicked", "ServerExited" or
// "Stopped" for the client's own failures, and absent for a cancel (nil,
// "cancelled").
func failureValues(out runtime.Outcome, err error, have bool) []lua.LValue {
	if out.State == runtime.Cancelled {
		return []lua.LValue{lua.LNil, lua.LString("cancelled")}
	}
	msg := "failed"
	if out.Err != nil {
		msg = out.Err.Error()
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
	// Before ServerExited: a server restarted for these fails its
	// requests with both, and this is why.
	case errors.Is(err, lsp.ErrFrameTooLarge):
		code = "FrameTooLarge"
	case errors.Is(err, lsp.ErrNotReading):
		code = "NotReading"
	case errors.Is(err, lsp.ErrHookPanicked):
		code = "HookPanicked"
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
	if it != nil && it.next >= it.n {
		delete(b.lsp.big, j)
		L.Push(lua.LNil)
		return 1
	}
	t := b.waitingTask(L, "h:batches")
	if j.consumer != nil && j.consumer != t {
		raise(L, "h:batches: job %d is already being iterated by another task", j.id)
	}
	if it != nil && time.Now().Before(b.lsp.frameEnd) {
		L.Push(b.lspNextBatch(j))
		return 1
	}
	j.consumer = t
	if it != nil {
		b.lsp.iters = append(b.lsp.iters, j)
	}
	return b.park(L, t)
}

// lspNextBatch gathers the next LSPBatchSize items; nil at the end.
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
	if it.next >= it.n {
		delete(b.lsp.big, j)
		return lua.LNil
	}
	limit := min(it.next+LSPBatchSize, it.n)
	t := b.ls.CreateTable(limit-it.next, 0)
	for i := it.next; i < limit; i++ {
		t.RawSetInt(i-it.next+1, it.items.RawGetInt(i+1))
	}
	j.items += uint64(limit - it.next)
	it.next = limit
	return t
}

// goToLua converts a decoded result to Lua tables in the JSON shape the
// server sent, by the one JSON-to-Lua conversion (luajson.go): protocol
// types through their JSON encoding, raw JSON directly. A value that has
// no JSON form (never one the client decoded) is its message.
func goToLua(L *lua.LState, v any) lua.LValue {
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case lsp.SemanticToken:
		t := L.CreateTable(0, 5)
		t.RawSetString("line", lua.LNumber(x.Line))
		t.RawSetString("col", lua.LNumber(x.Col))
		t.RawSetString("len", lua.LNumber(x.Len))
		t.RawSetString("type", lua.LNumber(x.Type))
		t.RawSetString("mods", lua.LNumber(x.Mods))
		return t
	case *lsp.SemanticTokens:
		if x == nil {
			return lua.LNil // a null result
		}
		t := L.CreateTable(0, 2)
		t.RawSetString("result_id", lua.LString(x.ResultID))
		rows := L.CreateTable(len(x.Tokens), 0)
		for i := range x.Tokens {
			rows.RawSetInt(i+1, goToLua(L, x.Tokens[i]))
		}
		t.RawSetString("tokens", rows)
		return t
	case jsontext.Value:
		return luaOrMessage(luaFromJSON(x))
	}
	raw, err := protocol.Marshal(v)
	if err != nil {
		return lua.LString("pmacs: result has no JSON form: " + err.Error())
	}
	return luaOrMessage(luaFromJSON(raw))
}

func luaOrMessage(v lua.LValue, err error) lua.LValue {
	if err != nil {
		return lua.LString("pmacs: result has no Lua form: " + err.Error())
	}
	return v
}

// jsonArg converts argument n of fname, named what, to JSON's Go form
// (luajson.go), raising an error that says where a value has no JSON form.
func jsonArg(L *lua.LState, fname, what string, v lua.LValue) any {
	out, err := luaToJSON(v)
	if err != nil {
		raise(L, "%s: %s: %v", fname, what, err)
	}
	return out
}
