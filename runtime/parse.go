package runtime

import (
	"context"
	"time"

	"github.com/pmacs-go/pmacs-go/syntax"
	"github.com/pmacs-go/pmacs-go/workers"
)

// ParseResult is the value of a completed parse job. The tree itself waits
// in the handoff: take it with TakeParseTree before TakeResult, which drops
// a tree nobody took.
type ParseResult struct {
	Duration time.Duration // parse only, without queueing
}

// DispatchParse parses req on a worker, in the heavy lane of SyntaxActor.
// Cancelling (or superseding) the job aborts a parse that is running.
//
// req.Prior stays the caller's: the worker parses against a clone, so the
// main goroutine may keep using its tree while the parse runs. req.Source is
// copied before dispatch, so the caller may reuse it at once.
func (rt *Runtime) DispatchParse(req syntax.Request, o DispatchOptions) JobID {
	j := rt.newJob(KindParse, o.Key)
	if req.Source != nil {
		req.Source = append([]byte{}, req.Source...)
	}
	if req.Prior != nil {
		req.Prior = req.Prior.Clone()
	}
	h := rt.handoff
	return rt.start(j, SyntaxActor, workers.LaneHeavy, func(ctx context.Context, w *task) reply {
		if req.Prior != nil {
			defer req.Prior.Close()
		}
		t, err := syntax.Parse(ctx, req)
		if err != nil {
			return terminal(ctx, err, "")
		}
		h.put(w.id, t)
		return reply{Kind: replyParse, N: uint64(t.Duration())}
	})
}

// TakeParseTree removes and returns the tree of a completed parse job; nil
// if the job is unknown, not complete, not a parse, or already taken. The
// tree then belongs to the calling (main) goroutine.
func (rt *Runtime) TakeParseTree(id JobID) *syntax.Tree { return rt.handoff.take(id) }
