package runtime

import (
	"context"
	"time"

	"github.com/pmacs-go/pmacs-go/workers"
)

// emitBatch is how many emit_n items a producer packs into one envelope:
// enough to amortise the envelope, small enough to arrive within a frame.
const emitBatch = 256

// DispatchSleep starts a job that waits d (negative counts as zero) and
// completes with no value. Cancellation ends the wait at once. It runs in
// the read lane of BuiltinActor, like compute_sum (emit_n streams there).
func (rt *Runtime) DispatchSleep(d time.Duration, o DispatchOptions) JobID {
	j := rt.newJob(KindSleep, o.Key)
	return rt.start(j, BuiltinActor, workers.LaneRead, func(ctx context.Context, _ *Task) reply {
		return runSleep(ctx, d)
	})
}

func runSleep(ctx context.Context, d time.Duration) reply {
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return reply{Kind: replyCancelled}
		case <-t.C:
		}
	}
	if ctx.Err() != nil {
		return reply{Kind: replyCancelled}
	}
	return reply{Kind: replyUnit}
}

// DispatchSum starts a job computing 1 + 2 + ... + n (wrapping at 2^64),
// checking for cancellation every 1024 additions. It completes with a
// uint64.
func (rt *Runtime) DispatchSum(n uint64, o DispatchOptions) JobID {
	j := rt.newJob(KindComputeSum, o.Key)
	return rt.start(j, BuiltinActor, workers.LaneRead, func(ctx context.Context, _ *Task) reply {
		return runSum(ctx, n)
	})
}

func runSum(ctx context.Context, n uint64) reply {
	var acc uint64
	for i := uint64(1); i <= n && i != 0; i++ {
		if i&1023 == 0 && ctx.Err() != nil {
			return reply{Kind: replyCancelled}
		}
		acc += i
	}
	if ctx.Err() != nil {
		return reply{Kind: replyCancelled}
	}
	return reply{Kind: replySum, N: acc}
}

// DispatchEmitN starts a stream of the integers 1..count, checking for
// cancellation at every item and waiting on the stream's credit when the
// consumer falls behind. It runs in the stream lane of BuiltinActor.
func (rt *Runtime) DispatchEmitN(count uint64, o DispatchOptions) JobID {
	j := rt.newJob(KindEmitN, o.Key)
	rt.newStream(j, o.MaxBatch)
	return rt.start(j, BuiltinActor, workers.LaneStream, func(ctx context.Context, w *Task) reply {
		return runEmitN(ctx, w, count)
	})
}

func runEmitN(ctx context.Context, w *Task, count uint64) reply {
	batch := make([]uint64, 0, min(count, emitBatch))
	for i := uint64(1); i <= count && i != 0; i++ {
		if ctx.Err() != nil {
			return reply{Kind: replyCancelled}
		}
		batch = append(batch, i)
		if len(batch) == emitBatch {
			if err := w.sendItems(ctx, &reply{Kind: replyInts, Ints: batch}); err != nil {
				return reply{Kind: replyCancelled}
			}
			batch = make([]uint64, 0, min(count-i, emitBatch))
		}
	}
	if len(batch) > 0 {
		if err := w.sendItems(ctx, &reply{Kind: replyInts, Ints: batch}); err != nil {
			return reply{Kind: replyCancelled}
		}
	}
	return reply{Kind: replyClosed}
}
