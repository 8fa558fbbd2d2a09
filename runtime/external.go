package runtime

import (
	"context"
	"errors"
	"fmt"
)

// RegisterExternal publishes a job that something outside the worker pool
// will settle: an LSP or MCP reply, say. No worker is occupied while it
// waits. The returned context ends when the job is cancelled (directly or
// by supersede); the caller should watch it and give up on the request.
// kind labels the job in the *workers* view: the requester's own kind
// (lsp.RequestKind, mcp.RequestKind), which the runtime does not know.
func (rt *Runtime) RegisterExternal(kind Kind, key string) (JobID, context.Context) {
	j := rt.newJob(kind, key)
	return j.t.id, &j.t.ctx
}

// CompleteExternalOK settles an external job with a value at the next
// Tick. The value is copied through its MessagePack form now, on the
// calling goroutine (the main one), so the outcome holds an owned, decoded
// copy (maps as map[string]any, integers as int64/uint64) and the caller
// may reuse value at once. Whatever this accepts, the job completes with:
// the copy is made by the same decoder Tick uses for worker replies. A
// value that cannot make the trip (a channel, a map with non-string keys,
// nesting deeper than 10,000 or a cyclic value) is refused: the error says
// why and the job is settled Failed with it, so it never hangs.
//
// The copy costs time in proportion to the value (about 10 ms for 70,000
// integers). A value that arrives on another goroutine (a protocol
// client's reader) is better copied there with OwnExternal and settled
// with CompleteExternalOwned, which costs the main goroutine nothing in
// proportion to it.
//
// It never blocks. Completing a job that is not pending, or completing it a
// second time, is a no-op (the first completion wins, whichever of the
// CompleteExternal* functions made it).
func (rt *Runtime) CompleteExternalOK(id JobID, value any) error {
	j := rt.pending.get(id)
	if j == nil || j.state != Running || j.extQueued {
		return nil
	}
	v, err := rt.OwnExternal(value)
	if err != nil {
		err = fmt.Errorf("runtime: complete external job %s: %w", jobName(j.kind, id), err)
		rt.CompleteExternalFailed(id, err)
		return err
	}
	rt.CompleteExternalOwned(id, v)
	return nil
}

// ExternalValue is a value copied through the bus's wire form by
// OwnExternal: memory that only the ExternalValue references, in the form
// Outcome.External gives (maps as map[string]any, arrays as []any,
// integers as int64/uint64). Its content cannot be reached from outside,
// so handing it from the goroutine that made it to the main goroutine
// shares nothing mutable, just as a reply on the bus does. The zero
// ExternalValue holds nil.
type ExternalValue struct{ v any }

// OwnExternal copies value through the reply wire form, with the checks
// and the decoder CompleteExternalOK uses, and returns the owned copy for
// CompleteExternalOwned. A value that cannot make the trip is refused with
// the reason (the caller then fails the job with it). Safe from any
// goroutine: it reads only the runtime's registry, which New fixes, so a
// protocol client copies a large result on its own goroutine and the main
// goroutine's share is constant.
func (rt *Runtime) OwnExternal(value any) (ExternalValue, error) {
	reg := rt.main.Registry()
	env, err := reg.Encode(replyTopic, &reply{Kind: replyValue, Value: value})
	if err != nil {
		return ExternalValue{}, err
	}
	var r reply
	if err := reg.Decode(env, &r); err != nil {
		return ExternalValue{}, err
	}
	return ExternalValue{v: r.Value}, nil
}

// CompleteExternalOwned settles an external job with a value OwnExternal
// made, at the next Tick, in constant time: neither this nor the Tick
// copies or decodes it. Complete one job with each ExternalValue. Like
// CompleteExternalOK it never blocks, and completing a job that is not
// pending, or a second time, is a no-op. Main goroutine only.
func (rt *Runtime) CompleteExternalOwned(id JobID, v ExternalValue) {
	j := rt.pending.get(id)
	if j == nil || j.state != Running || j.extQueued {
		return
	}
	// The value waits in the entry and only a payload-less reply takes the
	// bus, so the completion still settles in bus-arrival order with the
	// other replies without being decoded a second time.
	j.extra().value, j.extQueued = v.v, true
	_ = rt.main.Send(replyTopic, &reply{Job: id, Kind: replyExternal})
}

// CompleteExternalFailed settles an external job as failed with err at the
// next Tick. The outcome's Err is a *JobError whose Message is err's text
// and which wraps err, so errors.Is and errors.As see it; its Code is the
// Code of the first *JobError in err's chain (how a protocol error name such
// as "RequestCancelled" or "tool_error" reaches Lua), else empty. A nil err
// fails the job with a message saying so.
func (rt *Runtime) CompleteExternalFailed(id JobID, err error) {
	j := rt.pending.get(id)
	if j == nil || j.state != Running {
		return
	}
	if err == nil {
		err = errors.New(jobName(j.kind, id) + ": failed with no error")
	}
	r := reply{Job: id, Kind: replyFailed, Msg: err.Error(), err: err}
	var je *JobError
	if errors.As(err, &je) {
		r.Code = je.Code
	}
	j.t.keepFailure(err)
	_ = rt.main.Send(replyTopic, &r)
}

// CompleteExternalCancelled settles an external job as cancelled, e.g. when
// the server died without answering.
func (rt *Runtime) CompleteExternalCancelled(id JobID) {
	_ = rt.main.Send(replyTopic, &reply{Job: id, Kind: replyCancelled})
}
