package lsp

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// inboxHighWater is how many decoded messages may wait for Poll before the
// reader stops reading: the server then blocks on its full pipe, so a host
// that stops polling holds bounded memory.
const inboxHighWater = 4096

// lenient decodes what servers really send: a message with an invalid
// UTF-8 byte (a file's contents in a hover) or a duplicate key must not be
// dropped, or the request it answers would wait forever. Strings get U+FFFD
// and the last key wins, as go.lsp.dev/protocol's Unmarshal does.
var lenient = json.JoinOptions(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))

// wireMsg is any JSON-RPC message as it arrives.
type wireMsg struct {
	ID     jsontext.Value `json:"id,omitzero"`
	Method string         `json:"method,omitzero"`
	Params jsontext.Value `json:"params,omitzero"`
	Result jsontext.Value `json:"result,omitzero"`
	Error  *wireError     `json:"error,omitzero"`
}

type wireError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// Events the transport goroutines hand to Poll.
type (
	evResponse struct {
		id       int64
		method   string
		result   any
		rerr     *ResponseError
		err      error // result did not decode
		received time.Time
		// n is the decoded result's item count, set when shape replaced it.
		n      int
		shaped bool
	}
	evNotification struct {
		method string
		params any // decoded for the methods Poll handles, else jsontext.Value
		shaped any // Config.ShapeDiagnostics's value for a publication
	}
	evServerRequest struct {
		id     jsontext.Value
		method string
		params jsontext.Value
	}
	evCancel         struct{ id int64 }
	evProgressCancel struct {
		token string
		job   runtime.JobID
	}
	evTimeout struct{ id int64 }
	evExit    struct {
		err  error
		exit proc.Exit
	}
	evRestart struct{}
)

// outstanding is what the reader knows of a request in flight: the method
// decides how its result is decoded; cancelled ones are not decoded at all.
type outstanding struct {
	method    string
	cancelled bool
}

// transport is the part of a Client shared with its goroutines: the inbox,
// the outstanding-request table, the writer queue and the counters. Every
// field is guarded by mu or atomic.
type transport struct {
	mu        sync.Mutex
	cond      *sync.Cond // reader waits for room; writer waits for work
	inbox     []any
	closed    bool // the process has exited: nothing waits any more
	ready     chan struct{}
	inflight  map[int64]*outstanding
	cancelled []int64 // order of cancelled entries, to bound them

	outq       []outFrame
	closeStdin bool

	shutdownID atomic.Int64 // request id of shutdown, answered by the reader

	// exec runs the initialize reply's decoding on the heavy lane; nil
	// decodes it on the reader (transports made by benchmarks).
	exec *workers.Executor
	// shape is Config.Shape, run on the reader after decoding, and
	// shapeDiags Config.ShapeDiagnostics.
	shape      func(method string, raw jsontext.Value, decoded any) (any, error)
	shapeDiags func(*protocol.PublishDiagnosticsParams) any

	malformed   atomic.Uint64
	unknown     atomic.Uint64
	late        atomic.Uint64
	received    atomic.Uint64
	decodeNanos atomic.Int64 // results decoded on the reader, in total
	maxDecode   atomic.Int64

	stderrMu sync.Mutex
	stderr   []byte
}

// maxCancelledKept bounds the ids remembered after cancel so a late reply is
// recognised as late rather than unknown.
const maxCancelledKept = 4096

// stderrKeep is how much of the server's stderr is kept for the host.
const stderrKeep = 64 << 10

func newTransport() *transport {
	t := &transport{ready: make(chan struct{}, 1), inflight: map[int64]*outstanding{}}
	t.cond = sync.NewCond(&t.mu)
	return t
}

func (t *transport) signal() {
	select {
	case t.ready <- struct{}{}:
	default:
	}
}

// push hands an event to Poll. From the reader it waits while the inbox is
// over its high-water mark; other producers (timers, the exit watcher)
// never wait, so a timeout or an exit cannot be held up by a flood.
func (t *transport) push(ev any, wait bool) {
	t.mu.Lock()
	for wait && len(t.inbox) >= inboxHighWater && !t.closed {
		t.cond.Wait()
	}
	t.inbox = append(t.inbox, ev)
	t.mu.Unlock()
	t.signal()
}

// take removes up to max events for Poll.
func (t *transport) take(max int) ([]any, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := min(len(t.inbox), max)
	evs := make([]any, n)
	copy(evs, t.inbox)
	rest := copy(t.inbox, t.inbox[n:])
	clear(t.inbox[rest:])
	t.inbox = t.inbox[:rest]
	t.cond.Broadcast()
	return evs, rest > 0
}

// track records a request before its frame is queued, so the reply is
// always recognised.
func (t *transport) track(id int64, method string) {
	t.mu.Lock()
	t.inflight[id] = &outstanding{method: method}
	t.mu.Unlock()
}

// forget marks a request given up: a late reply is dropped undecoded.
func (t *transport) forget(id int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	o := t.inflight[id]
	if o == nil || o.cancelled {
		return
	}
	o.cancelled = true
	t.cancelled = append(t.cancelled, id)
	if len(t.cancelled) > maxCancelledKept {
		old := t.cancelled[0]
		t.cancelled = t.cancelled[1:]
		if e := t.inflight[old]; e != nil && e.cancelled {
			delete(t.inflight, old)
		}
	}
}

// outFrame is a frame to write: ready bytes, or a func the writer
// goroutine calls to encode it (for a didOpen of a large document, whose
// encoding would otherwise cost the main goroutine milliseconds).
type outFrame struct {
	b    []byte
	lazy func() []byte
}

// send queues a frame for the writer goroutine; it never blocks.
func (t *transport) send(frame []byte) { t.sendFrame(outFrame{b: frame}) }

func (t *transport) sendFrame(f outFrame) {
	t.mu.Lock()
	if !t.closed {
		t.outq = append(t.outq, f)
	}
	t.mu.Unlock()
	t.cond.Broadcast()
}

func (t *transport) endInput() {
	t.mu.Lock()
	t.closeStdin = true
	t.mu.Unlock()
	t.cond.Broadcast()
}

// reset readies the transport for a new server process. The previous
// one's reader and writer have ended; the inbox is kept, since events for
// the client (cancels, the restart itself) pass through it.
func (t *transport) reset() {
	t.mu.Lock()
	t.closed = false
	t.closeStdin = false
	t.outq = nil
	t.inflight = map[int64]*outstanding{}
	t.cancelled = nil
	t.mu.Unlock()
	t.shutdownID.Store(0)
}

// markClosed releases every waiter once the process is gone.
func (t *transport) markClosed() {
	t.mu.Lock()
	t.closed = true
	t.outq = nil
	t.mu.Unlock()
	t.cond.Broadcast()
}

// writeLoop writes queued frames to the server's stdin. A write error means
// the server is going away; its exit is reported by the watcher.
func (t *transport) writeLoop(w io.WriteCloser) {
	defer w.Close()
	for {
		t.mu.Lock()
		for len(t.outq) == 0 && !t.closed && !t.closeStdin {
			t.cond.Wait()
		}
		q := t.outq
		t.outq = nil
		stop := t.closed || (t.closeStdin && len(q) == 0)
		t.mu.Unlock()
		if stop {
			return
		}
		for _, f := range q {
			b := f.b
			if f.lazy != nil {
				b = f.lazy()
			}
			if _, err := w.Write(b); err != nil {
				t.markClosed()
				return
			}
		}
	}
}

// onStderr keeps the tail of the server's stderr.
func (t *transport) onStderr(chunk []byte) {
	t.stderrMu.Lock()
	t.stderr = append(t.stderr, chunk...)
	if len(t.stderr) > stderrKeep {
		t.stderr = append([]byte(nil), t.stderr[len(t.stderr)-stderrKeep:]...)
	}
	t.stderrMu.Unlock()
}

// onBody decodes one frame on the reader goroutine: the envelope, and the
// result or params of the messages whose shape it knows, so Poll only
// stores pointers.
func (t *transport) onBody(body []byte) {
	t.received.Add(1)
	now := time.Now()
	var m wireMsg
	if err := json.Unmarshal(body, &m, lenient); err != nil {
		t.malformed.Add(1)
		return
	}
	switch {
	case m.Method != "" && len(m.ID) > 0:
		t.push(evServerRequest{id: m.ID, method: m.Method, params: m.Params}, true)
	case m.Method != "":
		ev := evNotification{method: m.Method, params: decodeNotification(m.Method, m.Params)}
		if p, ok := ev.params.(*protocol.PublishDiagnosticsParams); ok && t.shapeDiags != nil {
			ev.shaped = t.shapeDiags(p)
		}
		t.push(ev, true)
	case len(m.ID) > 0:
		t.onResponse(&m, now)
	default:
		t.malformed.Add(1)
	}
}

func (t *transport) onResponse(m *wireMsg, received time.Time) {
	var id int64
	if err := json.Unmarshal(m.ID, &id, lenient); err != nil {
		t.unknown.Add(1)
		return
	}
	t.mu.Lock()
	o := t.inflight[id]
	delete(t.inflight, id)
	t.mu.Unlock()
	switch {
	case o == nil:
		t.unknown.Add(1)
		return
	case o.cancelled:
		t.late.Add(1)
		return
	}
	if id == t.shutdownID.Load() {
		// The exit notification follows the shutdown reply at once, without
		// a round trip through the main goroutine, so Stop needs no Poll.
		t.send(appendFrame(nil, []byte(`{"jsonrpc":"2.0","method":"exit"}`)))
		t.endInput()
	}
	ev := evResponse{id: id, method: o.method, received: received}
	if m.Error != nil {
		ev.rerr = &ResponseError{Method: o.method, Code: m.Error.Code, Message: m.Error.Message}
		t.push(ev, true)
		return
	}
	if o.method == protocol.MethodInitialize && t.exec != nil {
		// The capabilities are decoded on the heavy lane, like the request
		// was encoded; the reader goes on reading meanwhile. The one event
		// is pushed without waiting for room: a worker must not wait on
		// the main goroutine.
		raw := m.Result
		t.exec.Submit(context.Background(), workers.Task{
			Actor: Actor, Lane: workers.LaneHeavy, Name: "lsp initialize reply",
			Run: func(context.Context, workers.Actor) (any, error) {
				t.decode(&ev, raw)
				t.push(ev, false)
				return nil, nil
			},
			Done: func(r workers.Result) {
				if r.Err != nil {
					ev.err = r.Err
					t.push(ev, false)
				}
			},
		})
		return
	}
	t.decode(&ev, m.Result)
	t.push(ev, true)
}

// decode decodes a result into the event, and shapes it for the host,
// counting the time it took.
func (t *transport) decode(ev *evResponse, raw jsontext.Value) {
	start := time.Now()
	ev.result, ev.err = decodeResult(ev.method, raw)
	if ev.err == nil && t.shape != nil && ev.method != protocol.MethodInitialize && ev.method != protocol.MethodShutdown {
		ev.n, ev.shaped = resultLen(ev.result), true
		ev.result, ev.err = t.shape(ev.method, raw, ev.result)
	}
	d := time.Since(start).Nanoseconds()
	t.decodeNanos.Add(d)
	for {
		old := t.maxDecode.Load()
		if d <= old || t.maxDecode.CompareAndSwap(old, d) {
			break
		}
	}
}

// decodeNotification decodes the params of notifications Poll keeps.
func decodeNotification(method string, raw jsontext.Value) any {
	switch method {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p protocol.PublishDiagnosticsParams
		if protocol.Unmarshal(raw, &p) != nil {
			return nil
		}
		return &p
	case protocol.MethodProgress:
		var p progressParams
		if json.Unmarshal(raw, &p, lenient) != nil {
			return nil
		}
		return &p
	case protocol.MethodWindowShowMessage, protocol.MethodWindowLogMessage:
		var p messageParams
		if json.Unmarshal(raw, &p, lenient) != nil {
			return nil
		}
		return &p
	}
	return raw
}
