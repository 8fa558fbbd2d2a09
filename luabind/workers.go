package luabind

import (
	"errors"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// install builds the pmacs table and the metatables of the userdata types.
func (b *Binding) install() error {
	L := b.ls
	b.handleMT = metatable(L, map[string]lua.LGFunction{
		"await": b.handleAwait, "batches": b.handleBatches, "cancel": b.handleCancel,
		"id": b.handleID, "done": b.handleDone, "progress": b.handleProgress,
	}, b.handleString)
	b.iterFn = L.NewFunction(b.batchIter)
	L.SetGlobal(forLeave, L.NewFunction(b.forLeave))

	// Every task starts in this trampoline: it arms the traceback hook on
	// the task's thread, then calls the task's function. The call must not
	// be a tail call: gopher-lua ends a coroutine whose bottom frame
	// tail-calls a Go function that yields ("return h:await()" as the last
	// statement of a task), so the task's function must never be the
	// bottom frame.
	mk, err := b.LoadString("local arm, pass = ...\nreturn function(f, ...) arm() return pass(f(...)) end", trampolineSource)
	if err != nil {
		return err
	}
	pass := L.NewFunction(func(L *lua.LState) int { return L.GetTop() })
	if err := L.CallByParam(lua.P{Fn: mk, NRet: 1, Protect: true}, L.NewFunction(b.armPanic), pass); err != nil {
		return err
	}
	b.trampoline = L.Get(-1).(*lua.LFunction)
	L.Pop(1)

	w := L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"cancel": b.cancelByID, "snapshot": b.snapshot, "reset_root": b.resetRoot,
		"frame_target_ms": b.frameTargetMs, "set_frame_target_ms": b.setFrameTargetMs,
		"default_max_batch": b.defaultMaxBatch, "set_default_max_batch": b.setDefaultMaxBatch,
	})
	async, err := b.installAsync(L)
	if err != nil {
		return err
	}
	pmacs := L.NewTable()
	pmacs.RawSetString("array", L.NewFunction(b.luaArray))
	pmacs.RawSetString("workers", w)
	pmacs.RawSetString("async", async)
	installText(L, pmacs)
	// Every kind's functions, and each protocol client's table, come from
	// a module of its own (kind_*.go) through the registry.
	b.installKinds(&installTables{L: L, pmacs: pmacs, workers: w, handle: b.handleMT.RawGetString("__index").(*lua.LTable)})
	L.SetGlobal("pmacs", pmacs)
	if loaded, ok := L.GetField(L.Get(lua.RegistryIndex), "_LOADED").(*lua.LTable); ok {
		loaded.RawSetString("pmacs", pmacs)
	}
	return nil
}

func metatable(L *lua.LState, methods map[string]lua.LGFunction, tostring lua.LGFunction) *lua.LTable {
	mt := L.NewTable()
	mt.RawSetString("__index", L.SetFuncs(L.NewTable(), methods))
	mt.RawSetString("__tostring", L.NewFunction(tostring))
	// Scripts cannot swap a handle's methods through getmetatable.
	mt.RawSetString("__metatable", lua.LString("pmacs"))
	return mt
}

// ---- pmacs.workers: dispatch ----

// opts reads the optional opts table at argument n with the dispatch keys
// plus extra ones.
func (b *Binding) opts(L *lua.LState, fname string, n int, stream bool, extra ...string) (runtime.DispatchOptions, fields) {
	known := append([]string{"key"}, extra...)
	if stream {
		known = append(known, "max_batch")
	}
	f := checkTable(L, fname, n, "opts", "option", true, known...)
	return b.dispatchOptions(f, stream), f
}

func (b *Binding) dispatchOptions(f fields, stream bool) runtime.DispatchOptions {
	o := runtime.DispatchOptions{Key: f.str("key", false, "")}
	if stream {
		o.MaxBatch = int(min(f.count("max_batch"), runtime.MaxMaxBatch))
	}
	return o
}

// push dispatches (once every argument has been checked) and pushes the
// handle.
func (b *Binding) push(L *lua.LState, o runtime.DispatchOptions, kind runtime.Kind, stream bool, dispatch func() runtime.JobID) int {
	if o.Key != "" {
		// The runtime cancels the predecessor under this key; drop what
		// the binding already took of its stream too.
		if prev, ok := b.rt.ActiveForKey(o.Key); ok {
			b.cancel(prev)
		}
	}
	L.Push(b.newHandle(L, dispatch(), kind, stream))
	return 1
}

// ---- pmacs.workers: control ----

func (b *Binding) cancelByID(L *lua.LState) int {
	id := checkCount(L, "pmacs.workers.cancel", 1, "id")
	b.cancel(runtime.JobID(id))
	return 0
}

func (b *Binding) snapshot(L *lua.LState) int {
	t := snapshotToLua(L, b.rt.Snapshot())
	// The live tasks too, parents before children (pmacs.async.tasks).
	t.RawSetString("tasks", tasksToLua(L, b.Tasks()))
	L.Push(t)
	return 1
}

// resetRoot is w.reset_root(path): true, or nil, message, code when the
// root is unknown (actor_not_registered), not fatal (actor_not_fatal) or
// still has jobs running (actor_busy).
func (b *Binding) resetRoot(L *lua.LState) int {
	root := checkString(L, "pmacs.workers.reset_root", 1, "path")
	err := b.rt.ResetRoot(root)
	if err == nil {
		L.Push(lua.LTrue)
		return 1
	}
	L.Push(lua.LNil)
	L.Push(lua.LString(err.Error()))
	var je *runtime.JobError
	if errors.As(err, &je) && je.Code != "" {
		L.Push(lua.LString(je.Code))
		return 3
	}
	return 2
}

func (b *Binding) frameTargetMs(L *lua.LState) int {
	L.Push(lua.LNumber(b.rt.FrameTarget() / time.Millisecond))
	return 1
}

func (b *Binding) setFrameTargetMs(L *lua.LState) int {
	n := checkNumber(L, "pmacs.workers.set_frame_target_ms", 1, "ms")
	// Whole milliseconds, as the Lua API has always taken them; the clamp
	// before the conversion keeps a huge number from overflowing Duration.
	ms := int64(min(max(n, -1), 1e6))
	b.rt.SetFrameTarget(time.Duration(ms) * time.Millisecond)
	return 0
}

func (b *Binding) defaultMaxBatch(L *lua.LState) int {
	L.Push(lua.LNumber(b.rt.DefaultMaxBatch()))
	return 1
}

func (b *Binding) setDefaultMaxBatch(L *lua.LState) int {
	n := checkNumber(L, "pmacs.workers.set_default_max_batch", 1, "n")
	b.rt.SetDefaultMaxBatch(int(min(max(n, -1<<31), 1<<31)))
	return 0
}
