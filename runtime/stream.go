package runtime

import (
	"github.com/pmacs-go/pmacs-go/bus"
	"github.com/pmacs-go/pmacs-go/grep"
)

// streamBuf holds a stream's items between Tick and TakeStreamBatches. Only
// one of the item slices is used, by the stream's kind.
type streamBuf struct {
	maxBatch int
	credit   *bus.Credit
	matches  []grep.Match
	// blocks holds the matches of a stream that takes them in blocks
	// (wantBlocks), blockItems how many they are.
	blocks     []*MatchBlock
	blockItems int
	wantBlocks bool
	progress   uint64          // producer-reported progress (grep: files searched)
	skipped    grep.SkipCounts // grep: what the search left out so far
	// buf holds the items of a kind that carries its own (replyItems);
	// codec, when set, decodes them instead of the kind's codec.
	buf   Items
	codec ItemsCodec
	// detail is the kind's last progress detail (KindSpec.Detail).
	detail   any
	received uint64 // items the stream has sent in all, for the completion ring
	queued   bool   // in rt.ready
	held     bool   // HoldStream: deliver nothing until released
}

func (s *streamBuf) len() int {
	return len(s.matches) + s.blockItems + itemsLen(s.buf)
}

// units is the credit the undelivered items hold: one per item, except
// items whose kind weighs them (Items.Weight).
func (s *streamBuf) units() int {
	return s.len() - itemsLen(s.buf) + itemsWeight(s.buf)
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

// dropSuperseded takes a reply of grep matches for a
// superseded stream that has not stopped yet, and drops it undecoded,
// returning its items' credit: nothing will deliver them (a superseded
// stream closes without its items), and decoding them would cost the frame
// after each keystroke that restarts a search a whole credit's worth of
// matches. It reports false for any other reply, which is then decoded as
// usual; so does a reply whose header it cannot read.
func (rt *Runtime) dropSuperseded(p []byte) bool {
	w := wireBytes{p: p}
	if n, ok := w.arrayLen(); !ok || n != 3 {
		return false
	}
	id, ok1 := w.uint()
	kind, ok2 := w.uint()
	if !ok1 || !ok2 || kind != uint64(replyMatches) {
		return rt.dropSupersededItems(p)
	}
	j := rt.pending[JobID(id)]
	if j == nil || j.stream == nil || !j.superseded || j.state != Running {
		return false
	}
	items, ok := w.arrayLen()
	if !ok || items > w.left()/minMatchBytes {
		return false
	}
	j.stream.credit.Release(items)
	return true
}

// discard drops undelivered items and returns their credit, so a producer
// waiting on a cancelled or abandoned stream is not stuck.
func (s *streamBuf) discard() {
	n := s.units()
	s.matches, s.buf = nil, nil
	s.blocks, s.blockItems = nil, 0
	s.credit.Release(n)
}

// StreamBatch is one frame's delivery for one stream.
type StreamBatch struct {
	ID   JobID
	Kind Kind
	// Matches holds grep items; at most the stream's max batch in all.
	// The slices are the consumer's to keep.
	Matches []grep.Match
	// Blocks holds the grep items of a stream dispatched with
	// DispatchOptions.MatchBlocks, instead of Matches.
	Blocks []*MatchBlock
	// Items holds the items of a kind that carries its own, in the
	// kind's form (its package says which type).
	Items Items
	// Detail is the kind's last progress detail (KindSpec.Detail), nil
	// for none.
	Detail any
	// Progress is the producer's last reported progress (grep: files
	// searched so far).
	Progress uint64
	// Skipped is, for grep, what the search has left out so far, by
	// reason, reported with Progress; the closing batch's is the final
	// count.
	Skipped grep.SkipCounts
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
	return len(b.Matches) + blocksLen(b.Blocks) + itemsLen(b.Items)
}

// Weight is the stream credit the batch's items held while they waited in
// the runtime: one unit an item, except items whose kind weighs them
// (a spawned program's line costs one per started 4 KiB of its text). A
// consumer that keeps batches of its own can bound them by the same
// measure.
func (b *StreamBatch) Weight() int {
	return b.Len() - itemsLen(b.Items) + itemsWeight(b.Items)
}

func (rt *Runtime) pushItems(j *job, r *reply) {
	if j.stream != nil && j.stream.wantBlocks && r.Matches != nil {
		// Decoded by the general decoder: the stream still takes blocks.
		r.block, r.Matches = &MatchBlock{ms: r.Matches}, nil
	}
	n := len(r.Matches) + r.block.Len() + itemsLen(r.items)
	units := n - itemsLen(r.items) + itemsWeight(r.items)
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
	if len(s.matches) == 0 && r.Matches != nil {
		s.matches = r.Matches
	} else {
		s.matches = append(s.matches, r.Matches...)
	}
	if r.block.Len() > 0 {
		s.blocks = append(s.blocks, r.block)
		s.blockItems += r.block.Len()
	}
	if n > 0 {
		rt.markReady(j)
	}
}

func (rt *Runtime) markReady(j *job) {
	if !j.stream.queued {
		j.stream.queued = true
		rt.ready = append(rt.ready, j.id)
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
		j := rt.pending[id]
		if j == nil || j.stream == nil {
			continue
		}
		s := j.stream
		s.queued = false
		if (s.held && !(j.state == Cancelled && j.superseded)) || (j.state == Running && j.cancelRequested) {
			// Held (by HoldStream, or until a cancel is observed): the
			// items stay here, keeping their credit, so the producer
			// waits. Releasing or settling re-queues the stream. A
			// superseded stream has no items left to hold: it closes
			// at once, so its consumer learns that what it took is
			// stale.
			continue
		}
		b := StreamBatch{ID: id, Kind: j.kind, Progress: s.progress, Skipped: s.skipped, Detail: s.detail}
		take := min(s.len(), s.maxBatch)
		if len(s.matches) > 0 {
			b.Matches = s.matches[:take:take]
			s.matches = s.matches[take:]
		} else if itemsLen(s.buf) > 0 {
			if take >= s.buf.Len() {
				b.Items, s.buf = s.buf, nil
			} else {
				b.Items, s.buf = s.buf.Cut(take)
			}
		} else if s.blockItems > 0 {
			b.Blocks = s.takeBlocks(take)
		}
		s.credit.Release(b.Weight())
		switch {
		case j.state != Running && s.len() == 0:
			b.Closed, b.Outcome = true, j.outcome()
			b.Superseded = j.state == Cancelled && j.superseded
			delete(rt.pending, id)
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
	j := rt.pending[id]
	if j == nil || j.stream == nil || j.stream.held == hold {
		return
	}
	j.stream.held = hold
	if !hold && (j.stream.len() > 0 || j.state != Running) {
		rt.markReady(j)
	}
}

// StreamProgress returns a running stream's last reported progress (grep:
// files searched so far); false for unknown ids and request/reply jobs.
func (rt *Runtime) StreamProgress(id JobID) (uint64, bool) {
	j := rt.pending[id]
	if j == nil || j.stream == nil {
		return 0, false
	}
	return j.stream.progress, true
}

// StreamSkipped returns what a running grep has left out so far, by reason,
// as last reported with its progress; false for unknown ids and
// request/reply jobs.
func (rt *Runtime) StreamSkipped(id JobID) (grep.SkipCounts, bool) {
	j := rt.pending[id]
	if j == nil || j.stream == nil {
		return grep.SkipCounts{}, false
	}
	return j.stream.skipped, true
}

// takeBlocks takes the first n of the stream's block matches, cutting a
// block in two where n ends inside it.
func (s *streamBuf) takeBlocks(n int) []*MatchBlock {
	var out []*MatchBlock
	for n > 0 && len(s.blocks) > 0 {
		blk := s.blocks[0]
		l := blk.Len()
		if l > n {
			out = append(out, blk.slice(0, n))
			s.blocks[0] = blk.slice(n, l)
			s.blockItems -= n
			break
		}
		out = append(out, blk)
		s.blocks[0] = nil
		s.blocks = s.blocks[1:]
		s.blockItems -= l
		n -= l
	}
	return out
}

// dropSupersededItems is dropSuperseded for a batch in its kind's form,
// whose weight its header carries.
func (rt *Runtime) dropSupersededItems(p []byte) bool {
	w := wireBytes{p: p}
	if n, ok := w.arrayLen(); !ok || n != 4 {
		return false
	}
	id, ok1 := w.uint()
	kind, ok2 := w.uint()
	weight, ok3 := w.uint()
	if !ok1 || !ok2 || !ok3 || kind != uint64(replyItems) || weight > uint64(w.left()) {
		return false
	}
	j := rt.pending[JobID(id)]
	if j == nil || j.stream == nil || !j.superseded || j.state != Running {
		return false
	}
	j.stream.credit.Release(int(weight))
	return true
}
