package bus

import (
	"sync"
)

// queue is the shared state behind one pair of ends.
type queue struct {
	mu       sync.Mutex
	items    []Envelope
	signaled bool // a ready token was sent since the last drain
	closed   bool
	ready    chan struct{}
}

func (q *queue) push(env Envelope, force bool) error {
	q.mu.Lock()
	if q.closed && !force {
		q.mu.Unlock()
		return ErrClosed
	}
	// Field by field into the slot: appending env copied it from where
	// the argument had just been spilled, a stall on every send.
	n := len(q.items)
	if n < cap(q.items) {
		q.items = q.items[:n+1]
	} else {
		q.items = append(q.items, Envelope{})
	}
	slot := &q.items[n]
	slot.Topic, slot.Payload = env.Topic, env.Payload
	wake := !q.signaled
	q.signaled = true
	q.mu.Unlock()
	if wake {
		select {
		case q.ready <- struct{}{}:
		default:
		}
	}
	return nil
}

// Main is the main goroutine's end: it drains replies and may itself send
// (for jobs settled from outside the worker pool). Use it from one goroutine.
type Main struct {
	q   *queue
	reg *Registry
}

// Workers is the worker end. It is safe for concurrent use by any number of
// goroutines.
type Workers struct {
	q   *queue
	reg *Registry
}

// NewPair returns the two ends of a new bus whose topics are reg's.
func NewPair(reg *Registry) (*Main, *Workers) {
	q := &queue{ready: make(chan struct{}, 1)}
	return &Main{q: q, reg: reg}, &Workers{q: q, reg: reg}
}

// Registry returns the schema registry of this bus.
func (w *Workers) Registry() *Registry { return w.reg }

// Send encodes v under topic and queues it for the main goroutine. It never
// blocks; flow control for streams is the caller's [Credit].
func (w *Workers) Send(topic string, v any) error {
	env, err := w.reg.Encode(topic, v)
	if err != nil {
		return err
	}
	return w.q.push(env, false)
}

// SendEnvelope queues an already encoded envelope. The topic must be
// registered; the payload is not checked here (the main end checks it when it
// decodes, so a malformed payload costs the receiver an error, not a panic).
func (w *Workers) SendEnvelope(env Envelope) error {
	if _, err := w.reg.typeOf(env.Topic); err != nil {
		return err
	}
	return w.q.push(env, false)
}

// Route is the worker end bound to one topic, checked once: a producer
// that sends every envelope on a topic it knows (the runtime's replies)
// spares each the registry lookup SendEnvelope makes. It is safe for
// concurrent use, like Workers.
type Route struct {
	q     *queue
	topic string
}

// Route returns w bound to topic; it fails with ErrUnknownTopic if topic is
// not registered.
func (w *Workers) Route(topic string) (Route, error) {
	if _, err := w.reg.typeOf(topic); err != nil {
		return Route{}, err
	}
	return Route{q: w.q, topic: topic}, nil
}

// Send queues payload, already encoded, under the route's topic, as
// SendEnvelope does.
func (r Route) Send(payload []byte) error {
	return r.q.push(Envelope{Topic: r.topic, Payload: payload}, false)
}

// Close makes later worker sends fail with ErrClosed. Envelopes already
// queued stay readable from the main end. Idempotent.
func (w *Workers) Close() {
	w.q.mu.Lock()
	w.q.closed = true
	w.q.mu.Unlock()
}

// Registry returns the schema registry of this bus.
func (m *Main) Registry() *Registry { return m.reg }

// Send queues v from the main goroutine itself. It never blocks and works
// even after Close, so an external completion is never lost.
func (m *Main) Send(topic string, v any) error {
	env, err := m.reg.Encode(topic, v)
	if err != nil {
		return err
	}
	return m.q.push(env, true)
}

// Ready returns a channel that receives a token when envelopes are waiting.
// However many envelopes arrive between two drains, at most one token is
// sent for them.
func (m *Main) Ready() <-chan struct{} { return m.q.ready }

// Drain returns every queued envelope in arrival order and resets the ready
// signal. buf is recycled as the queue's next backing array: pass back the
// slice the previous Drain returned (or nil) and stop using it, so a loop
// that drains every frame allocates nothing in the steady state. Drain
// clears buf's envelopes so the queue does not pin their payloads; a
// caller that has already cleared them all passes buf[:0].
func (m *Main) Drain(buf []Envelope) []Envelope {
	// Clear a stale token first: a token sent after this point is for an
	// envelope that this drain may not see, so it must survive. Usually
	// the loop took the token before it drained, and a look at the
	// channel's length spares the receive.
	if len(m.q.ready) > 0 {
		select {
		case <-m.q.ready:
		default:
		}
	}
	clear(buf)
	m.q.mu.Lock()
	out := m.q.items
	m.q.items = buf[:0]
	m.q.signaled = false
	m.q.mu.Unlock()
	return out
}

// Wake sends the ready token as if an envelope had just arrived. A receiver
// that drained envelopes and left some of them unprocessed (its frame's time
// ran out) calls it so that a loop waiting on Ready comes back for them
// instead of sleeping until an unrelated event.
func (m *Main) Wake() {
	select {
	case m.q.ready <- struct{}{}:
	default:
	}
}

// Len reports how many envelopes are queued.
func (m *Main) Len() int {
	m.q.mu.Lock()
	defer m.q.mu.Unlock()
	return len(m.q.items)
}

// Decode decodes env into v; see [Registry.Decode].
func (m *Main) Decode(env Envelope, v any) error { return m.reg.Decode(env, v) }
