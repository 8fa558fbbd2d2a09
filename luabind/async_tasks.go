package luabind

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// TaskInfo is one live task, for the task list (pmacs.async.tasks,
// w.snapshot, the *workers* view) and the stall report.
type TaskInfo struct {
	ID       uint64
	Name     string
	Parent   uint64 // 0 for none
	State    string // "running" (or queued to resume), "waiting", or "joining" (its function returned; its children run)
	Waiting  string // what it waits on, when waiting
	Since    time.Duration
	Age      time.Duration
	Jobs     []uint64 // jobs it owns that have not settled
	Cancel   bool     // cancelled, not ended yet
	Children int
}

// Tasks lists the live tasks, parents before their children, by id.
func (b *Binding) Tasks() []TaskInfo {
	now := time.Now()
	all := make([]*Task, 0, b.alive.n)
	for t := b.alive.head; t != nil; t = t.nextAlive {
		all = append(all, t)
	}
	slices.SortFunc(all, func(x, y *Task) int { return cmp.Compare(x.id, y.id) })
	out := make([]TaskInfo, 0, len(all))
	for _, t := range all {
		ti := TaskInfo{ID: t.id, Name: t.name, Age: now.Sub(t.started), Cancel: t.cancelled, Children: len(t.children)}
		if t.parent != nil {
			ti.Parent = t.parent.id
		}
		for _, j := range t.jobs {
			ti.Jobs = append(ti.Jobs, uint64(j.id))
		}
		slices.Sort(ti.Jobs)
		switch {
		case t.bodyDone:
			ti.State, ti.Waiting = "joining", fmt.Sprintf("%d child task(s)", len(t.children))
		case t.parked:
			ti.State, ti.Waiting, ti.Since = "waiting", b.waitingOn(t), now.Sub(t.since)
		default:
			ti.State = "running"
		}
		out = append(out, ti)
	}
	return out
}

// waitingOn says what a parked task waits for.
func (b *Binding) waitingOn(t *Task) string {
	switch w := t.waitOn.(type) {
	case *Task:
		return "task " + w.label()
	case *job:
		return fmt.Sprintf("job %d (%s)", w.id, w.kind)
	case waitable:
		return w.describe()
	}
	if j := t.consuming; j != nil {
		return fmt.Sprintf("the next batch of job %d (%s)", j.id, j.kind)
	}
	if t.timer != nil {
		return "sleep"
	}
	return "a yield"
}

// StallReport names the tasks that are waiting and what each waits for,
// for a host that found the binding Stalled.
func (b *Binding) StallReport() string {
	var sb strings.Builder
	for _, ti := range b.Tasks() {
		fmt.Fprintf(&sb, "task #%d", ti.ID)
		if ti.Name != "" {
			fmt.Fprintf(&sb, " %q", ti.Name)
		}
		fmt.Fprintf(&sb, " %s", ti.State)
		if ti.Waiting != "" {
			fmt.Fprintf(&sb, " on %s", ti.Waiting)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// tasksToLua is the task list as Lua tables.
func tasksToLua(L *lua.LState, tis []TaskInfo) *lua.LTable {
	out := L.CreateTable(len(tis), 0)
	for _, ti := range tis {
		t := L.CreateTable(0, 10)
		t.RawSetString("id", lua.LNumber(ti.ID))
		if ti.Name != "" {
			t.RawSetString("name", lua.LString(ti.Name))
		}
		if ti.Parent != 0 {
			t.RawSetString("parent", lua.LNumber(ti.Parent))
		}
		t.RawSetString("state", lua.LString(ti.State))
		if ti.Waiting != "" {
			t.RawSetString("waiting", lua.LString(ti.Waiting))
			t.RawSetString("since_ms", lua.LNumber(ti.Since.Milliseconds()))
		}
		t.RawSetString("age_ms", lua.LNumber(ti.Age.Milliseconds()))
		jobs := L.CreateTable(len(ti.Jobs), 0)
		for _, id := range ti.Jobs {
			jobs.Append(lua.LNumber(id))
		}
		t.RawSetString("jobs", jobs)
		t.RawSetString("cancelled", lua.LBool(ti.Cancel))
		t.RawSetString("children", lua.LNumber(ti.Children))
		out.Append(t)
	}
	return out
}

// asyncTasks is pmacs.async.tasks(): the live tasks, parents first.
func (b *Binding) asyncTasks(L *lua.LState) int {
	L.Push(tasksToLua(L, b.Tasks()))
	return 1
}

// BeginCommand starts recording the tasks that the embedder's next call
// into the main state (a key binding, a command) starts without a parent;
// EndCommand stops and returns them. An editor keeps them as the task tree
// behind its current command, for a key that cancels it (CancelTasks).
func (b *Binding) BeginCommand() { b.command = b.command[:0]; b.recording = true }

// EndCommand returns the tasks started since BeginCommand that are still
// alive.
func (b *Binding) EndCommand() []*Task {
	b.recording = false
	out := make([]*Task, 0, len(b.command))
	for _, t := range b.command {
		if t.state == taskRunning {
			out = append(out, t)
		}
	}
	b.command = b.command[:0]
	return out
}

// CancelTasks cancels each task and its tree (task:cancel(reason)) and
// returns how many were still running. Main goroutine only.
func (b *Binding) CancelTasks(ts []*Task, reason string) int {
	n := 0
	for _, t := range ts {
		if t.state == taskRunning && !t.cancelled {
			b.cancelTask(t, cancelMessage(reason))
			n++
		}
	}
	return n
}
