package runtime

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pmacs-go/pmacs-go/workers"
)

// Acceptance (issue 11, defect 7): Close returns within 2 s although a
// handler is stuck in a blocking system call (open of a FIFO with no
// writer) that cancelling its context cannot interrupt. When the syscall
// returns after Close, the handler's late reply (to a closed bus) and the
// executor's late settle do not panic, and every goroutine ends.
func TestCloseReturnsWhileAHandlerIsStuckInASyscall(t *testing.T) {
	rt, err := New(Options{Executor: workers.Config{PoolSize: 2}})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	started := make(chan struct{})
	returned := make(chan struct{})
	j := rt.newJob(testKind, "")
	rt.start(j, rt.actorFor(filepath.Dir(path)), workers.LaneRead, func(ctx context.Context, w *Task) reply {
		defer close(returned)
		close(started)
		f, err := os.Open(path)
		if err != nil {
			return reply{Kind: replyFailed, Msg: err.Error()}
		}
		defer f.Close()
		w.send(&reply{Kind: replyProgress, N: 1}) // a late item-like reply too
		return reply{Kind: replySum, N: 1}
	})
	<-started

	t0 := time.Now()
	rt.Close()
	took := time.Since(t0)
	require.Less(t, took, 2*time.Second, "Close waited %v", took)

	wf, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	require.NoError(t, wf.Close())
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler never returned after its FIFO got a writer")
	}
	rt.Tick() // a Tick after Close is harmless
	goleak.VerifyNone(t)
}
