package runtime

// job is one entry of the pending table. It lives on the main goroutine only;
// the worker sees nothing of it but its id and context.
type job struct {
	id              JobID
	kind            Kind
	key             string // supersede key, "" for none
	t               task   // what the worker sees of this job (shares the allocation)
	cancelRequested bool
	superseded      bool // cancelled by a dispatch under its key: its items are dropped
	state           State
	value           any
	external        bool  // value is an external job's (CompleteExternalOK)
	err             error // a *JobError when Failed, the cancel cause when Cancelled
	cause           error // why the job's context was cancelled; nil for Runtime.Cancel
	dispatchedAt    mono
	settledAt       mono
	stream          *streamBuf  // nil for request/reply jobs
	resource        *ResourceOp // the fs mutation this job performs, if any
	// extValue is an external job's decoded value between
	// CompleteExternalOK and the Tick that applies its replyExternal;
	// extQueued says such a reply is on the bus.
	extValue  any
	extQueued bool
	progress  string // set by SetExternalProgress, shown in the *workers* view
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
	From string // rename source, or the removed path
	To   string // rename destination; empty for remove
}

// ResourceKind is the mutation a ResourceOp reports.
type ResourceKind uint8

// The reported mutations.
const (
	ResourceRename ResourceKind = iota + 1
	ResourceRemove
)

func (k ResourceKind) String() string {
	switch k {
	case ResourceRename:
		return "rename"
	case ResourceRemove:
		return "remove"
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
	j := &job{id: id, kind: kind, key: key, t: task{id: id, kind: kind, bus: rt.wbus}, dispatchedAt: monoNow()}
	j.t.ctx.owner = &j.t
	if key != "" {
		if prior, ok := rt.supersede[key]; ok {
			if pj := rt.pending[prior]; pj != nil && pj.state == Running {
				pj.superseded = true
				pj.cancel(ErrSuperseded)
			}
		}
		rt.supersede[key] = id
	}
	rt.pending[id] = j
	return j
}

// cancel ends a running job's context with cause (nil: context.Canceled),
// which its cancelled Outcome.Err and context.Cause then report.
func (j *job) cancel(cause error) {
	if j.state != Running {
		return
	}
	j.cancelRequested = true
	if j.cause == nil {
		j.cause = cause
	}
	j.t.ctx.cancelCause(cause)
}
