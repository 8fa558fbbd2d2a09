package workers

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Acceptance: a job's own value and error come back as is, even together.
func TestJobOwnValueAndErrorComeBackAsIs(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	jobErr := errors.New("job says no")
	r := recv(t, submit(e, "a", LaneRead, "fails", func(context.Context, Actor) (any, error) { return "partial", jobErr }))
	require.Equal(t, "partial", r.Value)
	require.Same(t, jobErr, r.Err, "a job's own error is returned as is")
}

// Acceptance: Done runs exactly once per job, and may submit more work
// without deadlocking; a nil Done discards the Result.
func TestDoneRunsOnceAndMaySubmit(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	var calls atomic.Int32
	second := make(chan Result, 1)
	ctx := context.Background()
	e.Submit(ctx, Task{Actor: "a", Lane: LaneMutating, Name: "first", Run: value(1), Done: func(r Result) {
		calls.Add(1)
		e.Submit(ctx, Task{Actor: "a", Name: "second", Run: value(r.Value.(int) + 1), Done: func(r Result) { second <- r }})
	}})
	select {
	case r := <-second:
		require.Equal(t, 2, r.Value)
	case <-time.After(5 * time.Second):
		t.Fatal("chained job never settled")
	}
	require.Equal(t, int32(1), calls.Load())

	ran := make(chan struct{})
	e.Submit(ctx, Task{Actor: "a", Name: "discarded", Run: func(context.Context, Actor) (any, error) {
		close(ran)
		return nil, nil
	}})
	<-ran
	e.Submit(ctx, Task{Actor: "nope", Name: "refused"}) // refused with nobody to tell: no panic
}

// Acceptance: singleflight: identical concurrent read requests of one actor
// share one execution and its result; other keys and other actors do not;
// after it settles the key runs afresh.
func TestKeySharesOneExecution(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "a", "b")
	var runs atomic.Int32
	started := make(chan struct{}, 1)
	hold, release := holdJobs(t)
	job := func(context.Context, Actor) (any, error) {
		n := runs.Add(1)
		if n == 1 {
			started <- struct{}{}
			<-hold
		}
		return n, nil
	}
	shared := func(id ActorID, key string) pending {
		return submitTask(e, context.Background(), Task{Actor: id, Key: key, Name: "stat", Run: job})
	}

	leader := shared("a", "stat:/x")
	<-started
	var followers []pending
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range 5 {
		wg.Go(func() {
			p := shared("a", "stat:/x")
			mu.Lock()
			followers = append(followers, p)
			mu.Unlock()
		})
	}
	wg.Wait()
	require.Equal(t, int32(1), runs.Load(), "followers joined instead of running")
	release()

	require.Equal(t, int32(1), recv(t, leader).Value)
	for _, p := range followers {
		require.Equal(t, int32(1), recv(t, p).Value)
	}

	other := recv(t, shared("a", "stat:/y")).Value
	otherActor := recv(t, shared("b", "stat:/x")).Value
	again := recv(t, shared("a", "stat:/x")).Value
	require.ElementsMatch(t, []any{int32(2), int32(3), int32(4)}, []any{other, otherActor, again})

	r := recv(t, shared("nope", "k"))
	requireCode(t, r.Err, ErrActorNotRegistered, "stat")
	e.flightMu.Lock()
	require.Empty(t, e.flights, "settled flights free their key")
	e.flightMu.Unlock()
}

// Acceptance: a shared job runs in the read lane; asking for another lane
// is refused rather than silently ignored, and takes no key.
func TestKeyWithALaneOtherThanReadIsRefused(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	for _, lane := range []Lane{LaneSerial, LaneHeavy, LaneMutating, LaneStream, Lane(42)} {
		r := recv(t, submitTask(e, context.Background(), Task{Actor: "a", Lane: lane, Key: "k", Name: "stat", Run: value(1)}))
		xe := requireCode(t, r.Err, ErrInvalidArgument, "stat")
		require.Contains(t, xe.Message, "read lane")
	}
	e.flightMu.Lock()
	require.Empty(t, e.flights)
	e.flightMu.Unlock()
}

// Acceptance: Submit allocates nothing per job once the actor's queue has
// grown to its working size (the runtime's hot path).
func TestSubmitAllocatesNothingInSteadyState(t *testing.T) {
	rt := newExecutorRoundTrip()
	t.Cleanup(rt.e.Close)
	for range 100 {
		rt.do()
	}
	require.Zero(t, testing.AllocsPerRun(1000, rt.do))
}

// Acceptance: errors.Is matches executor errors by code only, and a nil
// *Error target matches nothing instead of panicking.
func TestErrorIsMatchesByCode(t *testing.T) {
	err := jobError(CodeShutdown, "j", "was not run")
	require.ErrorIs(t, err, ErrShutdown)
	require.NotErrorIs(t, err, ErrInternal)
	require.False(t, err.Is((*Error)(nil)))
	require.False(t, err.Is(errors.New("shutdown")))
	require.Equal(t, "workers: shutdown: job 'j' was not run", err.Error())
}
