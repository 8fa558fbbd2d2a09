package luabind

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/workers"
)

// Acceptance (issue 11, defect 6): w.snapshot() lists a fatal root with the
// panic message, w.reset_root resets it (true) so the root takes
// mutations again, and refusals come back as nil, message, code.
func TestResetRootFromLua(t *testing.T) {
	h := newHarness(t, false)
	root, err := h.rt.RegisterRoot(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "a"), []byte("x"), 0o644))
	boom := make(chan workers.Result, 1)
	h.rt.Executor().Submit(context.Background(), workers.Task{Actor: workers.ActorID(root), Lane: workers.LaneMutating,
		Name: "rename", Run: func(context.Context, workers.Actor) (any, error) { panic("disk on fire") },
		Done: func(r workers.Result) { boom <- r }})
	select {
	case r := <-boom:
		require.ErrorIs(t, r.Err, workers.ErrInternal)
	case <-time.After(5 * time.Second):
		t.Fatal("the panicking job did not settle")
	}

	task := h.run(t, fmt.Sprintf(`
		local w = pmacs.workers
		local R = %q
		local snap = w.snapshot()
		assert(#snap.fatal == 1, "one fatal root")
		assert(snap.fatal[1].root == R, tostring(snap.fatal[1].root))
		assert(snap.fatal[1].reason:find("disk on fire", 1, true), snap.fatal[1].reason)

		local ok, err, code = w.fs.rename(R.."/a", R.."/b"):await()
		assert(ok == nil and code == "actor_fatal", tostring(err))

		assert(w.reset_root(snap.fatal[1].root) == true)
		assert(#w.snapshot().fatal == 0)
		ok, err = w.fs.rename(R.."/a", R.."/b"):await()
		assert(ok == true, tostring(err))

		local ok2, msg2, code2 = w.reset_root(R)
		assert(ok2 == nil and code2 == "actor_not_fatal", tostring(code2))
		assert(msg2:find("not fatal", 1, true), msg2)
		local ok3, msg3, code3 = w.reset_root(R.."/nope")
		assert(ok3 == nil and code3 == "actor_not_registered", tostring(code3))
		assert(msg3:find("not a registered root", 1, true), msg3)
		local called, why = pcall(w.reset_root)
		assert(not called and why:find("pmacs.workers.reset_root", 1, true), tostring(why))
	`, root))
	require.NoError(t, task.Err(), "stderr:\n%s", h.stderr.String())
	require.FileExists(t, filepath.Join(root, "b"))
}
