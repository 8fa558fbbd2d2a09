package luabind

import (
	"errors"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	lua "github.com/yuin/gopher-lua"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/lsp"
	"github.com/pmacs-go/pmacs-go/runtime"
)

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
		st, isTokens := res.Value.(*lsp.SemanticTokens)
		switch {
		case j.compactTokens && isTokens && st != nil:
			value = SemanticTokensValue(b.ls, st)
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
	t.consuming = j
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
	case *lsp.DiagnosticReport:
		t := L.CreateTable(0, 4)
		if x.Kind != "" {
			t.RawSetString("kind", lua.LString(x.Kind))
		}
		if x.ResultID != "" {
			t.RawSetString("result_id", lua.LString(x.ResultID))
		}
		t.RawSetString("full", lua.LNumber(x.Full))
		t.RawSetString("unchanged", lua.LNumber(x.Unchanged))
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
