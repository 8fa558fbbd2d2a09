package runtime

import (
	"github.com/pmacs-go/pmacs-go/bus"
	"github.com/pmacs-go/pmacs-go/bus/wire"
)

// streamBuf holds a stream's items between Tick and TakeStreamBatches.
type streamBuf struct {
	maxBatch int
	credit   *bus.Credit
	progress uint64 // producer-reported progress (grep: files searched)
	// buf holds the items of a kind that carries its own (replyItems);
	// codec, when set, decodes them instead of the kind's codec.
	buf   Items
	codec ItemsCodec
	// detail is the kind's last progress detail (KindSpec.Detail).
	detail   any
	received uint64 // items the stream has sent in all, for the completion ring
	queued   bool   // in rt.ready
	held     bool   // HoldStream: deliver nothing until released
	dropping bool   // DropStream: its consumer is gone; items are dropped as they come
}

func (s *streamBuf) len() int {
	return itemsLen(s.buf)
}

// units is the credit the undelivered items hold: one per item, except
// items whose kind weighs them (Items.Weight).
func (s *streamBuf) units() int {
	return itemsWeight(s.buf)
}

func itemsLen(it Items) int {
	if it == nil {
		return 0
	}
	return it.Len()
}

func itemsWeight(it Items) int {
	if it == nil {
		return 0
	}
	return it.Weight()
}

// discard drops undelivered items and returns their credit, so a producer
// waiting on a cancelled or abandoned stream is not stuck.
func (s *streamBuf) discard() {
	n := s.units()
	s.buf = nil
	s.credit.Release(n)
}

// StreamBatch is one frame's delivery for one stream.
type StreamBatch struct {
	ID   JobID
	Kind Kind
	// Items holds the stream's items, at most its max batch, in its
	// kind's form (its package says which type); nil for none. They are
	// the consumer's to keep.
	Items Items
	// Detail is the kind's last progress detail (KindSpec.Detail), nil
	// for none.
	Detail any
	// Progress is the producer's last reported progress (grep: files
	// searched so far).
	Progress uint64
	// Closed marks the stream's last batch; its pending entry is gone after
	// it, and Outcome says how the stream ended.
	Closed  bool
	Outcome Outcome
	// Superseded is set on the closing batch of a stream that was cancelled
	// by a dispatch under its key. Its undelivered items were dropped, and a
	// consumer should drop the batches it took earlier and has not shown
	// yet too: a superseded search must not land late. A stream cancelled
	// with Cancel delivers its buffered items and closes without it.
	Superseded bool
}

// Len returns the number of items in the batch.
func (b *StreamBatch) Len() int {
	return itemsLen(b.Items)
}

// Weight is the stream credit the batch's items held while they waited in
// the runtime: one unit an item, except items whose kind weighs them
// (a spawned program's line costs one per started 4 KiB of its text). A
// consumer that keeps batches of its own can bound them by the same
// measure.
func (b *StreamBatch) Weight() int {
	return itemsWeight(b.Items)
}

func (rt *Runtime) pushItems(j *job, r *reply) {
	n, units := itemsLen(r.items), itemsWeight(r.items)
	s := j.stream
	if s == nil || j.state != Running {
		// Items for a request/reply job are a handler bug; items after a
		// settle cannot happen on a FIFO bus. Either way nothing will
		// deliver them, so give their credit back.
		if s != nil {
			s.credit.Release(units)
		}
		return
	}
	s.received += uint64(n)
	if s.dropping {
		s.credit.Release(units)
		return
	}
	if r.items != nil {
		switch {
		case s.buf == nil || s.buf.Len() == 0:
			s.buf = r.items
		case j.kind.spec().Snapshots:
			// The snapshot it replaces will never be delivered.
			s.credit.Release(s.buf.Weight())
			s.buf = r.items
		default:
			s.buf = s.buf.Append(r.items)
		}
	}
	if n > 0 {
		rt.markReady(j)
	}
}

func (rt *Runtime) markReady(j *job) {
	if !j.stream.queued {
		j.stream.queued = true
		rt.ready = append(rt.ready, j.t.id)
	}
}

// TakeStreamBatches delivers at most one batch per stream that has
// something to deliver: up to its max batch of items, and on the last one
// Closed with the outcome, after which the stream's entry is evicted. A
// stream whose cancel was requested delivers nothing more until its worker
// has stopped; then a stream cancelled with Cancel delivers the items it had
// buffered and closes, while a superseded one closes at once, its items
// dropped (unless it turned out to have completed anyway). The cost is
// proportional to the streams with something to deliver, not to the pending
// jobs.
func (rt *Runtime) TakeStreamBatches() []StreamBatch {
	if len(rt.ready) == 0 {
		return nil
	}
	out := make([]StreamBatch, 0, len(rt.ready))
	next := rt.spare[:0]
	for _, id := range rt.ready {
		j := rt.pending.get(id)
		if j == nil || j.stream == nil {
			continue
		}
		s := j.stream
		s.queued = false
		if (s.held && !(j.state == Cancelled && j.superseded) && !s.dropping) || (j.state == Running && j.cancelRequested) {
			// Held (by HoldStream, or until a cancel is observed): the
			// items stay here, keeping their credit, so the producer
			// waits. Releasing or settling re-queues the stream. A
			// superseded stream has no items left to hold: it closes
			// at once, so its consumer learns that what it took is
			// stale.
			continue
		}
		b := StreamBatch{ID: id, Kind: j.kind, Progress: s.progress, Detail: s.detail}
		take := min(s.len(), s.maxBatch)
		if take > 0 {
			if take >= s.buf.Len() {
				b.Items, s.buf = s.buf, nil
			} else {
				b.Items, s.buf = s.buf.Cut(take)
			}
		}
		s.credit.Release(b.Weight())
		switch {
		case j.state != Running && s.len() == 0:
			b.Closed, b.Outcome = true, j.outcome()
			b.Superseded = j.state == Cancelled && j.superseded
			rt.pending.del(id)
		case s.len() > 0:
			s.queued = true
			next = append(next, id)
		}
		if take > 0 || b.Closed {
			out = append(out, b)
		}
	}
	rt.spare = rt.ready[:0]
	rt.ready = next
	return out
}

// HoldStream stops (hold) or resumes (release) delivery of a stream's
// batches. A held stream's items stay in the runtime and keep their credit,
// so a consumer that is not ready for more (a Lua task still busy with the
// previous batch) pushes back on the producer instead of piling batches up
// on its own side. A superseded stream closes even while held: it has no
// items left to keep. Unknown ids and request/reply jobs are ignored.
func (rt *Runtime) HoldStream(id JobID, hold bool) {
	j := rt.pending.get(id)
	if j == nil || j.stream == nil || j.stream.held == hold {
		return
	}
	j.stream.held = hold
	if !hold && (j.stream.len() > 0 || j.state != Running) {
		rt.markReady(j)
	}
}

// DropStream cancels a stream whose consumer is gone (a loop left by break,
// a task that ended) and drops what it has buffered and what its worker
// still sends, so it closes as soon as the worker has stopped, Cancelled,
// without handing out the rest a batch per frame. Unknown ids and
// request/reply jobs are ignored.
func (rt *Runtime) DropStream(id JobID) {
	j := rt.pending.get(id)
	if j == nil || j.stream == nil {
		return
	}
	s := j.stream
	s.dropping = true
	if s.buf != nil {
		s.credit.Release(s.buf.Weight())
		s.buf = nil
	}
	j.cancel(nil)
	if j.state != Running {
		rt.markReady(j)
	}
}

// StreamProgress returns a running stream's last reported progress (grep:
// files searched so far); false for unknown ids and request/reply jobs.
func (rt *Runtime) StreamProgress(id JobID) (uint64, bool) {
	j := rt.pending.get(id)
	if j == nil || j.stream == nil {
		return 0, false
	}
	return j.stream.progress, true
}

// StreamDetail returns a running stream's last progress detail
// (KindSpec.Detail; grep: what the search has left out so far), nil before
// the first; false for unknown ids and request/reply jobs.
func (rt *Runtime) StreamDetail(id JobID) (any, bool) {
	j := rt.pending.get(id)
	if j == nil || j.stream == nil {
		return nil, false
	}
	return j.stream.detail, true
}

// dropSuperseded takes a batch of items for a superseded stream that has
// not stopped yet, and drops it undecoded, returning its credit (its weight,
// which the header carries): nothing will deliver them (a superseded stream
// closes without its items), and decoding them would cost the frame after
// each keystroke that restarts a search a whole credit's worth of items. It
// reports false for any other reply, which is then decoded as usual; so
// does a reply whose header it cannot read.
func (rt *Runtime) dropSuperseded(p []byte) bool {
	w := wire.Bytes{P: p}
	if n, ok := w.ArrayLen(); !ok || n != 4 {
		return false
	}
	id, ok1 := w.Uint()
	kind, ok2 := w.Uint()
	weight, ok3 := w.Uint()
	if !ok1 || !ok2 || !ok3 || kind != uint64(replyItems) || weight > uint64(w.Left()) {
		return false
	}
	j := rt.pending.get(JobID(id))
	if j == nil || j.stream == nil || !j.superseded || j.state != Running {
		return false
	}
	j.stream.credit.Release(int(weight))
	return true
}
