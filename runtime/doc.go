// Package runtime is the main-goroutine half of pmacs-go: it turns work that
// would freeze an editor (grepping a tree, parsing a file, touching the
// filesystem, running a program, waiting on an LSP server) into jobs that
// run on worker goroutines and settle back one frame at a time. It knows
// no kind of work (only the labels of the LSP and MCP requests their
// clients register as external jobs): each kind is a package that
// registers with it (see Kinds).
//
// # Topology
//
//	main goroutine (Runtime: not goroutine-safe)         worker goroutines
//	┌──────────────────────────────────────────┐
//	│ Start ────► pending table, supersede map ├─submit─► workers.Executor
//	│                                           │          (lanes, actors, DRR)
//	│ Tick ◄── bus.Main.Drain ◄─────────────────┼───────── bus.Workers.Send
//	│   settles jobs, buffers stream items,     │          (msgpack replies,
//	│   reports resources in arrival order      │           stream credit)
//	│ TakeStreamBatches: ≤1 batch per stream    │
//	│ completion ring, WorkersSnapshot          │
//	└──────────────────────────────────────────┘
//
// A dispatch ([Runtime.Start], which every kind's package calls) allocates
// a [JobID], inserts a pending entry with its own cancel func, and submits
// a closure to the executor on the lane and actor the job asks for. The closure always replies over the bus, with a
// Cancelled reply when it observes its context ending, so every job settles
// exactly once through [Runtime.Tick]. A reply for a job that has already
// settled or that nobody knows is ignored; an envelope that does not decode
// is counted and dropped, never a panic, and if the job id at its head can
// still be read and names a running job, that job settles Failed with
// [CodeMalformedReply] and the decoder's reason: no job waits forever for a
// reply that was dropped (nor for one that could not be encoded: the worker
// sends that failure instead). Decoding checks every length prefix against
// the bytes that must back it rather than against a fixed item count, so a
// reply of any honest size decodes and a hostile one costs memory in
// proportion to its own bytes, not to what it claims.
//
// # Kinds
//
// A kind is a package that registers with the runtime (RegisterKind), as a
// database/sql driver or an image format does: its label, the codecs that
// carry its stream items, values and progress detail across the bus, whether
// its batches are snapshots, what the completion ring keeps of its values,
// and what to drop when nobody takes a job's value (KindSpec.Discard). It
// starts its jobs with [Runtime.Start], giving the lane, the actor (or a path
// whose root owns the job), the filesystem mutation it reports, and the work.
// State a kind keeps per runtime (its handoff, its caches) lives in
// [StateOf], and takes part in Close and Tick through the interfaces StateOf
// lists. The grep, parse, filesystem, process, finder, text search and
// demonstration kinds (sleep, compute_sum, emit_n) are packages under
// kinds/.
//
// # Results, errors and contexts
//
// TakeResult (or a stream's closing batch) gives an Outcome. Its value is
// read with the accessor of the job's kind (fsjob.ListingOf for read_dir,
// parsejob.ResultOf for parse, Outcome.External for an external job, ...),
// so no caller type-asserts an interface. Outcome.Err is nil when the job
// completed. A failure is a *JobError: its Code is what Lua and the
// *workers* view show (an errno name, an executor or protocol code), and it
// wraps the handler's own error when the job ran in this process, so
//
//	errors.Is(o.Err, fs.ErrNotExist)       // a stat of a missing path
//	errors.Is(o.Err, grep.ErrBadPattern)   // a grep whose regexp does not compile
//	errors.As(o.Err, new(*os.LinkError))   // a rename refused
//
// all hold. A cancelled job's Err is the reason its context ended:
// context.Canceled (Runtime.Cancel), ErrSuperseded or ErrClosed, each of
// which matches context.Canceled.
//
// The context a handler (or an external job's requester) watches keeps the
// context.Context contract exactly: Err is nil, then context.Canceled,
// whatever the reason; context.Cause reports the reason, to the job's
// context and to every context derived from it.
//
// # Panics
//
// The executor turns a handler's panic into an internal_error failure. A
// job also runs code on goroutines the executor does not see: grep's batch
// flush timer and progress reporter, the match callback grep's fanout
// goroutines call, and the callbacks a job's context runs when it is
// cancelled (how contexts derived from it learn of the cancel). Each of
// those recovers a panic, settles its job Failed with internal_error and
// the panic value, and cancels the job so its worker stops; the loop goes
// on. A callback passed to context.AfterFunc runs on a goroutine the
// context package starts, which only a recover inside the callback can
// protect; the runtime registers none.
//
// # Concurrency contract
//
// A Runtime belongs to one goroutine, the editor's main loop, like the
// original design it re-creates: none of its methods may be called from
// another goroutine, and it takes no locks for its own tables. Only the bus,
// the per-job cancel funcs, the executor's submit and what a kind hands over
// outside the bus (parse trees) cross goroutines, and each of those is safe
// on its own. The race detector
// keeps this honest in the tests. Two things the Runtime hands out may leave
// the loop: the [workers.Executor] from Runtime.Executor, safe from any
// goroutine, and the context.Context of an external job (RegisterExternal),
// which the goroutine waiting for the outside reply watches; the reply itself
// is settled with CompleteExternal* back on the loop. One method is safe from
// any goroutine: [Runtime.OwnExternal] (see External values).
//
// The editor loop waits on "terminal event OR [Runtime.Ready] OR frame
// deadline", then calls Tick and TakeStreamBatches once: however many replies
// arrive in a frame, they cost one wake-up. A loop with a frame budget calls
// [Runtime.TickWithin] instead: the replies it has no time for stay queued in
// arrival order for the next frame, [Runtime.Pending] reports them, and Ready
// holds a token for them, so they never wait for an unrelated event.
//
// # Supersede
//
// A dispatch with a key cancels the job that key points at before the new
// id is published, so a worker still running the predecessor sees its
// context end at once. Settling prunes the key only if the key still points
// at the settled id, so a successor's slot is never clobbered.
//
// # Ordering
//
// Each registered root is one executor actor; paths under no root share
// DefaultActor. Per actor:
//
//   - mutations (rename, chmod, remove, mkdir) run one at a time in dispatch order;
//   - a request/reply read (read_dir, stat) dispatched after a mutation
//     sees it, and one dispatched before a mutation completes before the
//     mutation starts;
//   - a stream (grep, find_files) starts after every mutation dispatched before
//     it has finished, but runs in the stream lane, holding no gate: a
//     mutation dispatched after the stream started does not wait for it
//     and runs while it runs, so the stream may or may not see it;
//   - a producer waiting for stream credit is parked (workers.Actor.Park):
//     it holds no gate, no worker and no per-actor slot while it waits, so a
//     consumer that awaits a mutation of the same root inside its stream
//     loop cannot deadlock with it.
//
// # Streams and memory
//
// A stream's items are buffered per job and delivered by TakeStreamBatches,
// at most one batch of at most max-batch items per stream per call; the
// last batch of a stream carries Closed and the outcome, after which the
// entry is gone. Each stream holds a bus.Credit: a producer waits (and still
// sees cancellation) once its undelivered items reach the runtime's stream
// credit, so a stream that nobody drains holds bounded memory.
//
// A stream's items are decoded on the main goroutine as their replies
// arrive, by its kind's codec, or by the codec the job names (Job.Items):
// grep's match blocks only check each batch and note where its matches
// start, decoding a match when it is read, so a consumer that shows a
// screenful of a large result pays for that screenful. A batch for a
// superseded stream is dropped undecoded: its header carries its weight.
//
// Cancel and supersede end a stream differently. A stream cancelled with
// [Runtime.Cancel] delivers the items it had already buffered once its
// worker has stopped, then closes Cancelled, as the original design does.
// A superseded stream drops its undelivered items, and those its worker
// sends before it stops (Tick drops them without decoding), and its
// closing batch (Cancelled, with [StreamBatch.Superseded] set) comes at
// once: results of a superseded search never land late. It closes
// Cancelled even if its worker finished before it saw the cancel.
//
// # External values
//
// An external job's value (an LSP or MCP reply) comes from another
// goroutine, and it crosses to the loop with the bus's guarantee: the
// main goroutine gets memory nobody else references. It is copied through
// the reply wire form, which also refuses what cannot cross (a channel, a
// map with non-string keys, a cyclic value) with the reason. That copy
// costs time in proportion to the value, so it is made on the goroutine
// the value arrives on: [Runtime.OwnExternal] encodes and decodes it there
// and returns an opaque [ExternalValue], whose content only it references;
// the loop settles the job with it ([Runtime.CompleteExternalOwned]) and
// the Tick applies it, both in constant time, however large the value. A
// value OwnExternal refuses fails its job with the reason, as a worker's
// unencodable reply does. [Runtime.CompleteExternalOK] does both steps on
// the loop, for values small enough not to matter.
//
// # Jobs outside the pool
//
// A kind whose job waits on something outside for long (a program, which
// may run for the editor's whole session) starts it detached (Job.Detached):
// it runs on a goroutine of its own and holds no worker slot and no actor
// gate. Close tells every kind state that can Kill to end what it runs
// (the process kind kills every program's tree at once while the pool
// stops), then waits for the detached jobs' last replies. kinds/procjob
// says what bounds that wait.
package runtime
