// Package lsp is a language server client built on the runtime's external
// jobs: a request is a job of kind lsp_request that settles at a Tick like
// any other, and nothing heavy (framing, JSON decoding) ever runs on the
// editor's main goroutine.
//
// # Topology
//
//	main goroutine (Client, like runtime.Runtime: not goroutine-safe)
//	┌───────────────────────────────────────────┐
//	│ Request/Notify/Open/Change ─ encode ─► writer queue ──► writer goroutine ──► server stdin
//	│ pending table, documents, diagnostics     │            (never blocks the caller)
//	│ Poll (by Tick) ◄── inbox (decoded events) ◄┼─── reader: proc's Output goroutine
//	│   settles jobs (CompleteExternal*),        │     Content-Length framing, envelope and
//	│   stores diagnostics/progress/messages,    │     result decoded into protocol types
//	│   answers server requests                  │     (and Config.Shape), inbox bounded
//	│ Ready() ◄── a token per batch of events    │
//	└───────────────────────────────────────────┘     exit watcher: proc Done ─► evExit
//	  worker pool, actor Actor: initialize encoded and its reply decoded
//	  (heavy lane); a document's edit log folded into its text (read lane)
//
// The server runs through proc, in its own process group with a stdin pipe.
// Its stdout chunks are framed and decoded on proc's reader goroutine:
// the envelope, then the result into the Go type its method calls for
// (while the request is outstanding the reader knows its method), shaped
// by Config.Shape when the host set one. Results of requests already given
// up are dropped undecoded. The main goroutine receives ready-made values.
//
// # Concurrency contract
//
// A Client belongs to the goroutine that owns its runtime.Runtime. None of
// its methods may be called from another goroutine, except that Ready's and
// Done's channels may be selected on anywhere. Close, and CloseAll for any
// number of clients, blocks the calling goroutine for at most CloseTimeout.
// The client attaches to the runtime as mcp.Host does, as a runtime.Poller: registered with Runtime.AddPoller, it
// is polled by every Tick before the tick drains its bus, so requests Poll
// settles land in that Tick, and its Ready reaches Runtime.Ready, so the
// editor loop waits on "terminal event OR runtime Ready OR frame deadline"
// and ticks. Poll spends at most Config.PollBudget (4 ms) on events, less
// when the frame has less left, and signals Ready again when some are
// left. Timeouts, cancels (the job's context, i.e. Runtime.Cancel and
// supersede by key) and the server's exit arrive as events too, so they
// need no polling of their own.
//
// Shared state is only the transport: inbox, outstanding-request table and
// writer queue under one mutex, counters atomic. The inbox holds at most
// 4,096 decoded messages and Config.InboxBytes (64 MiB) of their frames:
// past either the reader stops reading, so a server that floods a host
// that does not poll blocks on its own pipe and memory stays bounded (see
// Bounds).
//
// # Bounds
//
// Every buffer a server can fill has a byte bound, so a hostile or broken
// server costs the editor bounded memory, never a crash:
//
//   - A message is read whole only up to Config.MaxFrame (64 MiB; clamped
//     to [64 KiB, 1 GiB]). A larger one is never buffered: its bytes are
//     skipped as they stream by, while a scan of its top level keeps its
//     "id" and notes a "method" (wherever they are: gopls writes the id
//     after the result). A reply fails its request with ErrFrameTooLarge,
//     naming its size and the limit; a request of the server's is answered
//     with RequestFailed; a notification is dropped. Stats.Oversized
//     counts them. When the message has no id the scan can find (it is
//     not one JSON object) the client cannot tell what it answered, so it
//     kills the server: its exit fails every pending request with that
//     reason and the client restarts it as after a crash, reopening the
//     documents. A Content-Length of BrokenFrame (2 GiB) or more is taken
//     for a broken stream and restarts the server the same way, at once; a
//     negative or non-numeric one is a malformed header, skipped.
//   - The inbox (read, not yet polled) holds at most 4,096 messages and
//     Config.InboxBytes of their frames; a single message larger than that
//     still passes alone, so nothing waits forever.
//   - The outbox (written by the main goroutine, not yet read by the
//     server) is bounded by Config.OutboxBytes (64 MiB). The main goroutine
//     never blocks on a server, so a server that leaves that much unread
//     is taken for hung: the message that would pass the bound is not
//     queued, the server is killed, and as after a crash the requests
//     pending on it fail (with ErrNotReading and ErrServerExited), and it
//     is restarted with its documents reopened. A frame alone in the
//     outbox passes whatever its size (the didOpen of a large file). Held
//     messages count too while the server has not answered initialize.
//   - A publication keeps its first MaxDiagnostics (10,000) diagnostics,
//     in the server's order; the rest are skipped unread as it is decoded,
//     so neither the decoded values nor what Config.ShapeDiagnostics makes
//     of them grow past that, and DroppedDiagnostics counts them.
//   - Diagnostics are kept per document, latest only: for every open
//     document until CloseDocument (TakeChangedDiagnostics lists it as
//     changed, with none), and for the 1,000 documents not open most recently
//     published, within 32 MiB of their frames; older ones are forgotten
//     without notice. A server's exit (crash, restart or stop) clears all
//     it published, each document listed as changed. The changed
//     documents wait for TakeChangedDiagnostics: the 4,096 most recent.
//   - Show/log messages kept for TakeMessages: the newest 1,000, within 4
//     MiB of text, each text (and each progress title and message) cut to
//     64 KiB on the reader. Progress in flight: 256 tokens.
//
// Config.Shape and Config.ShapeDiagnostics run on the reader goroutine,
// where a panic would end the program: it is recovered. A panic in Shape
// fails that request with an error wrapping ErrHookPanicked that gives the
// panic's value; one in ShapeDiagnostics drops that publication, counts it
// (Stats.HookPanics) and is told once in TakeMessages. A panic decoding a
// frame counts it as malformed.
//
// # Results
//
// A request's job settles Complete with a small summary value {method, len}
// (len is the item count of an array result, else -1); the decoded value
// itself stays in the Client and is taken once with TakeResult (the newest
// 256 untaken results are kept). Sending 6,000 completion items through the
// runtime's MessagePack bus would encode and decode them on the main
// goroutine, which is exactly the cost this package keeps off it. Results of
// initialize, completion, references, definition, hover, documentSymbol
// and rename decode into go.lsp.dev/protocol types; semanticTokens/full and
// /range into *SemanticTokens rows {line, col, len, type, mods}; any other
// method's result is its raw JSON (jsontext.Value). A host that consumes
// results in another form sets Config.Shape (and Config.ShapeDiagnostics
// for publications): it runs on the reader after decoding, so that form too
// is made off the main goroutine; the Lua binding builds Lua tables there.
// Result.Received is when the reader had the reply's last byte.
//
// A failed request settles Failed with a message naming the LSP code
// ("lsp textDocument/hover: ContentModified (-32801): ..."), and TakeResult
// gives the *ResponseError. A timeout fails with ErrTimeout, a cancel or
// supersede settles Cancelled; both send $/cancelRequest when the server had
// the request. A server that dies fails every pending request at once with
// an error wrapping ErrServerExited that names the exit code or signal.
//
// # Environment
//
// The server inherits the editor's environment; Config.Env adds to it, an
// entry overriding an inherited variable of the same name, as mcp.Spec.Env
// does.
//
// # Lifecycle and documents
//
// Start returns at once; initialize is sent first and everything else made
// before its answer is held and sent in order after initialized. The
// initialize exchange runs on the runtime's heavy lane, for the actor Actor:
// one job encodes the request, and the reader hands the reply to another
// that decodes the capabilities, so a server's start competes with parses
// and indexes for the heavy permits, not with the main goroutine. Stop fails
// what is pending with ErrStopped and sends shutdown (the reader sends exit
// on its reply, without waiting for the main goroutine); a server still
// there Config.StopGrace (1 s) later gets SIGTERM, and SIGKILL a second
// after that, each sent to its whole tree (its process group and every
// descendant proc finds: a setsid grandchild too, see proc). The server's
// exit is noticed once proc has ended that tree and reaped the server.
// StopJob is Stop with a job that completes then (client:stop() in Lua
// returns its handle), or fails with ErrStopTimeout past StopGrace plus
// 2 s; Close is Stop, then a wait that polls and escalates on its own
// clock (SIGTERM after at most 1 s, SIGKILL a second later) and returns
// within CloseTimeout (3 s) whatever the server does, with an error
// wrapping ErrStopTimeout if the server had not been reaped by then.
// CloseAll closes several clients that way side by side, on one clock:
// within CloseTimeout however many there are. A server that dies on its
// own is started again after Config.RestartBackoff (1 s, doubling), at most
// Config.MaxRestarts (5) times over the client's life, each time only if
// Config.BeforeLaunch, asked first, allows it (a refusal ends the client
// with ErrLaunchRefused, no further restart): requests pending at
// the death fail, requests made meanwhile wait for the new server, and the
// open documents are reopened first with the text the client last synced:
// the text Open sent with every edit Change recorded since, unsaved edits
// included (or the text Config.DocumentText gives, when set); never the
// file on disk. The client keeps that text as the opened text plus a log of
// edits, so a keystroke costs an append; the log is folded into the text
// on a worker every 1,024 edits, and applied to it on the writer goroutine
// when a restart needs it. Open, Change (incremental edits in
// UTF-16 positions), Save and CloseDocument keep the server's copy of a
// document; the edits recorded between two Polls go out as one didChange,
// and always before any later request or notification. A document is
// named by fileuri.FromPath of its path (percent-encoded as VS Code does),
// and UTF-16 columns convert through textpos, the one implementation of
// each that the Lua binding shares.
//
// Server-to-client requests are answered on the main goroutine in Poll:
// workspace/configuration from Config.Settings, client/registerCapability,
// client/unregisterCapability and window/workDoneProgress/create with null,
// anything unknown with MethodNotFound. workspace/applyEdit goes to
// Config.ApplyEdit, which answers then or in a later frame.
// publishDiagnostics is kept latest-per-document, keyed by
// fileuri.Canonical of its URI so that any spelling of a document's URI
// reaches it, and listed once as changed until TakeChangedDiagnostics
// takes the list; show/log messages are kept for the host.
// $/progress is kept for the host (Progress) and shown in the runtime's
// *workers* view (runtime.Runtime.Snapshot): a report on the workDoneToken
// of a pending request sets that request's progress line, cleared at end;
// progress the server starts itself gets an lsp_request job of its own
// from begin to end, so indexing shows as running work. Cancelling that job
// sends window/workDoneProgress/cancel; the server's death fails it.
//
// # Why go.lsp.dev/protocol
//
// The types are go.lsp.dev/protocol v1.0.1 (LSP 3.18, generated from the
// meta-model). Its generated byte walkers decode a 6,000-item, 4.8 MB
// completion reply 3 to 4 times faster than encoding/json into minimal
// hand-written types and with 12 allocations instead of 48,000
// (BenchmarkDecodeCompletion6000: 57 to 130 ms against 211 to 228 ms, and
// 370 to 450 ms into any, on the shared 2-core CI machine), and it covers
// the unions (CompletionResult, DefinitionResult, Diagnostic messages)
// that minimal types get wrong. Its RPC layer (jsonrpc2) is not used: it
// runs handlers on its own goroutines, which the runtime's single-goroutine
// design forbids. It adds four modules to go.sum (protocol, jsonrpc2, uri,
// go-json-experiment/json), the last of which also decodes the envelope.
package lsp
