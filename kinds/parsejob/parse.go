// Package parsejob is the parse kind: it parses a file with tree-sitter
// (package syntax, the project's only cgo) on a worker, in the heavy lane of
// its own actor, and hands the tree to the main goroutine.
//
// A tree is not serialisable, so it is the one value that does not cross the
// bus: the worker parks it in this kind's handoff under the job id and the
// job completes with a Result; the main goroutine takes the tree with
// TakeTree before TakeResult, which drops a tree nobody took.
package parsejob

import (
	"context"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/syntax"
	"github.com/pmacs-go/pmacs-go/workers"
)

// Actor runs parses in the heavy lane. Its install gate is then never held
// up by unrelated reads.
const Actor workers.ActorID = "pmacs:syntax"

// Kind is the parse kind ("parse").
var Kind runtime.Kind

func init() {
	Kind = runtime.RegisterKind(runtime.KindSpec{
		Name:    "parse",
		Value:   resultCodec{},
		Summary: func(v any) any { return v },
		Discard: func(rt *runtime.Runtime, id runtime.JobID) { handoffOf(rt).drop(id) },
	})
}

// Result is the value of a completed parse job. The tree itself waits in
// the handoff: take it with TakeTree before TakeResult, which drops a tree
// nobody took.
type Result struct {
	Duration time.Duration // parse only, without queueing
}

// String is how the *workers* view shows a parse.
func (r *Result) String() string {
	return "tree, parsed in " + r.Duration.Round(time.Microsecond).String()
}

// ResultOf is a parse job's result.
func ResultOf(o runtime.Outcome) (*Result, bool) {
	v, ok := o.Value()
	r, isResult := v.(*Result)
	return r, ok && isResult
}

// Dispatch parses req on a worker, in the heavy lane of Actor. Cancelling
// (or superseding) the job aborts a parse that is running.
//
// req stays the caller's: the worker parses a copy of req.Source against a
// clone of req.Prior, so the main goroutine may reuse its buffer at once and
// keep using its tree while the parse runs.
func Dispatch(rt *runtime.Runtime, req syntax.Request, o runtime.DispatchOptions) runtime.JobID {
	if req.Source != nil {
		req.Source = append([]byte{}, req.Source...)
	}
	if req.Prior != nil {
		req.Prior = req.Prior.Clone()
	}
	h := handoffOf(rt)
	return rt.Start(runtime.Job{
		Kind: Kind, Actor: Actor, Lane: workers.LaneHeavy,
		Run: func(ctx context.Context, w *runtime.Task) (any, error) {
			if req.Prior != nil {
				defer req.Prior.Close()
			}
			t, err := syntax.Parse(ctx, req)
			if err != nil {
				return nil, err
			}
			h.put(w.ID(), t)
			return &Result{Duration: t.Duration()}, nil
		},
	}, o)
}

// TakeTree removes and returns the tree of a completed parse job; nil if the
// job is unknown, not complete, not a parse, or already taken. The tree then
// belongs to the calling (main) goroutine.
func TakeTree(rt *runtime.Runtime, id runtime.JobID) *syntax.Tree { return handoffOf(rt).take(id) }

// Trees counts the trees waiting in the handoff (also in Stats.Held).
func Trees(rt *runtime.Runtime) int { return handoffOf(rt).Held() }

// resultCodec carries a Result as its duration in nanoseconds.
type resultCodec struct{}

func (resultCodec) EncodeValue(e *msgpack.Encoder, v any) error {
	return e.EncodeInt(int64(v.(*Result).Duration))
}

func (resultCodec) DecodeValue(d *msgpack.Decoder) (any, error) {
	n, err := d.DecodeInt64()
	if err != nil {
		return nil, err
	}
	return &Result{Duration: time.Duration(n)}, nil
}
