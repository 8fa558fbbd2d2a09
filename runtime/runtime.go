package runtime

import (
	"bytes"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/bus"
	"github.com/pmacs-go/pmacs-go/workers"
)

// Knob bounds and defaults. A knob set out of range clamps, never panics.
const (
	DefaultFrameTarget = 16 * time.Millisecond
	MinFrameTarget     = time.Millisecond
	MaxFrameTarget     = time.Second

	DefaultMaxBatch = 1024
	MinMaxBatch     = 1
	MaxMaxBatch     = 1_000_000

	// DefaultStreamCredit is how many undelivered items one stream may have
	// before its producer waits: 64 Ki items is several frames of the
	// fastest producer at the default batch size, and a few tens of MiB at
	// worst for grep matches cut to 4 KiB of text.
	DefaultStreamCredit = 64 << 10
	MaxStreamCredit     = 1 << 24

	// CompletedRingCap is how many recent completions the snapshot keeps.
	CompletedRingCap = 64

	// DefaultActor runs filesystem and grep jobs whose path lies under no
	// registered root.
	DefaultActor workers.ActorID = ""
	// BuiltinActor runs the demo kinds, text search and fuzzy. They have an actor
	// of their own because a long sleep holds its actor's read gate: on the
	// default actor it would hold back every rename until it ended.
	BuiltinActor workers.ActorID = "pmacs:builtin"
)

// Options configures a Runtime. The zero value is ready to use.
type Options struct {
	// Executor sizes the worker pool; see workers.Config for defaults.
	Executor workers.Config
	// StreamCredit is the per-stream high-water mark in items; 0 means
	// DefaultStreamCredit. Clamped to [1, MaxStreamCredit].
	StreamCredit int
	// ConfineFS limits filesystem jobs to the registered roots: a path that
	// escapes them fails before anything is touched, and a job acts beneath
	// its root through the kernel (fsops.Roots), so a symlink swapped into
	// the tree after dispatch cannot lead it outside. Off by default.
	ConfineFS bool
}

// DispatchOptions are the per-dispatch knobs.
type DispatchOptions struct {
	// Key, when not empty, supersedes: the job previously dispatched under
	// the same key is cancelled before this one is published.
	Key string
	// MaxBatch caps the items one TakeStreamBatches call delivers for this
	// stream; 0 means the runtime's default. Clamped to [1, 1_000_000].
	// Ignored by request/reply jobs.
	MaxBatch int
}

// TickOutcome is what one Tick observed.
type TickOutcome struct {
	// Settled holds the ids that left Running during this tick, in
	// bus-arrival order.
	Settled []JobID
	// Resources holds the filesystem mutations that completed during this
	// tick, in bus-arrival order. That is not execution order: see
	// ResourceOp. Failed and cancelled mutations are never reported.
	Resources []ResourceOp
}

// Runtime is the main-goroutine job runtime. See the package doc for the
// concurrency contract: a Runtime belongs to one goroutine.
type Runtime struct {
	exec *workers.Executor
	main *bus.Main
	wbus *bus.Workers
	// replies is what every job's Task replies through.
	replies replies

	nextID    JobID
	pending   jobTable
	supersede map[string]JobID
	ready     []JobID // streams with something to deliver, in the order they became ready
	spare     []JobID
	ring      completionRing
	roots     roots

	frameTarget     time.Duration
	defaultMaxBatch int
	streamCredit    int
	confine         bool

	drainBuf []bus.Envelope
	drainPos int // drainBuf[drainPos:] is left for the next tick
	// settledHint sizes a tick's Settled: the replies it expects to apply.
	settledHint int
	// settledArena is the unused rest of the chunk the ticks carve their
	// Settled lists from (see newSettled).
	settledArena []JobID
	dec          *bus.Decoder
	scratch      reply
	malformed    uint64
	closed       bool
	// states holds each kind's per-runtime state (StateOf), stateOrder
	// the order they were made in, which Close keeps.
	states     map[Kind]any
	stateOrder []Kind
	// kindActors are the actors kinds named that are not roots.
	kindActors []workers.ActorID
	// detached counts the jobs running on goroutines of their own
	// (Job.Detached): Close waits for them.
	detached sync.WaitGroup
	// kread and kdec decode kinds' payloads (see applyKindReply).
	kread   bytes.Reader
	kdec    *msgpack.Decoder
	pollers pollers
}

// New starts a runtime and its worker pool.
func New(opts Options) (*Runtime, error) {
	reg := bus.NewRegistry()
	if err := bus.Register[reply](reg, replyTopic); err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	main, wbus := bus.NewPair(reg)
	route, err := wbus.Route(replyTopic)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	credit := opts.StreamCredit
	if credit == 0 {
		credit = DefaultStreamCredit
	}
	rt := &Runtime{
		exec:            workers.New(opts.Executor),
		main:            main,
		wbus:            wbus,
		replies:         replies{w: wbus, route: route},
		nextID:          1,
		supersede:       make(map[string]JobID),
		frameTarget:     DefaultFrameTarget,
		defaultMaxBatch: DefaultMaxBatch,
		streamCredit:    min(max(credit, 1), MaxStreamCredit),
		confine:         opts.ConfineFS,
		dec:             reg.NewDecoder(),
	}
	rt.kdec = msgpack.NewDecoder(&rt.kread)
	rt.exec.RegisterActor(DefaultActor)
	rt.exec.RegisterActor(BuiltinActor)
	return rt, nil
}

// Close cancels every running job, tells every kind state that can Kill
// to end what it runs outside the pool (the process kind kills every
// program's tree), waits for the worker pool to stop (jobs still queued
// settle with a shutdown failure) and for the detached jobs to send their
// last replies (the programs to be reaped), and closes the bus. Settles produced by the shutdown are
// still delivered by a later Tick. Idempotent.
//
// Close returns within workers.DefaultCloseWait (1 s) whatever the handlers
// do, or within 2 s when programs run (the kills and the pool's stop
// overlap; a program's wait is bounded by proc: its tree's end, then at
// most its spec's WaitDelay, 1 s by default, of reading what a process
// that escaped the tree still writes). A handler that does not return once
// cancelled (one blocked in a system call, such as a read from a FIFO with
// no writer) is left running on its worker goroutine; when it returns, its
// replies go to the closed bus and are dropped. Such a goroutine ends with
// its system call, or leaks if that never returns.
func (rt *Runtime) Close() {
	if rt.closed {
		return
	}
	rt.closed = true
	rt.closePollers()
	for j := range rt.pending.all() {
		j.cancel(ErrClosed)
	}
	rt.eachState(func(s any) {
		if k, ok := s.(interface{ Kill() }); ok {
			k.Kill()
		}
	})
	rt.exec.Close()
	rt.detached.Wait()
	rt.eachState(func(s any) {
		if c, ok := s.(interface{ Close() }); ok {
			c.Close()
		}
	})
	rt.wbus.Close()
}

// Executor exposes the worker pool, for callers that submit their own jobs
// on the same lanes and actors.
func (rt *Runtime) Executor() *workers.Executor { return rt.exec }

// Ready returns a channel that receives a token when worker replies are
// waiting for Tick. The editor loop selects on it.
func (rt *Runtime) Ready() <-chan struct{} { return rt.main.Ready() }

// FrameTarget returns the frame target the editor loop sizes its wait by.
func (rt *Runtime) FrameTarget() time.Duration { return rt.frameTarget }

// SetFrameTarget sets the frame target, clamped to [MinFrameTarget,
// MaxFrameTarget]: above a second the editor would feel dead, below a
// millisecond the loop would burn a core polling.
func (rt *Runtime) SetFrameTarget(d time.Duration) {
	rt.frameTarget = min(max(d, MinFrameTarget), MaxFrameTarget)
}

// DefaultMaxBatch returns the per-stream batch cap used when a dispatch does
// not set its own.
func (rt *Runtime) DefaultMaxBatch() int { return rt.defaultMaxBatch }

// SetDefaultMaxBatch sets the default batch cap, clamped to [1, 1_000_000]
// so a typo neither disables coalescing nor lets one batch take all memory.
func (rt *Runtime) SetDefaultMaxBatch(n int) { rt.defaultMaxBatch = clampBatch(n) }

func clampBatch(n int) int { return min(max(n, MinMaxBatch), MaxMaxBatch) }

// ActiveForKey returns the job a supersede key points at.
func (rt *Runtime) ActiveForKey(key string) (JobID, bool) {
	id, ok := rt.supersede[key]
	return id, ok
}

// Cancel asks a job to stop. The job settles Cancelled when its worker
// observes the request (or Complete, if it had already finished). A stream
// delivers the items it had buffered once its worker has stopped, then
// closes; a superseded one drops them (see the package doc). Unknown and
// settled ids are ignored.
func (rt *Runtime) Cancel(id JobID) {
	if j := rt.pending.get(id); j != nil {
		j.cancel(nil)
	}
}

// IsComplete reports whether a job has settled (in any terminal state) and
// has not been taken yet.
func (rt *Runtime) IsComplete(id JobID) bool {
	j := rt.pending.get(id)
	return j != nil && j.state != Running
}

// Lookup reports a job's kind and state while it is in the pending table.
func (rt *Runtime) Lookup(id JobID) (Kind, State, bool) {
	j := rt.pending.get(id)
	if j == nil {
		return 0, 0, false
	}
	return j.kind, j.state, true
}

// TakeResult removes a settled job from the pending table and returns its
// outcome; false if the job is unknown, still running or already taken.
// What the job's kind kept for it outside the outcome is dropped here
// (KindSpec.Discard: a parse tree nobody took), so a forgetful caller
// cannot leak it.
func (rt *Runtime) TakeResult(id JobID) (Outcome, bool) {
	j := rt.pending.get(id)
	if j == nil || j.state == Running {
		return Outcome{}, false
	}
	rt.pending.del(id)
	if j.stream != nil {
		j.stream.discard()
	}
	if d := j.kind.spec().Discard; d != nil {
		d(rt, id)
	}
	// j.outcome() spelled out: its value built aside and copied to the
	// result stalled on its own stores.
	return Outcome{State: j.state, Err: j.err, value: j.value, external: j.external}, true
}

// Tick applies every reply waiting: first those a bounded tick left over
// (see [Runtime.TickWithin]), then everything on the bus. It settles the
// jobs they finish, buffers stream items, and reports what settled. It never
// blocks. Before any of that it polls the registered pollers (see
// [Runtime.AddPoller]), so the jobs they settle settle in this tick.
func (rt *Runtime) Tick() TickOutcome { return rt.tick(0, 0) }

// TickLimit bounds one [Runtime.TickWithin].
type TickLimit struct {
	// Deadline stops the tick once the clock has passed it; the zero Time
	// means no deadline. The clock is read every 64 replies, and sooner
	// after replies whose payloads add up to tickCheckBytes (a stream batch
	// of thousands of matches costs as much to decode as hundreds of small
	// replies), so a tick always applies at least one reply and overruns
	// the deadline by at most the cost of 64 small ones or one large one.
	Deadline time.Time
	// Max caps the replies applied; 0 means no cap.
	Max int
}

// TickWithin is [Runtime.Tick] bounded by l: once the limit is reached it
// stops, and the replies not yet applied stay with the runtime, in order,
// for the next tick, which applies them before anything newer. While any are
// left, [Runtime.Pending] reports true, and the Ready channel holds a token
// so a loop waiting on it comes back for them. The pollers share what is
// left before l.Deadline (see [Poller]).
func (rt *Runtime) TickWithin(l TickLimit) TickOutcome {
	var dl mono
	if !l.Deadline.IsZero() {
		dl = max(mono(l.Deadline.Sub(epoch)), 1) // 0 means none
	}
	return rt.tick(dl, max(l.Max, 0))
}

// Pending reports replies waiting for a tick: left over by a bounded tick, or
// on the bus.
func (rt *Runtime) Pending() bool {
	return rt.drainPos < len(rt.drainBuf) || rt.main.Len() > 0
}

// StreamsReady reports streams with items for TakeStreamBatches: it hands
// out at most one batch per stream a frame, so a stream that received more
// has its rest waiting here without a new reply on the bus to wake the loop.
func (rt *Runtime) StreamsReady() bool { return len(rt.ready) > 0 }

// tick applies replies until the deadline dl (0: none) has passed or limit
// replies (0: no cap) are applied. The leftovers of the last bounded tick go
// first; then the bus is drained once, so a flood of replies arriving while
// the tick runs cannot keep it from returning.
func (rt *Runtime) tick(dl mono, limit int) TickOutcome {
	var out TickOutcome
	rt.poll(dl)
	drained := false
	if rt.drainPos == len(rt.drainBuf) {
		rt.refill()
		rt.rewakePollers()
		drained = true
		if len(rt.drainBuf) == 0 {
			return out
		}
	}
	rt.settledHint = len(rt.drainBuf) - rt.drainPos
	if limit > 0 {
		rt.settledHint = min(rt.settledHint, limit)
	}
	now := monoNow()
	bounded := dl != 0 || limit > 0
	done := 0
	// Payload bytes applied since the clock was last read.
	unclocked := 0
	for {
		for rt.drainPos < len(rt.drainBuf) {
			if bounded && done > 0 && (done == limit || dl != 0 && clockDue(done, &unclocked) && monoNow() > dl) {
				// The loop may already have taken the bus's token for
				// what is left here: without a new one it would sleep
				// until some unrelated event.
				rt.main.Wake()
				return TickOutcome{Settled: rt.keepSettled(out.Settled), Resources: out.Resources}
			}
			env := &rt.drainBuf[rt.drainPos]
			rt.drainPos++
			done++
			unclocked += len(env.Payload)
			rt.applyEnvelope(env, now, &out)
			*env = bus.Envelope{}
		}
		if drained {
			break
		}
		rt.refill()
		drained = true
	}
	// Built here rather than clipped in out: copying out just after its
	// list was rewritten stalled on those stores.
	return TickOutcome{Settled: rt.keepSettled(out.Settled), Resources: out.Resources}
}

// settledChunk is how many ids one allocation of the Settled arena holds,
// and settledOwn the most a tick expects to settle for it to take its list
// from the arena rather than from an allocation of its own.
const (
	settledChunk = 512
	settledOwn   = 64
)

// newSettled returns the empty list a tick that expects to settle n jobs
// appends them to. A small one is carved from the arena, so that a tick
// settling a job or two does not allocate; keepSettled then takes what the
// tick used out of the arena for good.
func (rt *Runtime) newSettled(n int) []JobID {
	if n > settledOwn {
		return make([]JobID, 0, n)
	}
	if len(rt.settledArena) < n {
		rt.settledArena = make([]JobID, settledChunk)
	}
	return rt.settledArena[:0:n]
}

// keepSettled returns a tick's Settled list ended where its ids end, so a
// caller's append cannot write into the arena, and takes them out of the
// arena: a Settled list is never written again once returned (a caller may
// keep it), and what a chunk is not used for is the next tick's.
func (rt *Runtime) keepSettled(settled []JobID) []JobID {
	n := len(settled)
	if n == 0 {
		return settled
	}
	if len(rt.settledArena) >= n && unsafe.SliceData(settled) == unsafe.SliceData(rt.settledArena) {
		rt.settledArena = rt.settledArena[n:]
	}
	return settled[:n:n]
}

// applyEnvelope decodes one envelope of the bus and applies it, then
// gives a fixed reply's payload back to fixedBufs.
func (rt *Runtime) applyEnvelope(env *bus.Envelope, now mono, out *TickOutcome) {
	if env.Topic == replyTopic {
		if rt.applyFixed(env.Payload, now, out) {
			return
		}
		rt.applyReply(env, now, out)
		recycleFixed(env.Payload)
		return
	}
	rt.decodeAndApply(env, now, out)
}

// applyReply applies a reply that is not of a fixed shape.
func (rt *Runtime) applyReply(env *bus.Envelope, now mono, out *TickOutcome) {
	if rt.dropSuperseded(env.Payload) {
		return
	}
	// One scratch reply for the whole drain: decoding into a local
	// would move it to the heap, one allocation per envelope.
	rt.scratch = reply{}
	if rt.applyKindReply(env.Payload, now, out) {
		return
	}
	rt.decodeAndApply(env, now, out)
}

// decodeAndApply decodes env with the registry's decoder and applies it.
func (rt *Runtime) decodeAndApply(env *bus.Envelope, now mono, out *TickOutcome) {
	rt.scratch = reply{}
	err := rt.dec.Decode(*env, &rt.scratch)
	if err == nil {
		rt.apply(&rt.scratch, now, out)
	}
	// Whatever the decode filled in is dropped once applied: the scratch
	// reply pins nothing between ticks, and the fixed replies, which never
	// touch it, need not clear it.
	rt.scratch = reply{}
	if err != nil {
		rt.malformed++
		if id, ok := peekJobID(env.Payload); ok {
			rt.failUndecodable(id, err, now, out)
		}
	}
}

// tickCheckBytes is how many payload bytes a bounded tick decodes between
// two looks at the clock when its replies are large: about 50 us of
// decoding, as much as 64 small replies cost.
const tickCheckBytes = 16 << 10

// clockDue reports whether a bounded tick that has applied done replies, and
// unclocked payload bytes since its last look, should read the clock now;
// it resets unclocked when it says yes.
func clockDue(done int, unclocked *int) bool {
	if done&63 != 0 && *unclocked < tickCheckBytes {
		return false
	}
	*unclocked = 0
	return true
}

// refill replaces the applied drain buffer with what waits on the bus,
// recycling its backing array.
func (rt *Runtime) refill() {
	// Every envelope of drainBuf was cleared as it was applied: the bus
	// need not clear them again.
	rt.drainBuf = rt.main.Drain(rt.drainBuf[:0])
	rt.drainPos = 0
}

func (rt *Runtime) apply(r *reply, now mono, out *TickOutcome) {
	j := rt.pending.get(r.Job)
	if j == nil {
		return // unknown or already taken: a late duplicate

	}
	switch r.Kind {
	case replyItems:
		if obs := j.kind.spec().Observe; obs != nil && j.stream != nil && j.state == Running && r.items != nil {
			obs(rt, j.t.id, r.items, j.stream.progress)
		}
		rt.pushItems(j, r)
		return
	case replyProgress:
		if j.stream != nil {
			j.stream.progress = r.N
			if r.detail != nil {
				j.stream.detail = r.detail
			}
			if obs := j.kind.spec().Observe; obs != nil && j.state == Running {
				obs(rt, j.t.id, nil, r.N)
			}
		}
		return
	case replyExternal:
		if !j.extQueued {
			rt.malformed++ // only CompleteExternalOwned sends these
			return
		}
		// The value leaves the entry whatever happens next, so a
		// completion that lost the race to an earlier one pins nothing.
		v := j.ext.value
		j.extQueued, j.ext.value = false, nil
		if j.state == Running {
			j.state, j.value, j.external = Complete, v, true
			rt.settled(j, now, out)
		}
		return
	}
	if j.state != Running {
		return // exactly once: a second terminal reply is ignored
	}
	if j.superseded && j.stream != nil {
		// A superseded stream ends Cancelled whatever its worker says: the
		// items it sent after the supersede were dropped (dropSuperseded),
		// and a search whose worker finished before it saw the cancel must
		// not land late as Complete either.
		j.state, j.err = Cancelled, j.cancelCause()
		rt.settled(j, now, out)
		return
	}
	switch r.Kind {
	case replyUnit, replyClosed:
		j.state = Complete
	case replyResult:
		j.state, j.value = Complete, r.Value
	case replySum:
		j.state, j.value = Complete, r.N
	case replyValue:
		j.state, j.value, j.external = Complete, r.Value, true
	case replyCancelled:
		j.state, j.err = Cancelled, j.cancelCause()
	case replyFailed:
		j.state, j.err = Failed, &JobError{Message: r.Msg, Code: r.Code, Err: j.failure()}
	default:
		rt.malformed++
		return
	}
	rt.settled(j, now, out)
}

// failUndecodable settles the job an undecodable envelope names, if it is
// still running: the envelope may have been its terminal reply or a batch of
// its items, and either way waiting on would mean waiting forever. The job's
// context is cancelled too, so a worker still producing for it stops.
func (rt *Runtime) failUndecodable(id JobID, err error, now mono, out *TickOutcome) {
	j := rt.pending.get(id)
	if j == nil || j.state != Running {
		return
	}
	j.t.ctx.cancel()
	j.state = Failed
	j.err = &JobError{Message: jobName(j.kind, id) + ": its reply could not be decoded: " + err.Error(), Code: CodeMalformedReply}
	rt.settled(j, now, out)
}

// settled does the bookkeeping of a job that just left Running.
func (rt *Runtime) settled(j *job, now mono, out *TickOutcome) {
	if out.Settled == nil {
		// Sized for the drain: a flood of replies then grows it once.
		out.Settled = rt.newSettled(rt.settledHint)
	}
	out.Settled = append(out.Settled, j.t.id)
	if j.resource != nil && j.state == Complete {
		out.Resources = append(out.Resources, *j.resource)
		op := *j.resource
		rt.eachState(func(s any) {
			if n, ok := s.(interface{ NoteResource(ResourceOp) }); ok {
				n.NoteResource(op)
			}
		})
	}
	if j.key != "" && rt.supersede[j.key] == j.t.id {
		delete(rt.supersede, j.key)
	}
	// Field by field into the ring's slot: a slot built aside and copied
	// in was most of a lone job's settle (its copies stall on the stores
	// just made).
	c := rt.ring.next()
	c.id, c.kind, c.state, c.key = j.t.id, j.kind, j.state, j.key
	c.err = nil
	if j.state == Failed {
		c.err = j.err
	}
	summarizeInto(&c.result, j)
	c.dispatchedAt, c.settledAt = j.dispatchedAt, now
	if j.state != Complete {
		if d := j.kind.spec().Discard; d != nil {
			d(rt, j.t.id)
		}
	}
	if j.stream != nil {
		// A superseded search must not land late; an explicitly cancelled
		// stream delivers what it had buffered, then closes.
		if j.state == Cancelled && j.superseded {
			j.stream.discard()
		}
		rt.markReady(j)
	}
}
