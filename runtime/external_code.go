package runtime

// CompleteExternalError settles an external job as failed with message and a
// machine-readable code (an MCP or LSP error name such as "tool_error" or
// "RequestCancelled"), which Outcome.Err.Code then carries to Lua. Like
// the other Complete* methods it belongs to the main goroutine and never
// blocks.
func (rt *Runtime) CompleteExternalError(id JobID, message, code string) {
	_ = rt.main.Send(replyTopic, &reply{Job: id, Kind: replyFailed, Msg: message, Code: code})
}
