package workers

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func requireCode(t *testing.T, err error, sentinel error, job string) *Error {
	t.Helper()
	require.ErrorIs(t, err, sentinel)
	var xe *Error
	require.ErrorAs(t, err, &xe)
	require.Equal(t, job, xe.Job)
	return xe
}

// Acceptance: a panicking job settles with internal_error naming the job and
// the panic; a non-mutating panic leaves the actor usable.
func TestPanicSettlesInternalErrorNamingJobAndMessage(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	for _, lane := range []Lane{LaneRead, LaneSerial, LaneHeavy} {
		r := recv(t, submit(e, "a", lane, "grep#12", func(context.Context, Actor) (any, error) { panic("boom") }))
		xe := requireCode(t, r.Err, ErrInternal, "grep#12")
		require.Equal(t, "workers: internal_error: job 'grep#12' panicked: boom", xe.Error())
		require.Nil(t, r.Value)
		require.False(t, errors.Is(r.Err, ErrActorFatal))
	}
	require.False(t, e.ActorIsFatal("a"))
	require.Equal(t, 7, recv(t, submit(e, "a", LaneMutating, "after", value(7))).Value)
}

// Acceptance: a job that calls runtime.Goexit settles with internal_error and
// the pool keeps its size.
func TestGoexitSettlesInternalErrorAndReplacesWorker(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	for range 5 {
		r := recv(t, submit(e, "a", LaneRead, "quit", func(context.Context, Actor) (any, error) {
			runtime.Goexit()
			return nil, nil
		}))
		xe := requireCode(t, r.Err, ErrInternal, "quit")
		require.Contains(t, xe.Message, "runtime.Goexit")
	}
	waitFor(t, "both workers idle", func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.sched.idle == 2
	})
	var hs []pending
	for i := range 10 {
		hs = append(hs, submit(e, "a", LaneRead, "after", value(i)))
	}
	for i, h := range hs {
		require.Equal(t, i, recv(t, h).Value)
	}
}

// Acceptance: a panicking mutating job makes its actor fatal: its queued jobs
// settle actor_fatal, later submits are refused with actor_fatal at once,
// and other actors are unaffected.
func TestPanickingMutatingJobMakesActorFatal(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "a", "b")
	started := make(chan struct{}, 1)
	hold, release := holdJobs(t)
	write := submit(e, "a", LaneMutating, "rename", func(context.Context, Actor) (any, error) {
		started <- struct{}{}
		<-hold
		panic("disk on fire")
	})
	<-started
	queued := []pending{
		submit(e, "a", LaneRead, "read-1", value(1)),
		submit(e, "a", LaneMutating, "rename-2", value(2)),
		submit(e, "a", LaneHeavy, "parse-3", value(3)),
	}
	release()

	r := recv(t, write)
	requireCode(t, r.Err, ErrInternal, "rename")
	require.Contains(t, r.Err.Error(), "disk on fire")
	require.True(t, e.ActorIsFatal("a"), "fatal before the panic's result is delivered")

	for i, h := range queued {
		r := recv(t, h)
		requireCode(t, r.Err, ErrActorFatal, []string{"read-1", "rename-2", "parse-3"}[i])
	}

	var refused Result
	called := false
	e.Submit(context.Background(), Task{Actor: "a", Name: "late", Run: value(0), Done: func(r Result) { refused, called = r, true }})
	require.True(t, called, "refusal settles before Submit returns")
	xe := requireCode(t, refused.Err, ErrActorFatal, "late")
	require.Contains(t, xe.Message, `"a"`)

	require.False(t, e.ActorIsFatal("b"))
	require.Equal(t, "ok", recv(t, submit(e, "b", LaneMutating, "b-write", value("ok"))).Value)
}

// Acceptance: a submit to an unregistered actor settles actor_not_registered
// at once, on the submitting goroutine.
func TestUnregisteredActorSettlesAtOnce(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	h := submit(e, "nope", LaneRead, "grep#1", value(1))
	select {
	case r := <-h:
		xe := requireCode(t, r.Err, ErrActorNotRegistered, "grep#1")
		require.Equal(t, `workers: actor_not_registered: job 'grep#1' was not run: actor "nope" is not registered`, xe.Error())
	default:
		t.Fatal("refusal was not settled before Submit returned")
	}
	require.False(t, e.ActorIsFatal("nope"))
}

// Acceptance: an unknown lane or a nil job is a clear error, never a panic.
func TestInvalidSubmitSettlesInvalidArgument(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	r := recv(t, submit(e, "a", Lane(42), "odd", value(1)))
	requireCode(t, r.Err, ErrInvalidArgument, "odd")
	require.Contains(t, r.Err.Error(), "Lane(42)")
	r = recv(t, submit(e, "a", LaneRead, "nil", nil))
	requireCode(t, r.Err, ErrInvalidArgument, "nil")
}

// Acceptance: RemoveActor settles the actor's queued jobs with
// actor_not_registered, lets its running job finish, refuses later submits,
// and the ID can be registered again.
func TestRemoveActorSettlesQueuedJobsAndRefusesLaterOnes(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "a", "b")
	started := make(chan struct{}, 1)
	hold, release := holdJobs(t)
	running := submit(e, "a", LaneMutating, "running", blocker(started, hold, "done"))
	<-started
	var queued []pending
	for range 3 {
		queued = append(queued, submit(e, "a", LaneRead, "queued", value(0)))
	}

	e.RemoveActor("a")
	for _, h := range queued {
		r, ok := settledWithin(h, 0)
		require.True(t, ok, "queued job settled by RemoveActor itself")
		xe := requireCode(t, r.Err, ErrActorNotRegistered, "queued")
		require.Contains(t, xe.Message, "removed")
	}
	requireCode(t, recv(t, submit(e, "a", LaneRead, "later", value(0))).Err, ErrActorNotRegistered, "later")

	release()
	require.Equal(t, "done", recv(t, running).Value)
	e.RemoveActor("a") // unknown now: nothing happens

	require.True(t, e.RegisterActor("a"))
	r := recv(t, submit(e, "a", LaneRead, "again", func(_ context.Context, a Actor) (any, error) { return a.ID, nil }))
	require.Equal(t, ActorID("a"), r.Value)
}

// Acceptance: shutdown with queued jobs: Shutdown settles them with the shutdown
// error at once, waits for running jobs, joins every goroutine, refuses later
// submits and is idempotent.
func TestCloseSettlesQueuedJobsAndJoinsEveryGoroutine(t *testing.T) {
	e := New(Config{PoolSize: 2})
	e.RegisterActor("a")
	e.RegisterActor("b")
	started := make(chan struct{}, 2)
	hold, release := holdJobs(t)
	running := []pending{
		submit(e, "a", LaneRead, "run-a", blocker(started, hold, "a")),
		submit(e, "b", LaneRead, "run-b", blocker(started, hold, "b")),
	}
	<-started
	<-started
	var queued []pending
	for range 10 {
		queued = append(queued, submit(e, "a", LaneRead, "queued", value(0)))
	}

	closed := make(chan struct{})
	go func() {
		// Unbounded, so the check below that it waits for the running jobs
		// cannot race Close's own bound.
		assert.NoError(t, e.Shutdown(context.Background()))
		close(closed)
	}()
	for _, h := range queued {
		requireCode(t, recv(t, h).Err, ErrShutdown, "queued")
	}
	select {
	case <-closed:
		t.Fatal("Close returned while jobs were still running")
	default:
	}

	release()
	require.Equal(t, "a", recv(t, running[0]).Value)
	require.Equal(t, "b", recv(t, running[1]).Value)
	<-closed

	requireCode(t, recv(t, submit(e, "a", LaneRead, "late", value(0))).Err, ErrShutdown, "late")
	e.Close()
	goleak.VerifyNone(t)
}
