package runtime

import (
	"context"
	"fmt"
)

// RegisterExternal publishes a job that something outside the worker pool
// will settle: an LSP or MCP reply, say. No worker is occupied while it
// waits. The returned context ends when the job is cancelled (directly or
// by supersede); the caller should watch it and give up on the request.
// kind labels the job in the *workers* view (KindLspRequest,
// KindMcpRequest).
func (rt *Runtime) RegisterExternal(kind Kind, key string) (JobID, context.Context) {
	j := rt.newJob(kind, key)
	return j.id, &j.t.ctx
}

// CompleteExternalOK settles an external job with a value. The value
// crosses the bus as MessagePack, so the outcome holds its decoded form
// (maps as map[string]any, integers as int64/uint64). It never blocks, and
// settling a job twice, or one that is not pending, is a no-op at the next
// Tick. It returns an error only if the value cannot be encoded; the job is
// then settled Failed with that error so it never hangs.
func (rt *Runtime) CompleteExternalOK(id JobID, value any) error {
	err := rt.main.Send(replyTopic, &reply{Job: id, Kind: replyValue, Value: value})
	if err != nil {
		err = fmt.Errorf("runtime: complete external job %d: %w", id, err)
		rt.CompleteExternalFailed(id, err.Error())
	}
	return err
}

// CompleteExternalFailed settles an external job as failed with message.
func (rt *Runtime) CompleteExternalFailed(id JobID, message string) {
	_ = rt.main.Send(replyTopic, &reply{Job: id, Kind: replyFailed, Msg: message})
}

// CompleteExternalCancelled settles an external job as cancelled, e.g. when
// the server died without answering.
func (rt *Runtime) CompleteExternalCancelled(id JobID) {
	_ = rt.main.Send(replyTopic, &reply{Job: id, Kind: replyCancelled})
}
