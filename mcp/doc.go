// Package mcp is a Model Context Protocol client for an editor's runtime,
// built on the official go-sdk (github.com/modelcontextprotocol/go-sdk): a
// server's tools, resources and prompts are called as external jobs of the
// package's own kind, RequestKind, so scripts await, cancel and supersede
// them like any other job, and no call can freeze the main loop.
//
// # Topology
//
//	main goroutine                         other goroutines
//	┌─────────────────────────────┐
//	│ Conn.Call ─► RegisterExternal├─go─► call goroutine: SDK CallTool(ctx)
//	│                              │        ctx ends on job cancel/supersede,
//	│                              │        Timeout, Close, server death
//	│ Runtime.Tick                 │
//	│  └ Host.Poll ◄── settlement queue ◄── result shaped to plain values,
//	│     CompleteExternal*        │        HostConfig.Shape, copied for the
//	│                              │        runtime (OwnExternal) here
//	│    then settles the job      │      SDK jsonrpc2 reader/writer
//	└─────────────────────────────┘        │ IOTransport
//	                                       ▼
//	                 proc.Process (own group) stdin ◄─ writes
//	                                          stdout ─► io.Pipe ─► SDK reader
//	                                          stderr ─► last 8 KiB, for messages
//
// A stdio server runs as a proc process, in a process group of its own;
// the SDK speaks to it through an IOTransport over that process's pipes, so
// closing and cancelling are this package's business, not the SDK's: the
// SDK's own command transport is not used. A streamable HTTP server (Spec
// URL) goes through the SDK's StreamableClientTransport.
//
// # Concurrency contract
//
// The Runtime belongs to the main goroutine, and its Complete* methods with
// it, so a call's goroutine never touches it: a finished call is queued on
// the Host, which signals Host.Ready (one wake-up however many finish).
// The Host attaches to the Runtime as lsp.Client does, as a
// runtime.Poller: registered with Runtime.AddPoller, it is polled by every
// Tick before the tick drains its bus, so the calls Host.Poll hands over
// settle in that Tick, and its Ready reaches Runtime.Ready, so the main
// loop only ticks and waits on the Runtime. Poll spends at most the
// frame's budget (DefaultPollBudget, 4 ms, when the frame sets none), one
// call at least; the rest wait for the next frame in order. Handing a call
// over costs the main goroutine constant time however large its result:
// the call's goroutine has already shaped it (HostConfig.Shape: the Lua
// binding builds its tables there) and copied the job's value through the
// runtime's wire form (runtime.Runtime.OwnExternal), so nothing the main
// goroutine reads is shared with the call's goroutine. The methods
// that start requests (Conn.Call, Tools, Resources, ReadResource, Prompts)
// register jobs and so belong to the main goroutine too. Host.Connect, Conn.Close, Host.Close, Conn.Progress, Done, Err and
// Stderr are safe from any goroutine; Connect and Close block (for at most
// Spec.ConnectTimeout and CloseTimeout), so an editor calls them off its
// main loop.
//
// # Cancellation
//
// Each call's context ends when its job is cancelled or superseded (the
// job's context), when its Timeout passes, when the connection closes, or
// when the server process exits. The SDK then retires the request at once
// and sends notifications/cancelled to the server; the job settles
// Cancelled for a cancel or supersede, and Failed with CodeTimeout,
// CodeClosed or CodeServerExited otherwise. A request cancelled before it
// was written is never sent, so the server has nothing to cancel.
//
// # Liveness
//
// Close never waits on the server: pending calls are failed, the server's
// stdin is closed, the session is closed aside, and a server still running
// a second later has its whole tree killed (SIGKILL to its process group
// and to every descendant proc finds, a setsid grandchild holding its
// stdout included; see proc). Every wait of Close shares one deadline:
// Close returns within CloseTimeout (3 s) in every case, with an error
// wrapping ErrCloseTimeout that names what had not ended (the server's
// tree, the SDK's session, the connection's goroutines) if something had
// not. For an HTTP server the session's DELETE is given the same second,
// then every request of the connection is aborted. Cancellations of calls pending at Close are best-effort: the SDK
// sends them asynchronously and stops sending once the session closes. When the server process exits on its
// own, every pending call fails at once with a *ServerExitedError that
// gives the exit status and the tail of its stderr. Connect fails with a
// *ConnectError, and leaves nothing running, when the program cannot start,
// exits, writes something that is not JSON-RPC, or does not answer
// initialize within Spec.ConnectTimeout.
//
// # Bounds
//
// A server cannot make the client hold a message without limit. A stdio
// server's output is counted as proc hands it over, before the SDK
// buffers it: a line (one JSON-RPC message) longer than Spec.MaxMessage
// (64 MiB; clamped to [64 KiB, 1 GiB]) ends the connection. An HTTP
// server's response body (a JSON response) or server-sent event is bounded
// the same way by the connection's transport. Either way every pending
// call fails at once with an error wrapping ErrMessageTooLarge that names
// the limit (code CodeMessageTooLarge), later calls fail with it, Err
// returns it, and the server's process group is stopped or the HTTP
// requests aborted; Close is still called as usual. The SDK's own bounds
// (16 MiB by default) are set above Spec.MaxMessage, so this package's,
// which says why, is met first.
//
// # Progress
//
// Every tool call carries a progress token; the server's
// notifications/progress for it are kept, latest only, while the call is
// pending, and read with Conn.Progress. Host.Poll also hands the latest of
// each call to Runtime.SetExternalProgress (as Progress.String), so the
// *workers* view shows it on the call's active row.
package mcp
