package editor

import (
	"context"
	"slices"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/cmd/demo-editor/internal/wsedit"
	"github.com/pmacs-go/pmacs-go/fsops"
)

// editPlan is a workspace edit being planned: done once the helper
// goroutine handed its result back to the main goroutine.
type editPlan struct {
	done bool
	plan *wsedit.Plan
	err  error
}

// rootsEnv is the planner's view of the world: the disk beneath the root,
// confined to it by fsops.Roots, and the buffers as they were when the
// plan was asked for (read on the main goroutine, handed over as copies).
type rootsEnv struct {
	roots          fsops.Roots
	open, modified []string
}

func (r *rootsEnv) Lstat(path string) (wsedit.Entry, error) {
	e, err := r.roots.Stat(context.Background(), path)
	if err != nil {
		return wsedit.Entry{}, err
	}
	return wsedit.Entry{Symlink: e.Kind == fsops.KindSymlink, Target: e.Target}, nil
}

func (r *rootsEnv) Open(path string) bool { return slices.Contains(r.open, path) }
func (r *rootsEnv) Modified() []string    { return r.modified }

// installWorkspaceEditAPI adds the planner of language-server workspace
// edits (package wsedit) to pmacs.editor.
func (e *session) installWorkspaceEditAPI(api *lua.LTable) {
	e.plans = map[int]*editPlan{}
	e.L.SetFuncs(api, map[string]lua.LGFunction{
		"plan_workspace_edit": e.luaPlanWorkspaceEdit, "workspace_edit_plan": e.luaWorkspaceEditPlan,
	})
}

// luaPlanWorkspaceEdit is ed.plan_workspace_edit(steps[, on_done]): it starts planning
// the steps of a WorkspaceEdit, each {kind = "edit"|"create"|"rename"|
// "delete", path =, from =, to =, version =, options = {overwrite =,
// ignoreIfExists =, ignoreIfNotExists =, recursive =}}, against the
// workspace root, on a helper goroutine (it asks the disk), and returns a
// token for ed.workspace_edit_plan. on_done, if given, is called on the
// main goroutine once the plan is ready, so a task can wait on a future it
// completes instead of asking every frame. A malformed step raises.
func (e *session) luaPlanWorkspaceEdit(L *lua.LState) int {
	const fname = "plan_workspace_edit"
	lt, ok := L.Get(1).(*lua.LTable)
	if !ok {
		argErr(L, fname, 1, "steps", "a list of steps")
	}
	var onDone *lua.LFunction
	if L.Get(2) != lua.LNil {
		onDone = fnArg(L, fname, 2, "on_done")
	}
	var steps []wsedit.Step
	for i := 1; i <= lt.Len(); i++ {
		st, ok := lt.RawGetInt(i).(*lua.LTable)
		if !ok {
			L.RaiseError("pmacs.editor.%s: step %d must be a table, got %s", fname, i, lt.RawGetInt(i).Type().String())
		}
		str := func(k string, need bool) string {
			v, ok := st.RawGetString(k).(lua.LString)
			if !ok && (need || st.RawGetString(k) != lua.LNil) {
				L.RaiseError("pmacs.editor.%s: step %d: field %s must be a string", fname, i, k)
			}
			return string(v)
		}
		s := wsedit.Step{Kind: wsedit.Kind(str("kind", true))}
		switch s.Kind {
		case wsedit.Rename:
			s.From, s.To = str("from", true), str("to", true)
		case wsedit.Edit, wsedit.Create, wsedit.Delete:
			s.Path = str("path", true)
		default:
			L.RaiseError("pmacs.editor.%s: step %d: unknown kind %q", fname, i, s.Kind)
		}
		if v, ok := st.RawGetString("version").(lua.LNumber); ok && v > 0 {
			s.Version = int(v)
		}
		if o, ok := st.RawGetString("options").(*lua.LTable); ok {
			flag := func(k string) bool { return lua.LVAsBool(o.RawGetString(k)) }
			s.Options = wsedit.Options{Overwrite: flag("overwrite"), IgnoreIfExists: flag("ignoreIfExists"),
				IgnoreIfNotExists: flag("ignoreIfNotExists"), Recursive: flag("recursive")}
		}
		steps = append(steps, s)
	}
	env := &rootsEnv{roots: fsops.Roots{e.root}}
	for _, id := range e.order {
		if b := e.bufs[id]; b.path != "" {
			env.open = append(env.open, b.path)
			if b.Modified() {
				env.modified = append(env.modified, b.path)
			}
		}
	}
	root := wsedit.Root{Named: e.root, Real: realOr(e.root)}
	e.nextPlan++
	token := e.nextPlan
	st := &editPlan{}
	e.plans[token] = st
	e.goIO(func() func() {
		plan, err := wsedit.Make(steps, root, env)
		return func() {
			st.done, st.plan, st.err = true, plan, err
			if onDone != nil {
				e.callLua(onDone, fname+" on_done")
			}
		}
	})
	return push(L, lua.LNumber(token))
}

// luaWorkspaceEditPlan is ed.workspace_edit_plan(token): false while the
// plan is being made; then, once, the plan {files = {{path =, fresh =,
// groups = {step index, ...}, version =}}, ops = {{step =, kind =
// "rename"|"delete", path =, from =, to =, overwrite =, name =}}} (step
// indexes 1-based), or nil and why the edit is refused.
func (e *session) luaWorkspaceEditPlan(L *lua.LState) int {
	token := L.CheckInt(1)
	st := e.plans[token]
	if st == nil {
		L.RaiseError("pmacs.editor.workspace_edit_plan: no plan %d (unknown, or its result was taken)", token)
	}
	if !st.done {
		return push(L, lua.LFalse)
	}
	delete(e.plans, token)
	if st.err != nil {
		return pushErr(L, st.err)
	}
	files := L.NewTable()
	for _, f := range st.plan.Files {
		groups := L.NewTable()
		for _, g := range f.Groups {
			groups.Append(lua.LNumber(g + 1))
		}
		ft := L.NewTable()
		ft.RawSetString("path", lua.LString(f.Path))
		ft.RawSetString("fresh", lua.LBool(f.Fresh))
		ft.RawSetString("groups", groups)
		if f.Version > 0 {
			ft.RawSetString("version", lua.LNumber(f.Version))
		}
		files.Append(ft)
	}
	ops := L.NewTable()
	for _, o := range st.plan.Ops {
		ot := L.NewTable()
		ot.RawSetString("step", lua.LNumber(o.Step+1))
		ot.RawSetString("kind", lua.LString(string(o.Kind)))
		ot.RawSetString("name", lua.LString(o.Name))
		ot.RawSetString("overwrite", lua.LBool(o.Overwrite))
		if o.Kind == wsedit.Rename {
			ot.RawSetString("from", lua.LString(o.From))
			ot.RawSetString("to", lua.LString(o.To))
		} else {
			ot.RawSetString("path", lua.LString(o.Path))
		}
		ops.Append(ot)
	}
	plan := L.NewTable()
	plan.RawSetString("files", files)
	plan.RawSetString("ops", ops)
	return push(L, plan)
}
