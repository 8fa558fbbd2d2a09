package luabind

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// OnTick hears a completed rename before the task awaiting it resumes, so
// state the host derives from the tick is current when the task runs on.
func TestOnTickRunsBeforeTheTasksResume(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(from, nil, 0o644))
	rt, err := runtime.New(runtime.Options{})
	require.NoError(t, err)
	var seen []runtime.ResourceOp
	b, err := New(rt, Options{OnTick: func(out runtime.TickOutcome) {
		require.NotEmpty(t, out.Settled, "OnTick is called only for a tick that did something")
		seen = append(seen, out.Resources...)
	}})
	require.NoError(t, err)
	h := &harness{rt: rt, b: b}
	t.Cleanup(func() {
		b.Close()
		rt.Close()
	})
	b.L().SetGlobal("seen", b.L().NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(len(seen)))
		return 1
	}))
	fn, err := b.LoadString(`local from, to = ...; assert(pmacs.workers.fs.rename(from, to):await()); return seen()`, "rename.lua")
	require.NoError(t, err)
	task := b.Spawn(fn, lua.LString(from), lua.LString(to))
	h.drive(t, 10*time.Second)
	require.NoError(t, task.Err())
	require.Equal(t, []lua.LValue{lua.LNumber(1)}, task.Results(), "the task resumed before OnTick heard the rename")
	require.Equal(t, []runtime.ResourceOp{{Op: runtime.ResourceRename, From: from, To: to}}, seen)
}
