package luabind

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/fsjob"
	"github.com/pmacs-go/pmacs-go/kinds/grepjob"
	"github.com/pmacs-go/pmacs-go/kinds/parsejob"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/syntax"
)

// install builds the pmacs table and the metatables of the userdata types.
func (b *Binding) install() error {
	L := b.ls
	b.handleMT = metatable(L, map[string]lua.LGFunction{
		"await": b.handleAwait, "batches": b.handleBatches, "cancel": b.handleCancel,
		"id": b.handleID, "done": b.handleDone, "progress": b.handleProgress,
		"write": b.handleWrite, "close_stdin": b.handleCloseStdin,
	}, b.handleString)
	b.treeMT = metatable(L, map[string]lua.LGFunction{
		"language": treeLanguage, "root_type": treeRootType, "sexpr": treeSExpr,
		"has_error": treeHasError, "duration_ms": treeDurationMs, "highlights": treeHighlights,
		"close": treeClose,
	}, treeString)
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

	fs := L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"read_dir": b.fsReadDir, "stat": b.fsStat, "rename": b.fsRename,
		"chmod": b.fsChmod, "remove": b.fsRemove, "mkdir": b.fsMkdir,
	})
	w := L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"sleep": b.sleep, "sum": b.sum, "emit_n": b.emitN, "grep": b.grep, "parse": b.parse,
		"cancel": b.cancelByID, "snapshot": b.snapshot, "reset_root": b.resetRoot,
		"spawn": b.spawnFn, "system": b.systemFn,
		"search_text":     b.searchText,
		"frame_target_ms": b.frameTargetMs, "set_frame_target_ms": b.setFrameTargetMs,
		"default_max_batch": b.defaultMaxBatch, "set_default_max_batch": b.setDefaultMaxBatch,
	})
	L.SetFuncs(w, b.findFuncs())
	w.RawSetString("fs", fs)
	async, err := b.installAsync(L)
	if err != nil {
		return err
	}
	pmacs := L.NewTable()
	pmacs.RawSetString("array", L.NewFunction(b.luaArray))
	pmacs.RawSetString("workers", w)
	pmacs.RawSetString("async", async)
	pmacs.RawSetString("mcp", b.mcpTable(L))
	b.installLSP(pmacs)
	installText(L, pmacs)
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

// sleep is w.sleep(ms[, opts]): a job that completes after ms. It is an
// external job settled by the binding's timer heap (timers.go): a
// sleeping job holds no worker and no goroutine.
func (b *Binding) sleep(L *lua.LState) int {
	const fname = "pmacs.workers.sleep"
	msv := checkNumber(L, fname, 1, "ms")
	o, _ := b.opts(L, fname, 2, false)
	tm := after(msv, timerJob)
	var ctx context.Context
	n := b.push(L, o, demojob.Sleep, false, func() runtime.JobID {
		id, c := b.rt.RegisterExternal(demojob.Sleep, o.Key)
		ctx = c
		return id
	})
	if ud, ok := L.Get(-1).(*lua.LUserData); ok {
		if j, ok := ud.Value.(*job); ok {
			tm.job = j.id
			j.timer = tm
			b.timers.add(tm)
			// A cancel that does not pass through the binding (a
			// supersede by the same key from Go) reaches the timer
			// through the next frame.
			tm.stop = context.AfterFunc(ctx, func() { b.sleepCancelled(j.id) })
		}
	}
	return n
}

func (b *Binding) sum(L *lua.LState) int {
	const fname = "pmacs.workers.sum"
	n := checkCount(L, fname, 1, "n")
	o, _ := b.opts(L, fname, 2, false)
	return b.push(L, o, demojob.Sum, false, func() runtime.JobID { return demojob.DispatchSum(b.rt, n, o) })
}

func (b *Binding) emitN(L *lua.LState) int {
	const fname = "pmacs.workers.emit_n"
	n := checkCount(L, fname, 1, "count")
	o, _ := b.opts(L, fname, 2, true)
	return b.push(L, o, demojob.EmitN, true, func() runtime.JobID { return demojob.DispatchEmitN(b.rt, n, o) })
}

func (b *Binding) grep(L *lua.LState) int {
	const fname = "pmacs.workers.grep"
	f := checkTable(L, fname, 1, "spec", "field", false,
		"root", "pattern", "regex", "case_sensitive", "hidden", "no_ignore", "skip_dirs",
		"max_results", "max_file_bytes", "max_match_text", "key", "max_batch")
	spec := grep.Spec{
		Root:         f.str("root", true, ""),
		Pattern:      f.str("pattern", true, ""),
		Regex:        f.boolean("regex", false),
		IgnoreCase:   !f.boolean("case_sensitive", true),
		Hidden:       f.boolean("hidden", false),
		NoIgnore:     f.boolean("no_ignore", false),
		SkipDirs:     f.strings("skip_dirs"),
		MaxResults:   int(f.count("max_results")),
		MaxFileBytes: f.count("max_file_bytes"),
		MaxMatchText: int(f.count("max_match_text")),
	}
	b.safeRead(L, fname, spec.Root, true)
	o := b.dispatchOptions(f, true)
	return b.push(L, o, grepjob.Kind, true, func() runtime.JobID { return grepjob.Dispatch(b.rt, spec, o) })
}

func (b *Binding) parse(L *lua.LState) int {
	const fname = "pmacs.workers.parse"
	f := checkTable(L, fname, 1, "spec", "field", false, "source", "language", "prior", "key")
	req := syntax.Request{
		Source:   []byte(f.str("source", true, "")),
		Language: f.str("language", true, ""),
	}
	if _, err := syntax.Lookup(req.Language); err != nil {
		raise(L, "%s: field 'language': %v", fname, err)
	}
	if pv := f.get("prior"); pv != lua.LNil {
		ud, ok := pv.(*lua.LUserData)
		var tr *tree
		if ok {
			tr, ok = ud.Value.(*tree)
		}
		if !ok {
			f.fail("prior", "tree", pv)
		}
		if tr.t.Language() != req.Language {
			raise(L, "%s: field 'prior' is a %s tree, the request is %s", fname, tr.t.Language(), req.Language)
		}
		req.Prior = tr.t
	}
	o := b.dispatchOptions(f, false)
	return b.push(L, o, parsejob.Kind, false, func() runtime.JobID { return parsejob.Dispatch(b.rt, req, o) })
}

// ---- pmacs.workers.fs ----

// fsOpts reads a filesystem function's opts table at n: the dispatch keys,
// roots (see fsRoots) and extra ones.
func (b *Binding) fsOpts(L *lua.LState, fname string, n int, extra ...string) (runtime.DispatchOptions, fsjob.Scope, fields) {
	o, f := b.opts(L, fname, n, false, append(slices.Clone(extra), "roots")...)
	return o, fsjob.Scope{Roots: b.fsRoots(L, fname, f)}, f
}

func (b *Binding) fsReadDir(L *lua.LState) int {
	const fname = "pmacs.workers.fs.read_dir"
	path := checkString(L, fname, 1, "path")
	b.safeRead(L, fname, path, true)
	o, sc, f := b.fsOpts(L, fname, 2, "per_entry")
	tol := fsops.Fatal
	if f.boolean("per_entry", false) {
		tol = fsops.PerEntry
	}
	return b.push(L, o, fsjob.ReadDirKind, false, func() runtime.JobID { return fsjob.ReadDir(b.rt, path, tol, sc, o) })
}

func (b *Binding) fsStat(L *lua.LState) int {
	const fname = "pmacs.workers.fs.stat"
	path := checkString(L, fname, 1, "path")
	b.safeRead(L, fname, path, false)
	o, sc, _ := b.fsOpts(L, fname, 2)
	return b.push(L, o, fsjob.StatKind, false, func() runtime.JobID { return fsjob.Stat(b.rt, path, sc, o) })
}

func (b *Binding) fsRename(L *lua.LState) int {
	const fname = "pmacs.workers.fs.rename"
	b.unsafe(L, fname, safeNoWrite)
	from := checkString(L, fname, 1, "from")
	to := checkString(L, fname, 2, "to")
	o, sc, f := b.fsOpts(L, fname, 3, "overwrite")
	overwrite := f.boolean("overwrite", false)
	return b.push(L, o, fsjob.RenameKind, false, func() runtime.JobID { return fsjob.Rename(b.rt, from, to, overwrite, sc, o) })
}

func (b *Binding) fsChmod(L *lua.LState) int {
	const fname = "pmacs.workers.fs.chmod"
	b.unsafe(L, fname, safeNoWrite)
	path := checkString(L, fname, 1, "path")
	mode := checkMode(L, fname, 2)
	o, sc, _ := b.fsOpts(L, fname, 3)
	return b.push(L, o, fsjob.ChmodKind, false, func() runtime.JobID { return fsjob.Chmod(b.rt, path, mode, sc, o) })
}

func (b *Binding) fsRemove(L *lua.LState) int {
	const fname = "pmacs.workers.fs.remove"
	b.unsafe(L, fname, safeNoWrite)
	path := checkString(L, fname, 1, "path")
	o, sc, _ := b.fsOpts(L, fname, 2)
	return b.push(L, o, fsjob.RemoveKind, false, func() runtime.JobID { return fsjob.Remove(b.rt, path, sc, o) })
}

func (b *Binding) fsMkdir(L *lua.LState) int {
	const fname = "pmacs.workers.fs.mkdir"
	b.unsafe(L, fname, safeNoWrite)
	path := checkString(L, fname, 1, "path")
	o, sc, _ := b.fsOpts(L, fname, 2)
	return b.push(L, o, fsjob.MkdirKind, false, func() runtime.JobID { return fsjob.Mkdir(b.rt, path, sc, o) })
}

// checkMode takes a mode as an integer (0 to 0o7777; Lua has no octal
// literals, so 420 is 0644) or as an octal string ("644", "0755").
func checkMode(L *lua.LState, fname string, n int) uint32 {
	const bad = "%s: argument #%d (mode) expected an integer from 0 to 4095 or an octal string like \"644\", got %s"
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		if v < 0 || v > 0o7777 || float64(v) != float64(int64(v)) {
			raise(L, bad, fname, n, v.String())
		}
		return uint32(v)
	case lua.LString:
		m, err := strconv.ParseUint(string(v), 8, 32)
		if err != nil || len(v) == 0 || len(v) > 5 || m > 0o7777 {
			raise(L, bad, fname, n, strconv.Quote(string(v)))
		}
		return uint32(m)
	default:
		raise(L, bad, fname, n, typeName(v))
	}
	return 0
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
