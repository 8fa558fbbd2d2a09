package luabind

import (
	"fmt"
	"slices"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// kindLua is one job kind's Lua surface in the binding: how what its jobs
// settle with and what its streams deliver become Lua values, and the
// handle methods that work differently for its jobs. Every field may be
// left zero.
type kindLua struct {
	// take runs before TakeResult, for a kind that hands something over
	// outside the outcome (a parse tree); value gets what it returned.
	take func(b *Binding, id runtime.JobID) any
	// value converts a completed job's value; nil settles with true.
	value func(b *Binding, out runtime.Outcome, taken any) lua.LValue
	// items appends a batch's items (StreamBatch.Items) to t.
	items func(L *lua.LState, t *lua.LTable, it runtime.Items)
	// batch, instead of items, makes the whole batch's Lua value: a
	// snapshot that is a table of its own, not a list of items.
	batch func(L *lua.LState, sb *runtime.StreamBatch) *lua.LTable
	// closing, for a stream, makes what await returns from its closing
	// batch; without it a stream settles with its value, or true.
	closing func(b *Binding, sb *runtime.StreamBatch) lua.LValue
	// codeFirst makes a failure's message start with its code, as luv's
	// do ("ENOENT: ..."): the filesystem and process kinds.
	codeFirst bool

	// settle, when set, may settle a request/reply job itself (an LSP
	// reply its client shaped on its reader) and then reports true; false
	// leaves the job to the common path.
	settle func(b *Binding, j *job) bool
	// batches is h:batches() on a job of the kind that is not a stream
	// (an LSP reply iterated in batches); without it that is an error.
	batches func(b *Binding, L *lua.LState, j *job) int
	// progress is h:progress() on a job of the kind that is not a stream
	// (an MCP call's latest progress notification); without it, nil.
	progress func(b *Binding, L *lua.LState, j *job) int
}

// kindBinding is what one kind package, or one protocol client, adds to
// the binding: its kinds' conversions and hooks, and the Lua functions it
// installs. Each lives in a kind_*.go file of its own and registers at
// init, so the binding's core follows the registry and imports no kind.
type kindBinding struct {
	// kinds are the runtime kinds the module's functions dispatch.
	kinds map[runtime.Kind]kindLua
	// install adds the module's functions to the tables in t; it runs
	// once for every Binding, modules in the order of their names.
	install func(b *Binding, t *installTables)
}

// installTables are the tables a module installs its functions into.
type installTables struct {
	L *lua.LState
	// pmacs is the pmacs table, workers pmacs.workers.
	pmacs, workers *lua.LTable
	// handle holds the methods of every job handle.
	handle *lua.LTable
}

// sub returns parent[name], making it an empty table if it is not one yet:
// several modules share pmacs.workers.fs.
func (t *installTables) sub(parent *lua.LTable, name string) *lua.LTable {
	if s, ok := parent.RawGetString(name).(*lua.LTable); ok {
		return s
	}
	s := t.L.NewTable()
	parent.RawSetString(name, s)
	return s
}

// set installs fns into dst, refusing a name another module took: two
// modules that both define pmacs.workers.x are a program's mistake.
func (t *installTables) set(dst *lua.LTable, fns map[string]lua.LGFunction) {
	for name, fn := range fns {
		if dst.RawGetString(name) != lua.LNil {
			panic(fmt.Sprintf("luabind: two kinds install %q", name))
		}
		dst.RawSetString(name, t.L.NewFunction(fn))
	}
}

// maxKinds is how many values runtime.Kind has.
const maxKinds = 256

var (
	kindBindings = map[string]kindBinding{}
	// kindsLua is indexed by runtime.Kind: a batch or a settle looks its
	// kind up without hashing.
	kindsLua [maxKinds]*kindLua
	noKind   kindLua
)

// registerKind makes a module's Lua surface known under name; called at
// init. A name or a runtime kind registered twice panics, as registering a
// database/sql driver twice does.
func registerKind(name string, kb kindBinding) {
	if _, dup := kindBindings[name]; dup {
		panic("luabind: registerKind: " + name + " registered twice")
	}
	for k, kl := range kb.kinds {
		if kindsLua[k] != nil {
			panic(fmt.Sprintf("luabind: registerKind %s: kind %s registered twice", name, k))
		}
		kindsLua[k] = &kl
	}
	kindBindings[name] = kb
}

// luaOf returns kind's Lua surface; a zero one for a kind no module
// registered (a job the host dispatched and the binding adopted).
func luaOf(kind runtime.Kind) *kindLua {
	if k := kindsLua[kind]; k != nil {
		return k
	}
	return &noKind
}

// installKinds runs every module's install, in the order of their names,
// so the tables come out the same whatever order the modules' init ran in.
func (b *Binding) installKinds(t *installTables) {
	names := make([]string, 0, len(kindBindings))
	for name := range kindBindings {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if kb := kindBindings[name]; kb.install != nil {
			kb.install(b, t)
		}
	}
}

// externalToLua converts an external job's value (a protocol client's
// reply, already plain values).
func externalToLua(_ *Binding, out runtime.Outcome, _ any) lua.LValue {
	v, _ := out.External()
	lv, err := luaFromValue(v)
	if err != nil {
		// The runtime's MessagePack copy makes only values luaFromValue
		// takes; say so rather than lose the error.
		return lua.LString("pmacs: result has no Lua form: " + err.Error())
	}
	return lv
}

// numbersToLua appends integers as Lua numbers.
func numbersToLua[S ~[]uint64](_ *lua.LState, t *lua.LTable, it runtime.Items) {
	for _, n := range it.(S) {
		t.Append(lua.LNumber(n))
	}
}
