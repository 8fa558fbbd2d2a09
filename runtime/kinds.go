package runtime

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/vmihailenco/msgpack/v5"
)

// KindSpec is what a kind tells the runtime about itself when it registers,
// as a database/sql driver or an image format does: the runtime imports no
// kind, and knows of a kind's jobs only what this says. Every field but Name
// may be left zero.
type KindSpec struct {
	// Name labels the kind's jobs in the *workers* view and in messages
	// ("grep#12").
	Name string
	// Items carries a stream's item batches across the bus; nil for a kind
	// that streams nothing.
	Items ItemsCodec
	// Value carries the value a job completes with across the bus. A kind
	// whose jobs complete with nothing, or with a uint64 (which the runtime
	// carries itself), leaves it nil; so does one whose values never leave
	// the worker's hands through the bus (they wait in a handoff of the
	// kind's own, as parse trees do).
	Value ValueCodec
	// Detail carries what a stream's progress reports beside its count
	// (grep: what it left out so far); nil for none.
	Detail ValueCodec
	// ProgressLabel, when set, says what a stream's progress counts
	// ("files searched"): the completion ring then shows the last count
	// beside the items.
	ProgressLabel string
	// Snapshots makes each batch of a stream replace the undelivered one
	// instead of appending to it: a ranking while a walk runs is a whole,
	// and a consumer a frame behind wants only the newest.
	Snapshots bool
	// Summary returns what the completion ring keeps of a completed job's
	// value: something small (a count, a short line) that fmt formats when
	// a snapshot asks. It runs at settle, so it should not format. Nil
	// keeps scalars and short strings, and the size of containers.
	Summary func(v any) any
	// Discard is called on the main goroutine when the runtime forgets a
	// job of this kind (TakeResult, or a settle other than Complete), for
	// a kind that keeps something per job outside the outcome (a parse tree
	// waiting to be taken).
	Discard func(rt *Runtime, id JobID)
	// Observe, when set, is called by Tick on the main goroutine with each
	// batch of items a running stream of this kind sends, as it arrives
	// (before any consumer takes it), and with each progress report (items
	// nil), progress being the stream's latest. A kind whose stream tells
	// other kinds' states something passes it on (a watch's changes, with
	// Runtime.NoteTree, keep the finder's file lists current). It runs
	// inside Tick, so it must be cheap, and it must not keep items.
	Observe func(rt *Runtime, id JobID, items Items, progress uint64)
}

// Items is a batch of a stream's items, in its kind's form. A batch handed
// to Task.Send, or decoded by an ItemsCodec, belongs to the runtime until
// TakeStreamBatches hands it on.
type Items interface {
	// Len is how many items the batch holds.
	Len() int
	// Weight is the stream credit the batch holds while it waits: usually
	// Len, more for items whose size varies widely (a program's lines).
	Weight() int
	// Append returns the batch followed by more (a batch of the same
	// type); it may reuse the receiver.
	Append(more Items) Items
	// Cut splits the batch after its first n items, 0 < n < Len.
	Cut(n int) (head, rest Items)
}

// ItemsCodec encodes a stream's batches on the worker and decodes them on
// the main goroutine.
type ItemsCodec interface {
	EncodeItems(e *msgpack.Encoder, items Items) error
	// DecodeItems decodes one batch from d, which reads exactly p: a codec
	// may read p itself when it knows a faster way, reading nothing from d
	// then and checking itself that the batch ends where p does.
	DecodeItems(p []byte, d *msgpack.Decoder) (Items, error)
}

// ValueCodec encodes a value on the worker and decodes an owned copy on the
// main goroutine.
type ValueCodec interface {
	EncodeValue(e *msgpack.Encoder, v any) error
	DecodeValue(d *msgpack.Decoder) (any, error)
}

// maxKinds bounds the registry: Kind is a byte, so that a pending entry
// stays in its allocation size class.
const maxKinds = 256

var kindReg struct {
	mu    sync.Mutex
	n     int
	specs [maxKinds]atomic.Pointer[KindSpec]
}

// RegisterKind makes a kind known and returns the value its jobs carry. A
// kind package calls it once, when it initialises. Registering the same name
// twice makes two kinds that share a label. It panics past 255 kinds, as
// registering a driver under a taken name panics in database/sql: it is a
// program's mistake, made at init.
func RegisterKind(spec KindSpec) Kind {
	kindReg.mu.Lock()
	defer kindReg.mu.Unlock()
	if kindReg.n+1 >= maxKinds {
		panic("runtime: RegisterKind: too many kinds")
	}
	kindReg.n++
	s := spec
	kindReg.specs[kindReg.n].Store(&s)
	return Kind(kindReg.n)
}

// spec returns the kind's registration; a zero one for an unknown kind.
func (k Kind) spec() *KindSpec {
	if s := kindReg.specs[k].Load(); s != nil {
		return s
	}
	return &unknownKind
}

var unknownKind KindSpec

// String returns the kind's label, e.g. "compute_sum".
func (k Kind) String() string {
	if s := kindReg.specs[k].Load(); s != nil && s.Name != "" {
		return s.Name
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// StateOf returns the state a kind keeps per runtime under k, made by mk
// the first time it is asked for (its caches, its running programs, what
// its workers hand over). Call it on the main goroutine.
//
// The state may take part in the runtime's life by implementing any of:
//
//	Kill()                 // Close: before the worker pool stops (end what runs outside it)
//	Close()                // Close: after the pool has stopped (wait for it)
//	NoteResource(ResourceOp) // Tick: a filesystem mutation completed
//	NoteTree(TreeNote)       // Tick: news of a tree a job follows (NoteTree)
//	Held() int             // Stats.Held: what it keeps for callers
func StateOf[S any](rt *Runtime, k Kind, mk func() S) S {
	if s, ok := rt.states[k]; ok {
		return s.(S)
	}
	s := mk()
	if rt.states == nil {
		rt.states = make(map[Kind]any)
	}
	rt.states[k] = s
	rt.stateOrder = append(rt.stateOrder, k)
	return s
}

// eachState calls f with every kind state, in the order they were made.
func (rt *Runtime) eachState(f func(any)) {
	for _, k := range rt.stateOrder {
		f(rt.states[k])
	}
}
