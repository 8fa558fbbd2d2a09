//go:build linux

package procjob

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/proctest"
	"github.com/pmacs-go/pmacs-go/workers"
)

// teardownBound is the bound on every teardown.
const teardownBound = 3 * time.Second

// hostileSpawn dispatches a spawn whose program misbehaves as kind says
// (see proctest.Hostile) and returns the job and the misbehaving
// descendant once it is in place.
func hostileSpawn(t *testing.T, rt testRT, kind string, o DispatchOptions) (JobID, proctest.Proc) {
	t.Helper()
	pf := filepath.Join(t.TempDir(), "pid")
	prefix, comm := proctest.Hostile(kind, pf)
	prog := "exec sleep 1000"
	if kind == proctest.FullPipe {
		prog = "exec yes"
	}
	spec := shSpec(prefix + prog)
	spec.StdinPipe = true
	id := rt.DispatchSpawn(spec, o)
	gc := proctest.Track(t, pf)
	gc.WaitFor(t, "the descendant in place", proctest.Detached(comm))
	if kind == proctest.FullPipe {
		// Both directions full: the program never reads its input.
		_, err := rt.SpawnWrite(id, make([]byte, 4<<20))
		require.NoError(t, err)
	}
	return id, gc
}

// Issue 25, teardown: runtime.Close returns within 3 s whatever a spawn's
// program does (a setsid grandchild holding stdout, SIGTERM ignored, full
// pipes nobody reads, a stdout an escaped process never closes), and the
// grandchild is then neither running nor a zombie, except the escaped one,
// which only the exit's proc.EndAll ends.
func TestCloseEndsEverySpawnTree(t *testing.T) {
	subreaper(t)
	for _, kind := range proctest.Cases {
		t.Run(kind, func(t *testing.T) {
			rt, err := New(Options{Executor: workers.Config{PoolSize: 2}})
			require.NoError(t, err)
			_, gc := hostileSpawn(t, rt, kind, DispatchOptions{})
			start := time.Now()
			rt.Close()
			require.Less(t, time.Since(start), teardownBound, "Close took too long")
			if kind != proctest.NeverClose {
				proctest.Gone(t, teardownBound, gc)
			}
		})
	}
}

// Issue 25, teardown: cancel, supersede and timeout of a spawn job end its
// setsid grandchild, not only its group: the job settles and, within 3 s,
// the grandchild is neither running nor a zombie.
func TestSpawnStopEndsSetsidGrandchild(t *testing.T) {
	subreaper(t)
	rt := newRT(t, 2)

	id, gc := hostileSpawn(t, rt, proctest.Grandchild, DispatchOptions{})
	rt.Cancel(id)
	require.Equal(t, Cancelled, drainSpawn(t, rt, id).outcome.State)
	proctest.Gone(t, teardownBound, gc)

	first, gc := hostileSpawn(t, rt, proctest.Grandchild, DispatchOptions{Key: "build"})
	second := rt.DispatchSpawn(shSpec("echo second"), DispatchOptions{Key: "build"})
	res := drainStreams(t, rt, 30*time.Second, first, second)
	require.Equal(t, Cancelled, res[first].Outcome.State)
	proctest.Gone(t, teardownBound, gc)

	pf := filepath.Join(t.TempDir(), "pid")
	prefix, _ := proctest.Hostile(proctest.IgnoreTerm, pf)
	spec := shSpec(prefix + "exec sleep 1000")
	spec.Timeout, spec.KillGrace = 300*time.Millisecond, 100*time.Millisecond
	id = rt.DispatchSpawn(spec, DispatchOptions{})
	gc = proctest.Track(t, pf)
	out := drainSpawn(t, rt, id)
	require.Equal(t, Failed, out.outcome.State)
	require.Equal(t, "ETIMEDOUT", jobErr(t, out.outcome.Err).Code)
	proctest.Gone(t, teardownBound, gc)
}
