package procjob

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/proc"
)

// A caller that keeps writing past the high-water mark without waiting, to
// a program that never reads, meets a hard bound: the write that would
// pass StdinMaxQueued fails with ENOBUFS and queues nothing, so the queue
// never grows past it; the program's end fails later writes with EPIPE as
// before. (Issue 25 point 7: "a spawn's stdin queue ... grows without a
// byte bound".)
func TestSpawnStdinQueueIsBoundedInBytes(t *testing.T) {
	rt := newRT(t, 2)
	id := rt.DispatchSpawn(proc.Spec{Argv: []string{"sleep", "60"}, StdinPipe: true}, DispatchOptions{})
	spawnPgid(t, rt, id, 1)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	var err error
	writes := 0
	for ; writes < 2*StdinMaxQueued/len(chunk); writes++ {
		if _, err = rt.SpawnWrite(id, chunk); err != nil {
			break
		}
	}
	require.Error(t, err)
	require.ErrorIs(t, err, ErrStdinFull)
	require.Equal(t, "ENOBUFS", proc.Code(err))
	require.Contains(t, err.Error(), "nothing was queued")
	q := rt.spawns().stdin(id)
	q.mu.Lock()
	queued := q.queued
	q.mu.Unlock()
	require.LessOrEqual(t, queued, StdinMaxQueued)
	require.Equal(t, StdinMaxQueued/len(chunk), writes, "every write that fit was queued")

	rt.Cancel(id)
	drainSpawn(t, rt, id)

	// One larger than the whole bound is refused at once, queue or not.
	other := rt.DispatchSpawn(proc.Spec{Argv: []string{"sleep", "60"}, StdinPipe: true}, DispatchOptions{})
	spawnPgid(t, rt, other, 1)
	_, err = rt.SpawnWrite(other, make([]byte, StdinMaxQueued+1))
	require.True(t, errors.Is(err, ErrStdinFull), "%v", err)
	rt.Cancel(other)
	drainSpawn(t, rt, other)
}
