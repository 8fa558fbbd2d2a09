package workers

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Acceptance: synchronous completion: Recv and RecvTimeout see the same
// Result any number of times; RecvTimeout reports a job that has not settled.
func TestHandleRecvAndRecvTimeout(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	hold, release := holdJobs(t)
	h := e.Submit("a", LaneRead, "slow", blocker(nil, hold, 42))
	r, ok := h.RecvTimeout(10 * time.Millisecond)
	require.False(t, ok)
	require.Equal(t, Result{}, r)

	release()
	require.Equal(t, Result{Value: 42}, h.Recv())
	r, ok = h.RecvTimeout(0)
	require.True(t, ok)
	require.Equal(t, 42, r.Value)
	require.Equal(t, 42, h.Recv().Value)
}

// Acceptance: Done delivers the Result once for a select; Recv still works.
func TestHandleDoneDeliversResultForSelect(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	jobErr := errors.New("job says no")
	h := e.Submit("a", LaneRead, "fails", func(Actor) (any, error) { return "partial", jobErr })
	select {
	case r := <-h.Done():
		require.Equal(t, "partial", r.Value)
		require.ErrorIs(t, r.Err, jobErr, "a job's own error is returned as is")
	case <-time.After(5 * time.Second):
		t.Fatal("Done never delivered")
	}
	require.ErrorIs(t, h.Recv().Err, jobErr)
}

// Acceptance: completion by channel.
func TestSubmitChanDeliversOnCallersChannel(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	done := make(chan Result, 2)
	e.SubmitChan("a", LaneRead, "one", value(1), done)
	e.SubmitChan("nope", LaneRead, "two", value(2), done)
	got := []Result{<-done, <-done}
	require.ElementsMatch(t, []any{1, nil}, []any{got[0].Value, got[1].Value})
	e.SubmitChan("a", LaneRead, "discarded", value(3), nil) // nil channel: result dropped, no hang
}

// Acceptance: a caller's full channel never blocks a worker: with two workers
// and three results nobody is reading yet, later jobs still run, and the
// results arrive once the caller reads.
func TestSubmitChanNeverBlocksWorkerOnFullChannel(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	unread := make([]chan Result, 3)
	for i := range unread {
		unread[i] = make(chan Result)
		e.SubmitChan("a", LaneRead, "unread", value(i), unread[i])
	}
	for i := range 10 {
		require.Equal(t, i, recv(t, e.Submit("a", LaneRead, "later", value(i))).Value)
	}
	for i, ch := range unread {
		require.Equal(t, i, (<-ch).Value)
	}
}

// Acceptance: Close does not hang on a result nobody will ever read, and
// leaves no goroutine behind (TestMain's goleak check).
func TestCloseDropsResultNobodyReads(t *testing.T) {
	e := New(Config{PoolSize: 2})
	e.RegisterActor("a", nil)
	never := make(chan Result)
	h := e.Submit("a", LaneRead, "marker", value(0))
	e.SubmitChan("a", LaneRead, "unread", value(1), never)
	recv(t, h)
	e.Close()
}

// Acceptance: callback completion runs exactly once per job, and a callback
// may submit more work without deadlocking.
func TestSubmitFuncCallsBackOnceAndMaySubmit(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	var calls atomic.Int32
	second := make(chan Result, 1)
	e.SubmitFunc("a", LaneMutating, "first", value(1), func(r Result) {
		calls.Add(1)
		e.SubmitFunc("a", LaneRead, "second", value(r.Value.(int)+1), func(r Result) { second <- r })
	})
	select {
	case r := <-second:
		require.Equal(t, 2, r.Value)
	case <-time.After(5 * time.Second):
		t.Fatal("chained job never settled")
	}
	require.Equal(t, int32(1), calls.Load())
	e.SubmitFunc("a", LaneRead, "discarded", value(3), nil) // nil callback: result dropped
}

// Acceptance: singleflight: identical concurrent read requests of one actor
// share one execution and its result; other keys and other actors do not;
// after it settles the key runs afresh.
func TestSubmitSharedSharesOneExecution(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 4}, "a", "b")
	var runs atomic.Int32
	started := make(chan struct{}, 1)
	hold, release := holdJobs(t)
	job := func(Actor) (any, error) {
		n := runs.Add(1)
		if n == 1 {
			started <- struct{}{}
			<-hold
		}
		return n, nil
	}

	leader := e.SubmitShared("a", "stat:/x", "stat", job)
	<-started
	var followers []*Handle
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := e.SubmitShared("a", "stat:/x", "stat", job)
			mu.Lock()
			followers = append(followers, h)
			mu.Unlock()
		}()
	}
	wg.Wait()
	require.Equal(t, int32(1), runs.Load(), "followers joined instead of running")
	release()

	require.Equal(t, int32(1), recv(t, leader).Value)
	for _, h := range followers {
		require.Equal(t, int32(1), recv(t, h).Value)
	}

	other := recv(t, e.SubmitShared("a", "stat:/y", "stat", job)).Value
	otherActor := recv(t, e.SubmitShared("b", "stat:/x", "stat", job)).Value
	again := recv(t, e.SubmitShared("a", "stat:/x", "stat", job)).Value
	require.ElementsMatch(t, []any{int32(2), int32(3), int32(4)}, []any{other, otherActor, again})

	r := recv(t, e.SubmitShared("nope", "k", "stat", job))
	requireCode(t, r.Err, ErrActorNotRegistered, "stat")
	e.flightMu.Lock()
	require.Empty(t, e.flights, "settled flights free their key")
	e.flightMu.Unlock()
}

// Acceptance: SubmitFunc allocates nothing per job once the actor's queue has
// grown to its working size (the runtime's hot path).
func TestSubmitFuncAllocatesNothingInSteadyState(t *testing.T) {
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
	require.Equal(t, "shutdown: job 'j' was not run", err.Error())
}
