package workers

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// stuckOnFIFO makes a FIFO and returns a job that opens it for reading, which
// blocks in the kernel until a writer opens it, and the func that opens it
// for writing and closes it again, letting the job return.
func stuckOnFIFO(t *testing.T, started chan<- struct{}) (Job, func()) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	job := func(context.Context, Actor) (any, error) {
		started <- struct{}{}
		f, err := os.Open(path) // no writer: blocks in open(2)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		buf := make([]byte, 1)
		_, err = f.Read(buf)
		return "unblocked", err
	}
	unblock := func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err == nil {
			_ = w.Close()
		}
	}
	return job, unblock
}

// Acceptance (issue 11, defect 7): Close returns within 2 s although a job
// is stuck in a blocking system call (a read from a FIFO with no writer);
// the job's late Result is still delivered once the syscall returns, without
// a panic, and then every goroutine ends.
func TestCloseReturnsWhileAJobIsStuckInASyscall(t *testing.T) {
	e := New(Config{PoolSize: 2})
	e.RegisterActor("a")
	started := make(chan struct{}, 1)
	job, unblock := stuckOnFIFO(t, started)
	stuck := submit(e, "a", LaneRead, "fifo", job)
	late := submit(e, "a", LaneMutating, "queued", value(0))
	<-started

	t0 := time.Now()
	e.Close()
	took := time.Since(t0)
	require.Less(t, took, 2*time.Second, "Close waited %v", took)
	require.GreaterOrEqual(t, took, DefaultCloseWait, "Close gave the running job its bounded wait")
	requireCode(t, recv(t, late).Err, ErrShutdown, "queued")
	_, settled := settledWithin(stuck, 0)
	require.False(t, settled)

	unblock()
	r := recv(t, stuck)
	require.ErrorIs(t, r.Err, io.EOF, "the writer closed without writing")
	require.Equal(t, "unblocked", r.Value)
	goleak.VerifyNone(t)
}

// Acceptance: Shutdown reports a wait cut short by its context, and a
// second Shutdown after the job returned joins everything.
func TestShutdownReportsJobsLeftRunning(t *testing.T) {
	e := New(Config{PoolSize: 2})
	e.RegisterActor("a")
	started := make(chan struct{}, 1)
	hold := make(chan struct{})
	h := submit(e, "a", LaneStream, "stuck", blocker(started, hold, "done"))
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err := e.Shutdown(ctx)
	require.True(t, errors.Is(err, context.DeadlineExceeded), "got %v", err)
	close(hold)
	require.Equal(t, "done", recv(t, h).Value)
	require.NoError(t, e.Shutdown(context.Background()))
	goleak.VerifyNone(t)
}
