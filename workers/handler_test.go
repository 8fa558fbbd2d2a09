package workers

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// countingHandler is a job given as a Handler; it counts its calls.
type countingHandler struct {
	run  func(context.Context, Actor) (any, error)
	runs atomic.Int32
	res  chan Result
}

func newCountingHandler(run func(context.Context, Actor) (any, error)) *countingHandler {
	return &countingHandler{run: run, res: make(chan Result, 4)}
}

func (h *countingHandler) RunJob(ctx context.Context, a Actor) (any, error) {
	h.runs.Add(1)
	return h.run(ctx, a)
}

func (h *countingHandler) JobDone(r Result) { h.res <- r }

func (h *countingHandler) result(t *testing.T) Result {
	t.Helper()
	r := recv(t, pending(h.res))
	require.Empty(t, h.res, "JobDone ran once")
	return r
}

// A job given as a Handler runs and settles exactly as one given as Run and
// Done: its value, a panic (internal_error, a mutating one making the actor
// fatal), a Goexit, a cancelled context, a refused submit, a shared job.
func TestHandlerJobsSettleLikeFunctionJobs(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a", "b")
	submitH := func(actor ActorID, lane Lane, key string, h *countingHandler) {
		e.Submit(context.Background(), Task{Actor: actor, Lane: lane, Name: "h", Key: key, Handler: h,
			Run:  func(context.Context, Actor) (any, error) { t.Error("Run ran beside the Handler"); return nil, nil },
			Done: func(Result) { t.Error("Done ran beside the Handler") }})
	}

	for _, lane := range []Lane{LaneRead, LaneSerial, LaneMutating, LaneStream, LaneHeavy} {
		h := newCountingHandler(value(lane))
		submitH("a", lane, "", h)
		r := h.result(t)
		require.NoError(t, r.Err)
		require.Equal(t, lane, r.Value)
		require.Equal(t, int32(1), h.runs.Load())
	}

	h := newCountingHandler(func(context.Context, Actor) (any, error) { panic("boom") })
	submitH("a", LaneRead, "", h)
	requireCode(t, h.result(t).Err, ErrInternal, "h")

	h = newCountingHandler(func(context.Context, Actor) (any, error) { runtime.Goexit(); return nil, nil })
	submitH("a", LaneRead, "", h)
	requireCode(t, h.result(t).Err, ErrInternal, "h")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h = newCountingHandler(value(1))
	e.Submit(ctx, Task{Actor: "a", Name: "h", Handler: h})
	require.ErrorIs(t, h.result(t).Err, context.Canceled)
	require.Equal(t, int32(0), h.runs.Load(), "a cancelled job does not run")

	h = newCountingHandler(value(1))
	submitH("nobody", LaneRead, "", h)
	requireCode(t, h.result(t).Err, ErrActorNotRegistered, "h")

	h = newCountingHandler(value("shared"))
	submitH("a", LaneRead, "k", h)
	require.Equal(t, "shared", h.result(t).Value)

	h = newCountingHandler(func(context.Context, Actor) (any, error) { panic("fatal") })
	submitH("b", LaneMutating, "", h)
	requireCode(t, h.result(t).Err, ErrInternal, "h")
	require.True(t, e.ActorIsFatal("b"))
	h = newCountingHandler(value(1))
	submitH("b", LaneRead, "", h)
	requireCode(t, h.result(t).Err, ErrActorFatal, "h")
}

// SubmitHandler runs a Handler as Submit does a Task holding it: in each
// lane, with its value, and refusals (unknown actor, unknown lane, nil
// context) reach its JobDone.
func TestSubmitHandlerRunsAndRefusesLikeSubmit(t *testing.T) {
	e := newExecutor(t, Config{PoolSize: 2}, "a")
	for _, lane := range []Lane{LaneRead, LaneSerial, LaneMutating, LaneStream, LaneHeavy} {
		h := newCountingHandler(value(lane))
		e.SubmitHandler(context.Background(), "a", lane, "h", h)
		r := h.result(t)
		require.NoError(t, r.Err)
		require.Equal(t, lane, r.Value)
		require.Equal(t, int32(1), h.runs.Load())
	}
	h := newCountingHandler(value(0))
	e.SubmitHandler(context.Background(), "nobody", LaneRead, "h", h)
	requireCode(t, h.result(t).Err, ErrActorNotRegistered, "h")
	e.SubmitHandler(context.Background(), "a", Lane(99), "h", h)
	requireCode(t, h.result(t).Err, ErrInvalidArgument, "h")
	e.SubmitHandler(nil, "a", LaneRead, "h", h) //nolint:staticcheck // a nil context is what is refused
	requireCode(t, h.result(t).Err, ErrInvalidArgument, "h")
	require.Zero(t, h.runs.Load(), "nothing refused ran")
}
