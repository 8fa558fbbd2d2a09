package runtime

import "context"

// job is one entry of the pending table. It lives on the main goroutine; the
// worker touches only what never changes after submit (its handler, kind
// and Task) through the job being its own workers.Handler.
type job struct {
	key string // supersede key, "" for none
	t   Task   // what the worker sees of this job (shares the allocation); t.id is the job's id
	// The one-byte fields sit together so the entry stays in its
	// allocation size class.
	kind            Kind
	state           State
	cancelRequested bool
	superseded      bool // cancelled by a dispatch under its key: its items are dropped
	external        bool // value is an external job's (CompleteExternalOwned)
	// extQueued says an external job's replyExternal is on the bus, its
	// decoded value waiting in ext.value until the Tick that applies it.
	extQueued    bool
	value        any
	err          error // a *JobError when Failed, the cancel cause when Cancelled
	dispatchedAt mono
	stream       *streamBuf  // nil for request/reply jobs
	resource     *ResourceOp // the fs mutation this job performs, if any
	ext          *extState   // nil until an external job needs it
	// The handler, one of the two (see submit); read by the worker.
	fn  work
	run func(context.Context, *Task) (any, error)
}

// extState is what only external jobs keep, out of the entry every job
// allocates: the entry is on every dispatch's path, and its size class is
// a good part of what a dispatch costs.
type extState struct {
	value    any    // a completion's value, queued (see job.extQueued)
	progress string // set by SetExternalProgress, shown in the *workers* view
}

// extra returns j's external state, made on first use.
func (j *job) extra() *extState {
	if j.ext == nil {
		j.ext = new(extState)
	}
	return j.ext
}

func (j *job) outcome() Outcome {
	return Outcome{State: j.state, Err: j.err, value: j.value, external: j.external}
}

// ResourceOp is a filesystem mutation that completed: Tick reports these so
// an editor can update the buffers and views that name the paths.
//
// Tick reports them in bus-arrival order, which is not filesystem execution
// order across actors: two workers can finish in one order and have their
// replies arrive in the other. Mutations under one root run in that root's
// mutating lane in dispatch order, so their replies are sent in dispatch
// order too.
type ResourceOp struct {
	Op   ResourceKind
	From string // rename source, or the removed or made path
	To   string // rename destination; empty for remove and mkdir
}

// ResourceKind is the mutation a ResourceOp reports.
type ResourceKind uint8

// The reported mutations.
const (
	ResourceRename ResourceKind = iota + 1
	ResourceRemove
	ResourceMkdir
)

func (k ResourceKind) String() string {
	switch k {
	case ResourceRename:
		return "rename"
	case ResourceRemove:
		return "remove"
	case ResourceMkdir:
		return "mkdir"
	}
	return "unknown"
}

// newJob allocates the next id and publishes a pending entry, applying the
// supersede rule first: the predecessor under the same key is cancelled
// before the new id is visible, so a worker still running it sees its
// context end at once.
func (rt *Runtime) newJob(kind Kind, key string) *job {
	id := rt.nextID
	rt.nextID++
	j := &job{kind: kind, key: key, t: Task{id: id, kind: kind, bus: &rt.replies}, dispatchedAt: monoNow()}
	j.t.ctx.owner = &j.t
	if key != "" {
		if prior, ok := rt.supersede[key]; ok {
			if pj := rt.pending.get(prior); pj != nil && pj.state == Running {
				pj.superseded = true
				pj.cancel(ErrSuperseded)
			}
		}
		rt.supersede[key] = id
	}
	rt.pending.put(j)
	return j
}

// cancel ends a running job's context with cause (nil: context.Canceled),
// which its cancelled Outcome.Err and context.Cause then report; the
// context keeps the first cause.
func (j *job) cancel(cause error) {
	if j.state != Running {
		return
	}
	j.cancelRequested = true
	j.t.ctx.cancelCause(cause)
}
