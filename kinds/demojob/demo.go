// Package demojob holds the demonstration kinds the headless examples and
// the Lua API's first lessons use: sleep, compute_sum and emit_n. Each is
// the smallest job of its shape (a wait, a computation with a value, a
// stream), so a script can show the runtime's behaviour without touching
// the disk.
package demojob

import (
	"context"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/bus/wire"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// emitBatch is how many emit_n items a producer packs into one envelope:
// enough to amortise the envelope, small enough to arrive within a frame.
const emitBatch = 256

// The kinds. They run on runtime.BuiltinActor, which has an actor of its
// own because a long sleep holds its actor's read gate: on the default actor
// it would hold back every rename until it ended.
var (
	Sleep = runtime.RegisterKind(runtime.KindSpec{Name: "sleep"})
	Sum   = runtime.RegisterKind(runtime.KindSpec{Name: "compute_sum"})
	EmitN = runtime.RegisterKind(runtime.KindSpec{Name: "emit_n", Items: intsCodec{}})
)

// DispatchSleep starts a job that waits d (negative counts as zero) and
// completes with no value. Cancellation ends the wait at once. It runs in
// the read lane.
func DispatchSleep(rt *runtime.Runtime, d time.Duration, o runtime.DispatchOptions) runtime.JobID {
	return rt.Start(runtime.Job{Kind: Sleep, Actor: runtime.BuiltinActor, Lane: workers.LaneRead,
		Run: func(ctx context.Context, _ *runtime.Task) (any, error) {
			if d > 0 {
				t := time.NewTimer(d)
				defer t.Stop()
				select {
				case <-ctx.Done():
				case <-t.C:
				}
			}
			return nil, ctx.Err()
		}}, o)
}

// DispatchSum starts a job computing 1 + 2 + ... + n (wrapping at 2^64),
// checking for cancellation every 1024 additions. It completes with a
// uint64 (SumOf).
func DispatchSum(rt *runtime.Runtime, n uint64, o runtime.DispatchOptions) runtime.JobID {
	return rt.Start(runtime.Job{Kind: Sum, Actor: runtime.BuiltinActor, Lane: workers.LaneRead,
		Run: func(ctx context.Context, _ *runtime.Task) (any, error) {
			var acc uint64
			for i := uint64(1); i <= n && i != 0; i++ {
				if i&1023 == 0 && ctx.Err() != nil {
					return nil, ctx.Err()
				}
				acc += i
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return acc, nil
		}}, o)
}

// SumOf is a compute_sum job's result.
func SumOf(o runtime.Outcome) (uint64, bool) {
	v, ok := o.Value()
	n, isSum := v.(uint64)
	return n, ok && isSum
}

// DispatchEmitN starts a stream of the integers 1..count (its batches'
// Items are Ints), checking for cancellation at every item and waiting on
// the stream's credit when the consumer falls behind. It runs in the
// stream lane.
func DispatchEmitN(rt *runtime.Runtime, count uint64, o runtime.DispatchOptions) runtime.JobID {
	return rt.Start(runtime.Job{Kind: EmitN, Actor: runtime.BuiltinActor, Lane: workers.LaneStream, Stream: true,
		Run: func(ctx context.Context, w *runtime.Task) (any, error) {
			batch := make(Ints, 0, min(count, emitBatch))
			for i := uint64(1); i <= count && i != 0; i++ {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				batch = append(batch, i)
				if len(batch) == emitBatch {
					if err := w.Send(ctx, batch); err != nil {
						return nil, err
					}
					batch = make(Ints, 0, min(count-i, emitBatch))
				}
			}
			if len(batch) > 0 {
				if err := w.Send(ctx, batch); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}}, o)
}

// Ints is an emit_n batch.
type Ints []uint64

// IntsOf returns a batch's integers; nil for a batch of another kind.
func IntsOf(b runtime.StreamBatch) Ints {
	v, _ := b.Items.(Ints)
	return v
}

func (s Ints) Len() int    { return len(s) }
func (s Ints) Weight() int { return len(s) }

func (s Ints) Append(more runtime.Items) runtime.Items { return append(s, more.(Ints)...) }

func (s Ints) Cut(n int) (head, rest runtime.Items) { return s[:n:n], s[n:] }

type intsCodec struct{}

func (intsCodec) EncodeItems(e *msgpack.Encoder, items runtime.Items) error {
	return wire.EncodeUints(e, items.(Ints))
}

func (intsCodec) DecodeItems(_ []byte, d *msgpack.Decoder) (runtime.Items, error) {
	v, err := wire.DecodeUints(d, 4096)
	if err != nil {
		return nil, err
	}
	return Ints(v), nil
}
