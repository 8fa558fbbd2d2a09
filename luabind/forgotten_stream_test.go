package luabind

import (
	"fmt"
	"testing"
	"time"

	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// queuedItems counts the items waiting in the binding for a stream's
// iterator.
func queuedItems(j *job) int {
	n := 0
	for i := range j.queue {
		n += j.queue[i].Len()
	}
	return n
}

// A stream a script starts and never iterates nor awaits (a handle kept in
// a global for later, or simply forgotten) holds bounded memory: once
// forgottenStreamItems are queued in the binding, the runtime holds the
// rest against the stream's credit and the producer waits, as it would for
// a consumer that is slow. Iterating it later gets every match, in order;
// a headless run whose tasks are all done does not wait for it.
func TestForgottenStreamHoldsBoundedMemory(t *testing.T) {
	const files, lines = 200, 1000 // 200,000 matches, three times the bound
	root := t.TempDir()
	writeGrepCorpus(t, root, files, lines)
	h := newHarness(t, false)
	// Dispatched outside any task (as a key binding does): a stream a task
	// starts is the task's, and ends with it.
	require.NoError(t, h.b.Protect(func() error {
		return h.b.L().DoString(fmt.Sprintf(`forgotten = pmacs.workers.grep{root = %q, pattern = "needle"}`, root))
	}))
	h.drive(t, 20*time.Second)
	require.False(t, h.b.Busy(), "no task is left to iterate it, so the run is over")

	var j *job
	for _, x := range h.b.jobs {
		j = x
	}
	require.NotNil(t, j, "the stream is still pending")
	// Give the producer every chance to run past the bound.
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-h.rt.Ready():
		case <-time.After(10 * time.Millisecond):
		}
		h.b.Frame()
	}
	require.True(t, j.held, "the runtime holds the rest")
	require.LessOrEqual(t, queuedItems(j), forgottenStreamItems+h.rt.DefaultMaxBatch(),
		"at most the bound and one batch wait in the binding")
	_, state, ok := h.rt.Lookup(j.id)
	require.True(t, ok)
	require.Equal(t, runtime.Running, state, "the producer waits for its consumer")

	later := h.run(t, `
		local n, last = 0, nil
		for batch in forgotten:batches() do n = n + #batch end
		local res, err = forgotten:await()
		assert(res, err)
		return n`)
	require.NoError(t, later.Err())
	require.Equal(t, lua.LNumber(files*lines), later.Results()[0], "every match, none lost to the hold")
}

// A task that writes to a program before it reads the program's output
// (write everything, close stdin, then iterate) must not wait on itself:
// once the output it has not started reading reaches the bound, the
// program stops reading its stdin, so a write that waited for room would
// wait for ever. A write to a program whose output waits for no task
// returns at once, and a held output is let go while a write waits on it.
func TestWriteBeforeReadingOutputDoesNotWaitOnItself(t *testing.T) {
	h := newHarness(t, false)
	task := h.run(t, `
		local w = pmacs.workers
		local h = w.spawn{cmd = {"cat"}, stdin = "pipe"}
		local chunk = string.rep("x\n", 4096)
		for i = 1, 256 do assert(h:write(chunk)) end -- 2 MiB, a million lines
		assert(h:close_stdin())
		local n = 0
		for batch in h:batches() do n = n + #batch end
		local res, err = h:await()
		assert(res, err)
		return n`)
	require.NoError(t, task.Err())
	require.Equal(t, lua.LNumber(256*4096), task.Results()[0])
}
