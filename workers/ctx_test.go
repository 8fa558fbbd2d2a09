package workers

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var errQuit = errors.New("user quit")

// Acceptance: a job whose context has ended when a worker would start it is
// not run, in every lane; it settles with an *Error that matches
// ErrCanceled, the context's error and its cause, and its slots come back.
func TestJobWhoseContextEndedIsNotRun(t *testing.T) {
	past, cancelPast := context.WithDeadline(context.Background(), time.Unix(0, 0))
	t.Cleanup(cancelPast)
	plain, cancelPlain := context.WithCancel(context.Background())
	cancelPlain()
	withCause, cancelWithCause := context.WithCancelCause(context.Background())
	cancelWithCause(errQuit)
	superseded := fmt.Errorf("superseded: %w", context.Canceled)
	wrapping, cancelWrapping := context.WithCancelCause(context.Background())
	cancelWrapping(superseded)

	for _, c := range []struct {
		name  string
		ctx   context.Context
		is    error // the context's error
		under func(t *testing.T, err error)
	}{
		{"plain cancel", plain, context.Canceled, func(t *testing.T, err error) {
			require.Same(t, context.Canceled, err)
		}},
		{"deadline", past, context.DeadlineExceeded, func(t *testing.T, err error) {
			require.NotErrorIs(t, err, context.Canceled)
		}},
		{"cause", withCause, context.Canceled, func(t *testing.T, err error) {
			require.ErrorIs(t, err, errQuit)
			require.Equal(t, "context canceled: user quit", err.Error())
		}},
		{"cause wrapping Canceled", wrapping, context.Canceled, func(t *testing.T, err error) {
			require.Same(t, superseded, err, "a cause that already wraps the context's error is kept as is")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newExecutor(t, Config{PoolSize: 2}, "a")
			var ran atomic.Int32
			for _, lane := range []Lane{LaneRead, LaneSerial, LaneHeavy, LaneMutating, LaneStream} {
				r := recv(t, submitTask(e, c.ctx, Task{Actor: "a", Lane: lane, Name: "grep#3",
					Run: func(context.Context, Actor) (any, error) {
						ran.Add(1)
						return "ran", nil
					}}))
				require.Nil(t, r.Value)
				xe := requireCode(t, r.Err, ErrCanceled, "grep#3")
				require.ErrorIs(t, r.Err, c.is)
				c.under(t, xe.Err)
				require.Equal(t, "workers: canceled: job 'grep#3' was not run: "+xe.Err.Error(), r.Err.Error())
			}
			require.Zero(t, ran.Load())
			require.False(t, e.ActorIsFatal("a"))
			requireSettledBooks(t, e, "a")
			require.Equal(t, "ok", recv(t, submit(e, "a", LaneMutating, "after", value("ok"))).Value)
		})
	}
}

// Acceptance: the context is checked when a worker reaches the job, not
// only at submit: a job cancelled while queued behind its actor's barrier is
// not run, and the job queued after it still runs in order.
func TestJobCancelledWhileQueuedIsNotRun(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "a")
	started := make(chan struct{}, 1)
	hold, release := holdJobs(t)
	shared := "before" // guarded by the actor's gate
	running := submit(e, "a", LaneMutating, "hold", blocker(started, hold, nil))
	<-started

	ctx, cancel := context.WithCancelCause(context.Background())
	write := submitTask(e, ctx, Task{Actor: "a", Lane: LaneMutating, Name: "write",
		Run: func(context.Context, Actor) (any, error) {
			shared = "written"
			return nil, nil
		}})
	read := submit(e, "a", LaneRead, "read", func(context.Context, Actor) (any, error) { return shared, nil })
	cancel(errQuit)
	_, settled := settledWithin(write, 0)
	require.False(t, settled, "a queued job settles when a worker reaches it, not when its context ends")

	release()
	require.NoError(t, recv(t, running).Err)
	r := recv(t, write)
	requireCode(t, r.Err, ErrCanceled, "write")
	require.ErrorIs(t, r.Err, errQuit)
	require.Equal(t, "before", recv(t, read).Value)
	requireSettledBooks(t, e, "a")
}

type ctxKey struct{}

// Acceptance: a running job gets the context it was submitted with and sees
// it end; what it returns then is its own Result, not an executor error.
func TestRunningJobSeesItsContextEnd(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	ctx, cancel := context.WithCancelCause(context.WithValue(context.Background(), ctxKey{}, "v"))
	t.Cleanup(func() { cancel(nil) })
	started := make(chan any, 1)
	p := submitTask(e, ctx, Task{Actor: "a", Lane: LaneStream, Name: "grep",
		Run: func(ctx context.Context, _ Actor) (any, error) {
			started <- ctx.Value(ctxKey{})
			<-ctx.Done()
			return "partial", context.Cause(ctx)
		}})
	require.Equal(t, "v", <-started)
	_, settled := settledWithin(p, 0)
	require.False(t, settled)
	cancel(errQuit)
	r := recv(t, p)
	require.Equal(t, "partial", r.Value)
	require.Same(t, errQuit, r.Err)
	var xe *Error
	require.False(t, errors.As(r.Err, &xe), "the job's own error is not wrapped")
}

// Acceptance: a nil context is a clear refusal, settled before Submit
// returns, never a panic on the worker that would have checked it.
func TestNilContextIsRefused(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	var nilCtx context.Context
	var r Result
	called := false
	e.Submit(nilCtx, Task{Actor: "a", Name: "stat", Run: value(1), Done: func(res Result) { r, called = res, true }})
	require.True(t, called, "refusal settles before Submit returns")
	xe := requireCode(t, r.Err, ErrInvalidArgument, "stat")
	require.Contains(t, xe.Message, "context is nil")
	require.Nil(t, xe.Err)

	r = recv(t, submitTask(e, nilCtx, Task{Actor: "a", Key: "k", Name: "shared", Run: value(1)}))
	requireCode(t, r.Err, ErrInvalidArgument, "shared")
	e.flightMu.Lock()
	require.Empty(t, e.flights, "a refused shared job frees its key")
	e.flightMu.Unlock()
}

// Acceptance: a shared job runs under the context of the submit that
// started it: joiners share its Result, a cancellation included, whatever
// their own contexts; and a joiner's ended context does not stop it.
func TestSharedJobRunsUnderTheContextOfTheSubmitThatStartedIt(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "a")
	started := make(chan struct{}, 1)
	hold, release := holdJobs(t)
	running := submit(e, "a", LaneMutating, "hold", blocker(started, hold, nil))
	<-started

	var runs atomic.Int32
	job := func(context.Context, Actor) (any, error) { return runs.Add(1), nil }
	leaderCtx, cancel := context.WithCancelCause(context.Background())
	leader := submitTask(e, leaderCtx, Task{Actor: "a", Key: "k", Name: "stat", Run: job})
	joiner := submitTask(e, context.Background(), Task{Actor: "a", Key: "k", Name: "stat", Run: job})
	cancel(errQuit)
	release()
	require.NoError(t, recv(t, running).Err)
	for _, p := range []pending{leader, joiner} {
		r := recv(t, p)
		requireCode(t, r.Err, ErrCanceled, "stat")
		require.ErrorIs(t, r.Err, errQuit)
	}
	require.Zero(t, runs.Load())

	ended, end := context.WithCancel(context.Background())
	end()
	started = make(chan struct{}, 1)
	hold, release = holdJobs(t)
	leader = submitTask(e, context.Background(), Task{Actor: "a", Key: "k", Name: "stat",
		Run: func(context.Context, Actor) (any, error) {
			started <- struct{}{}
			<-hold
			return runs.Add(1), nil
		}})
	<-started
	joiner = submitTask(e, ended, Task{Actor: "a", Key: "k", Name: "stat", Run: job})
	release()
	require.Equal(t, int32(1), recv(t, leader).Value)
	require.Equal(t, int32(1), recv(t, joiner).Value)
}
