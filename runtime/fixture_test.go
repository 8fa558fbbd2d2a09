package runtime

import (
	"context"
	"sync"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/workers"
)

// keptKind is a test kind shaped like parse: its value waits in a handoff
// of the kind's own (Discard drops one nobody took, Held counts them), and
// the job completes with how long it worked.
var keptKind Kind

func init() {
	keptKind = RegisterKind(KindSpec{
		Name:    "kept",
		Value:   keptCodec{},
		Summary: func(v any) any { return "kept, worked " + v.(time.Duration).Round(time.Microsecond).String() },
		Discard: func(rt *Runtime, id JobID) { keptOf(rt).take(id) },
	})
}

// keptActor is the fixture's actor of its own, in the heavy lane as parse.
const keptActor workers.ActorID = "test:kept"

type keptStore struct {
	mu   sync.Mutex
	vals map[JobID][]byte
}

func keptOf(rt *Runtime) *keptStore {
	return StateOf(rt, keptKind, func() *keptStore { return &keptStore{vals: make(map[JobID][]byte)} })
}

func (s *keptStore) take(id JobID) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vals[id]
	delete(s.vals, id)
	return v
}

func (s *keptStore) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.vals)
}

// dispatchKept copies src on a worker, checking the context every KiB,
// and keeps the copy for takeKept.
func dispatchKept(rt *Runtime, src []byte, o DispatchOptions) JobID {
	src = append([]byte(nil), src...)
	st := keptOf(rt)
	return rt.Start(Job{Kind: keptKind, Actor: keptActor, Lane: workers.LaneHeavy,
		Run: func(ctx context.Context, w *Task) (any, error) {
			start := time.Now()
			out := make([]byte, 0, len(src))
			for i := 0; i < len(src); i += 1024 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				out = append(out, src[i:min(i+1024, len(src))]...)
			}
			st.mu.Lock()
			st.vals[w.ID()] = out
			st.mu.Unlock()
			return max(time.Since(start), 1), nil
		}}, o)
}

// takeKept takes what a kept job kept; nil if nothing waits.
func takeKept(rt *Runtime, id JobID) []byte { return keptOf(rt).take(id) }

type keptCodec struct{}

func (keptCodec) EncodeValue(e *msgpack.Encoder, v any) error {
	return e.EncodeInt(int64(v.(time.Duration)))
}

func (keptCodec) DecodeValue(d *msgpack.Decoder) (any, error) {
	n, err := d.DecodeInt64()
	return time.Duration(n), err
}
