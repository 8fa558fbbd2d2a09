package luabind

import (
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/mcp"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// pmacs.mcp: MCP servers through package mcp. A connection is a userdata;
// its requests are handles of kind mcp_request, adopted from the jobs mcp
// registers, so await, cancel and supersede work as for any job.

var mcpConnectFields = []string{"cmd", "env", "cwd", "url", "timeout_ms", "roots"}

var mcpCallOptions = []string{"key", "timeout_ms"}

// mcpJob is the job a request registered.
type mcpJob = runtime.JobID

// mcpConn is the userdata value of a connection.
type mcpConn struct{ c *mcp.Conn }

// mcpState is the binding's MCP connections.
type mcpState struct {
	// host is made on the first connect.
	host *mcp.Host
	// detach removes the host from the runtime's pollers.
	detach  func()
	mt      *lua.LTable
	closing sync.WaitGroup
}

func init() {
	registerKind("mcp", kindBinding{
		kinds: map[runtime.Kind]kindLua{mcp.RequestKind: {
			value:    externalToLua,
			settle:   (*Binding).settleMCP,
			batches:  (*Binding).lspBatches,
			progress: (*Binding).mcpJobProgress,
		}},
		install: func(b *Binding, t *installTables) {
			b.mcp.mt = metatable(t.L, map[string]lua.LGFunction{
				"tools": b.mcpTools, "call": b.mcpCall, "resources": b.mcpResources,
				"read": b.mcpRead, "prompts": b.mcpPrompts, "close": b.mcpClose,
				"progress": b.mcpProgress, "status": b.mcpStatus, "stderr": b.mcpStderr,
			}, b.mcpString)
			t.set(t.sub(t.pmacs, "mcp"), map[string]lua.LGFunction{"connect": b.mcpConnect,
				"json_decode": b.mcpJSONDecode, "json_encode": b.mcpJSONEncode})
		},
	})
}

// closeMCP closes every connection (within mcp.CloseTimeout).
func (b *Binding) closeMCP() {
	if b.mcp.host != nil {
		_ = b.mcp.host.Close()
	}
}

// mcpConnect is pmacs.mcp.connect{cmd =, env =, cwd =} or {url =}, with
// roots = {dir, ...} (default: the runtime's registered roots), the
// directories the server is told it may work in: it returns the connection
// at once (requests wait for initialize), or nil and a message when the
// program cannot start.
func (b *Binding) mcpConnect(L *lua.LState) int {
	const fname = "pmacs.mcp.connect"
	f := checkTable(L, fname, 1, "spec", "field", false, mcpConnectFields...)
	spec := mcp.Spec{URL: f.str("url", false, ""), Dir: f.str("cwd", false, ""), ConnectTimeout: msField(f, "timeout_ms")}
	if f.get("cmd") != lua.LNil {
		b.unsafe(L, fname, safeNoProgram)
		spec.Argv = f.strings("cmd")
		if len(spec.Argv) == 0 {
			raise(L, "%s: field 'cmd' is empty", fname)
		}
	}
	if (spec.URL == "") == (spec.Argv == nil) {
		raise(L, "%s: exactly one of the fields 'cmd' and 'url' is required", fname)
	}
	b.unsafe(L, fname, safeNoServer)
	if spec.URL != "" && (spec.Dir != "" || f.get("env") != lua.LNil) {
		raise(L, "%s: fields 'cwd' and 'env' apply to 'cmd' only", fname)
	}
	spec.Env = envField(L, fname, f)
	spec.Roots = f.strings("roots")
	if f.get("roots") == lua.LNil {
		spec.Roots = b.rt.Roots()
	}
	if n := b.programOrFail(L, fname, &spec.Argv, spec.Dir); n > 0 {
		return n
	}
	if b.mcp.host == nil {
		// Every Tick polls the host, which hands it the finished calls,
		// their results already Lua tables (shapeMCPResult).
		b.mcp.host = mcp.NewHostWith(b.rt, mcp.HostConfig{Shape: shapeMCPResult})
		b.mcp.detach = b.rt.AddPoller(b.mcp.host)
	}
	c, err := b.mcp.host.Dial(spec)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	ud := L.NewUserData()
	ud.Value = &mcpConn{c: c}
	L.SetMetatable(ud, b.mcp.mt)
	L.Push(ud)
	return 1
}

func checkConn(L *lua.LState, fname string) *mcpConn {
	return checkSelf[*mcpConn](L, fname, "mcp connection")
}

// mcpOptions reads the {key =, timeout_ms =} table at n.
func mcpOptions(L *lua.LState, fname string, n int) mcp.RequestOptions {
	f := checkTable(L, fname, n, "opts", "option", true, mcpCallOptions...)
	return mcp.RequestOptions{Key: f.str("key", false, ""), Timeout: msField(f, "timeout_ms")}
}

// mcpPush adopts the job a request registered and pushes its handle.
func (b *Binding) mcpPush(L *lua.LState, o mcp.RequestOptions, start func() mcpJob) int {
	if o.Key != "" {
		if prev, ok := b.rt.ActiveForKey(o.Key); ok {
			b.cancel(prev)
		}
	}
	h, err := b.Adopt(start())
	if err != nil {
		raise(L, "pmacs.mcp: %v", err)
	}
	L.Push(h)
	return 1
}

func (b *Binding) mcpCall(L *lua.LState) int {
	const fname = "s:call"
	s := checkConn(L, fname)
	name := checkString(L, fname, 2, "name")
	var args any
	if v := L.Get(3); v != lua.LNil {
		if _, ok := v.(*lua.LTable); !ok {
			argError(L, fname, 3, "args", "table", v)
		}
		var err error
		if args, err = luaToJSON(v); err != nil {
			raise(L, "%s: args: %v", fname, err)
		}
	}
	o := mcpOptions(L, fname, 4)
	return b.mcpPush(L, o, func() mcpJob { return s.c.Call(name, args, o) })
}

func (b *Binding) mcpTools(L *lua.LState) int {
	s := checkConn(L, "s:tools")
	o := mcpOptions(L, "s:tools", 2)
	return b.mcpPush(L, o, func() mcpJob { return s.c.Tools(o) })
}

func (b *Binding) mcpResources(L *lua.LState) int {
	s := checkConn(L, "s:resources")
	o := mcpOptions(L, "s:resources", 2)
	return b.mcpPush(L, o, func() mcpJob { return s.c.Resources(o) })
}

func (b *Binding) mcpRead(L *lua.LState) int {
	s := checkConn(L, "s:read")
	uri := checkString(L, "s:read", 2, "uri")
	o := mcpOptions(L, "s:read", 3)
	return b.mcpPush(L, o, func() mcpJob { return s.c.ReadResource(uri, o) })
}

func (b *Binding) mcpPrompts(L *lua.LState) int {
	s := checkConn(L, "s:prompts")
	o := mcpOptions(L, "s:prompts", 2)
	return b.mcpPush(L, o, func() mcpJob { return s.c.Prompts(o) })
}

// mcpClose is s:close(): it returns at once; the connection closes on a
// goroutine of its own (at most mcp.CloseTimeout), its pending requests
// settle Failed with code "closed", and Binding.Close waits for it.
func (b *Binding) mcpClose(L *lua.LState) int {
	s := checkConn(L, "s:close")
	c := s.c
	b.mcp.closing.Go(func() { _ = c.Close() })
	return 0
}

// mcpProgress is s:progress(h): the latest progress notification of a
// pending call as {progress =, total =, message =, count =}, or nil.
func (b *Binding) mcpProgress(L *lua.LState) int {
	s := checkConn(L, "s:progress")
	j := checkSelfAt[*job](L, "s:progress", 2, "handle")
	p, ok := s.c.Progress(j.id)
	return pushProgress(L, p, ok)
}

// mcpJobProgress is h:progress() for an mcp_request handle.
func (b *Binding) mcpJobProgress(L *lua.LState, j *job) int {
	if b.mcp.host == nil {
		return pushProgress(L, mcp.Progress{}, false)
	}
	p, ok := b.mcp.host.Progress(j.id)
	return pushProgress(L, p, ok)
}

func pushProgress(L *lua.LState, p mcp.Progress, ok bool) int {
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	t := L.CreateTable(0, 4)
	t.RawSetString("progress", lua.LNumber(p.Progress))
	if p.Total > 0 {
		t.RawSetString("total", lua.LNumber(p.Total))
	}
	if p.Message != "" {
		t.RawSetString("message", lua.LString(p.Message))
	}
	t.RawSetString("count", lua.LNumber(p.Count))
	L.Push(t)
	return 1
}

// mcpStatus is s:status(): "connecting", "ready", or "failed" followed by
// the reason (closed, exited, initialize failed).
func (b *Binding) mcpStatus(L *lua.LState) int {
	s := checkConn(L, "s:status")
	if err := s.c.Err(); err != nil {
		L.Push(lua.LString("failed"))
		L.Push(lua.LString(err.Error()))
		return 2
	}
	select {
	case <-s.c.Ready():
		L.Push(lua.LString("ready"))
	default:
		L.Push(lua.LString("connecting"))
	}
	return 1
}

func (b *Binding) mcpStderr(L *lua.LState) int {
	L.Push(lua.LString(checkConn(L, "s:stderr").c.Stderr()))
	return 1
}

func (b *Binding) mcpString(L *lua.LState) int {
	s := checkConn(L, "tostring")
	L.Push(lua.LString("pmacs.mcp(" + s.c.Name() + ")"))
	return 1
}

// checkSelfAt is checkSelf for argument n.
func checkSelfAt[T any](L *lua.LState, fname string, n int, what string) T {
	if ud, ok := L.Get(n).(*lua.LUserData); ok {
		if v, ok := ud.Value.(T); ok {
			return v
		}
	}
	argError(L, fname, n, what, what, L.Get(n))
	var zero T
	return zero
}
