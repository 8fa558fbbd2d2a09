package luabind

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/procjob"
	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// pmacs.workers.spawn and system, and h:write and h:close_stdin on what
// spawn started (refused under --safe).

func init() {
	registerKind("proc", kindBinding{
		kinds: map[runtime.Kind]kindLua{
			procjob.SpawnKind: {codeFirst: true,
				value: func(b *Binding, out runtime.Outcome, _ any) lua.LValue {
					if r, ok := procjob.ResultOf(out); ok {
						return exitToLua(b.ls, r)
					}
					return lua.LTrue
				},
				items: func(L *lua.LState, t *lua.LTable, it runtime.Items) {
					ls := it.(procjob.Lines)
					for i := range ls {
						t.Append(lineToLua(L, &ls[i]))
					}
				},
			},
			procjob.SystemKind: {codeFirst: true, value: func(b *Binding, out runtime.Outcome, _ any) lua.LValue {
				if r, ok := procjob.ResultOf(out); ok {
					return systemToLua(b.ls, r)
				}
				return lua.LTrue
			}},
			procjob.WriteKind: {codeFirst: true},
		},
		install: func(b *Binding, t *installTables) {
			t.set(t.workers, map[string]lua.LGFunction{"spawn": b.spawnFn, "system": b.systemFn})
			t.set(t.handle, map[string]lua.LGFunction{"write": b.handleWrite, "close_stdin": b.handleCloseStdin})
		},
	})
}

// isSpawn reports the kinds whose failures read like luv's, code first:
// "ENOENT: spawn "prog": no such file or directory".
func isSpawn(k runtime.Kind) bool {
	return k == procjob.SpawnKind || k == procjob.SystemKind || k == procjob.WriteKind
}

// spawnFields are the keys w.spawn and w.system share.
var spawnFields = []string{"cmd", "cwd", "env", "stdin", "key", "timeout_ms", "kill_after_ms"}

// spawnSpec reads a spawn or system spec table. Every mistake a script can
// make in it is a Lua error here, except the ones only starting the program
// can find (a missing program, a bad cwd, an empty cmd), which fail the job
// luv-style.
func (b *Binding) spawnSpec(L *lua.LState, fname string, extra ...string) (proc.Spec, fields) {
	b.unsafe(L, fname, safeNoProgram)
	f := checkTable(L, fname, 1, "spec", "field", false, append(slices.Clone(spawnFields), extra...)...)
	if f.get("cmd") == lua.LNil {
		f.fail("cmd", "list of strings", lua.LNil)
	}
	spec := proc.Spec{
		Argv:      f.strings("cmd"),
		Dir:       f.str("cwd", false, ""),
		Timeout:   msField(f, "timeout_ms"),
		KillGrace: msField(f, "kill_after_ms"),
	}
	if spec.Argv == nil {
		spec.Argv = []string{}
	}
	spec.Argv = b.programOrRaise(L, fname, spec.Argv, spec.Dir)
	if add := envField(L, fname, f); add != nil {
		// On top of the editor's environment, later entries winning.
		spec.Env = append(os.Environ(), add...)
	}
	switch v := f.get("stdin").(type) {
	case *lua.LNilType:
	case lua.LString:
		if v == "pipe" {
			spec.StdinPipe = true
		} else {
			spec.Stdin = strings.NewReader(string(v))
		}
	default:
		f.fail("stdin", `string (the input) or "pipe"`, v)
	}
	return spec, f
}

func msField(f fields, name string) time.Duration {
	return time.Duration(min(f.count(name), int64(1<<62/time.Millisecond))) * time.Millisecond
}

func (b *Binding) spawnFn(L *lua.LState) int {
	const fname = "pmacs.workers.spawn"
	spec, f := b.spawnSpec(L, fname, "max_batch", "max_line")
	spec.MaxLine = int(min(f.count("max_line"), 1<<40))
	o := b.dispatchOptions(f, true)
	return b.push(L, o, procjob.SpawnKind, true, func() runtime.JobID { return procjob.Spawn(b.rt, spec, o) })
}

func (b *Binding) systemFn(L *lua.LState) int {
	const fname = "pmacs.workers.system"
	spec, f := b.spawnSpec(L, fname, "max_output")
	maxOut := int(min(f.count("max_output"), 1<<40))
	o := b.dispatchOptions(f, false)
	return b.push(L, o, procjob.SystemKind, false, func() runtime.JobID { return procjob.System(b.rt, spec, maxOut, o) })
}

// handleWrite is h:write(s): it queues s for the program's stdin and
// returns true at once while the queue has room. Past the high-water mark,
// inside a task, it waits (the task parks; the frame goes on) until the
// program has read the queue down. Outside a task it never waits, nor in
// the task iterating the program's output (see outputWaitsOn). A program
// that is gone gives nil, "EPIPE: ...", "EPIPE" (or the start failure's
// code if it never ran); a handle without a stdin pipe is an error.
func (b *Binding) handleWrite(L *lua.LState) int {
	j := checkJob(L, "h:write")
	s := checkString(L, "h:write", 2, "data")
	wait, err := procjob.Write(b.rt, j.id, []byte(s))
	if err != nil {
		return b.stdinError(L, "h:write", j, err)
	}
	if wait == 0 {
		L.Push(lua.LTrue)
		return 1
	}
	wj := &job{id: wait, kind: procjob.WriteKind, spawn: j}
	b.jobs[wait] = wj // taken when it settles, awaited or not
	t := b.threads[L]
	if t == nil || b.stack.vmLoops() != 1 || b.outputWaitsOn(j, t) {
		L.Push(lua.LTrue)
		return 1
	}
	wj.waiters = append(wj.waiters, t)
	t.waitOn = wj
	return b.park(L, t)
}

// outputWaitsOn reports whether the program's output is held for task t
// (t iterates it, or the task iterating it awaits t): the program cannot
// read its stdin down while its output waits for t, so a write of t's must
// not wait for that. Its queue grows by what t writes instead, which t
// already holds.
func (b *Binding) outputWaitsOn(j *job, t *Task) bool {
	if !j.stream || j.settled || j.discard {
		return false
	}
	if j.iterTask == nil {
		// Held for want of a consumer (see forgotten): no task will take
		// a batch before this one moves on.
		return j.held
	}
	_, ok := b.heldCycle(j.iterTask, t)
	return ok
}

// handleCloseStdin is h:close_stdin(): the program sees end of input once
// the queued writes are written.
func (b *Binding) handleCloseStdin(L *lua.LState) int {
	j := checkJob(L, "h:close_stdin")
	if err := procjob.CloseStdin(b.rt, j.id); err != nil {
		return b.stdinError(L, "h:close_stdin", j, err)
	}
	L.Push(lua.LTrue)
	return 1
}

// stdinError returns a gone program's EPIPE luv-style and raises misuse.
func (b *Binding) stdinError(L *lua.LState, fname string, j *job, err error) int {
	code := proc.Code(err)
	if j.settled && isSpawn(j.kind) {
		// The runtime has forgotten the job; the binding has not.
		code, err = "EPIPE", fmt.Errorf("%s#%d: the program has exited", j.kind, j.id)
	} else if je, ok := err.(*runtime.JobError); ok {
		// The runtime's own refusals are misuse: not a spawn, no pipe.
		if je.Code == "EINVAL" {
			if !isSpawn(j.kind) {
				raise(L, "%s: job %d (%s) is not a spawn", fname, j.id, j.kind)
			}
			raise(L, "%s: %s", fname, err.Error())
		}
		code = je.Code
	}
	L.Push(lua.LNil)
	L.Push(lua.LString(code + ": " + err.Error()))
	L.Push(lua.LString(code))
	return 3
}

// The fd values, boxed once: a flood converts thousands of lines a frame.
var (
	lStdout lua.LValue = lua.LString("stdout")
	lStderr lua.LValue = lua.LString("stderr")
)

func lineToLua(L *lua.LState, l *procjob.Line) *lua.LTable {
	t := L.CreateTable(0, 4)
	fd := lStdout
	if l.Stream == proc.Stderr {
		fd = lStderr
	}
	t.RawSetString("fd", fd)
	t.RawSetString("text", lua.LString(l.Text))
	if l.Partial {
		t.RawSetString("partial", lua.LTrue)
	}
	if l.Truncated {
		t.RawSetString("truncated", lua.LTrue)
	}
	return t
}

func exitToLua(L *lua.LState, r procjob.Result) *lua.LTable {
	t := L.CreateTable(0, 5)
	t.RawSetString("code", lua.LNumber(r.Code))
	if r.Signal != "" {
		t.RawSetString("signal", lua.LString(r.Signal))
	}
	return t
}

func systemToLua(L *lua.LState, r procjob.Result) *lua.LTable {
	t := exitToLua(L, r)
	t.RawSetString("stdout", lua.LString(r.Stdout))
	t.RawSetString("stderr", lua.LString(r.Stderr))
	t.RawSetString("truncated", lua.LBool(r.Truncated))
	return t
}

// envField reads the optional field env = {NAME = "value", ...} as sorted
// "NAME=value" entries (sorted, so a run does not depend on table
// iteration order); nil when the field is absent.
func envField(L *lua.LState, fname string, f fields) []string {
	ev := f.get("env")
	if ev == lua.LNil {
		return nil
	}
	t, ok := ev.(*lua.LTable)
	if !ok {
		f.fail("env", "table of strings", ev)
	}
	env := []string{}
	t.ForEach(func(k, v lua.LValue) {
		ks, kok := k.(lua.LString)
		vs, vok := v.(lua.LString)
		if !kok || !vok {
			raise(L, "%s: field 'env' expected string keys and values, got %s = %s", fname, typeName(k), typeName(v))
		}
		if ks == "" || strings.ContainsAny(string(ks), "=\x00") {
			raise(L, "%s: field 'env' has an invalid variable name %q", fname, string(ks))
		}
		env = append(env, string(ks)+"="+string(vs))
	})
	slices.Sort(env)
	return env
}
