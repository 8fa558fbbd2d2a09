package runtime

// The runtime registers no kind of its own: these stand in for a protocol
// client's request kinds (lsp.RequestKind, mcp.RequestKind), jobs that
// something outside the worker pool settles.
var (
	kindReply = RegisterKind(KindSpec{Name: "reply"})
	kindCall  = RegisterKind(KindSpec{Name: "tool_call"})
)
