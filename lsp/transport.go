package lsp

import (
	"context"
	"fmt"
	"io"
	"strings"
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
// that stops polling holds bounded memory. Config.InboxBytes bounds their
// bytes too.
const inboxHighWater = 4096

// Byte bounds of the queues between the main goroutine and a server
// (Config.InboxBytes, Config.OutboxBytes); both clamp to
// [MinQueueBytes, MaxQueueBytes].
const (
	DefaultInboxBytes  = 64 << 20
	DefaultOutboxBytes = 64 << 20
	MinQueueBytes      = 1 << 20
	MaxQueueBytes      = 1 << 30
)

// maxTextKept cuts the text of a show/log message or a progress report
// the client keeps: what a server writes there is for a person to read.
const maxTextKept = 64 << 10

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
		id     int64
		method string
		result any
		rerr   *ResponseError
		err    error // result did not decode
		// fail fails the request as it is: the reply was too large, or
		// Config.Shape panicked on it.
		fail     error
		received time.Time
		// n is the decoded result's item count, set when shape replaced it.
		n      int
		shaped bool
		raw    bool // the request skips Shape (outstanding.raw)
		decode func(jsontext.Value) (any, error)
	}
	evNotification struct {
		method string
		params any // decoded for the methods Poll handles, else jsontext.Value
		shaped any // Config.ShapeDiagnostics's value for a publication
		// dropped counts a publication's diagnostics past MaxDiagnostics.
		dropped int
		n       int // the frame's size
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
	// evNotice is a message of the client's own for the host (see
	// TakeMessages).
	evNotice struct{ text string }
)

// inboxItem is an event and the bytes of the frame it was decoded from,
// which the inbox's byte bound counts.
type inboxItem struct {
	ev any
	n  int
}

// outstanding is what the reader knows of a request in flight: the method
// decides how its result is decoded; cancelled ones are not decoded at all.
type outstanding struct {
	method    string
	cancelled bool
	// raw: the result skips Config.Shape; the client finishes it on the
	// main goroutine (a semantic tokens delta needs the last result).
	raw bool
	// decode, when set, decodes the result in place of the method's
	// decoder, on the reader: work a request prepared for (applying a
	// semantic tokens delta to the result it was asked against).
	decode func(jsontext.Value) (any, error)
}

// transport is the part of a Client shared with its goroutines: the inbox,
// the outstanding-request table, the writer queue and the counters. Every
// field is guarded by mu or atomic.
type transport struct {
	mu         sync.Mutex
	cond       *sync.Cond // reader waits for room; writer waits for work
	inbox      []inboxItem
	inboxBytes int
	closed     bool // the process has exited: nothing waits any more
	ready      chan struct{}
	inflight   map[int64]*outstanding
	cancelled  []int64 // order of cancelled entries, to bound them

	outq       []outFrame
	outBytes   int // queued and being written, not yet taken by the server
	closeStdin bool

	// The bounds: messages and bytes waiting for Poll, bytes waiting for
	// the server, and the largest frame read.
	maxInbox, maxInboxBytes, maxOutBytes, maxFrame int

	// kill ends the server process (proc's Kill; nil in transports made
	// without one), and killErr says why the client did: once set,
	// nothing more is queued for that process, and its exit fails the
	// pending requests with it.
	kill    func()
	killErr error

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
	oversized   atomic.Uint64
	hookPanics  atomic.Uint64
	readerWaits atomic.Uint64 // times the reader waited for room
	// decodePanics counts frames whose decoding panicked (also counted
	// malformed): the fuzz target refuses any.
	decodePanics atomic.Uint64
	// diagPanicTold: a ShapeDiagnostics panic has been reported once.
	diagPanicTold atomic.Bool
	decodeNanos   atomic.Int64 // results decoded on the reader, in total
	maxDecode     atomic.Int64

	stderrMu sync.Mutex
	stderr   []byte
}

// maxCancelledKept bounds the ids remembered after cancel so a late reply is
// recognised as late rather than unknown.
const maxCancelledKept = 4096

// stderrKeep is how much of the server's stderr is kept for the host.
const stderrKeep = 64 << 10

func newTransport() *transport {
	t := &transport{ready: make(chan struct{}, 1), inflight: map[int64]*outstanding{},
		maxInbox: inboxHighWater, maxInboxBytes: DefaultInboxBytes,
		maxOutBytes: DefaultOutboxBytes, maxFrame: DefaultMaxFrame}
	t.cond = sync.NewCond(&t.mu)
	return t
}

func (t *transport) signal() {
	select {
	case t.ready <- struct{}{}:
	default:
	}
}

// push hands an event that came from no frame to Poll (see pushSized).
func (t *transport) push(ev any, wait bool) { t.pushSized(ev, 0, wait) }

// pushSized hands an event to Poll; n is the size of the frame it came
// from. From the reader it waits while the inbox is over its high-water mark,
// in messages or in bytes (an event alone in the inbox passes whatever
// its size, so none can wait forever); other producers (timers, the exit
// watcher) never wait, so a timeout or an exit cannot be held up by a
// flood.
func (t *transport) pushSized(ev any, n int, wait bool) {
	t.mu.Lock()
	for wait && !t.closed && len(t.inbox) > 0 &&
		(len(t.inbox) >= t.maxInbox || t.inboxBytes+n > t.maxInboxBytes) {
		t.readerWaits.Add(1)
		t.cond.Wait()
	}
	t.inbox = append(t.inbox, inboxItem{ev: ev, n: n})
	t.inboxBytes += n
	t.mu.Unlock()
	t.signal()
}

// take removes up to max events for Poll.
func (t *transport) take(max int) ([]any, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := min(len(t.inbox), max)
	evs := make([]any, n)
	for i, it := range t.inbox[:n] {
		evs[i] = it.ev
		t.inboxBytes -= it.n
	}
	rest := copy(t.inbox, t.inbox[n:])
	clear(t.inbox[rest:])
	t.inbox = t.inbox[:rest]
	t.cond.Broadcast()
	return evs, rest > 0
}

// track records a request before its frame is queued, so the reply is
// always recognised.
func (t *transport) track(id int64, method string) {
	t.trackAs(id, method, false)
}

// trackAs is track, with raw saying whether the result skips Shape and
// decode, when set, the request's own decoder.
func (t *transport) trackAs(id int64, method string, raw bool, decode ...func(jsontext.Value) (any, error)) {
	o := &outstanding{method: method, raw: raw}
	if len(decode) > 0 {
		o.decode = decode[0]
	}
	t.mu.Lock()
	t.inflight[id] = o
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
// encoding would otherwise cost the main goroutine milliseconds) with the
// size it will have, about.
type outFrame struct {
	b    []byte
	lazy func() []byte
	n    int
}

func (f outFrame) size() int {
	if f.lazy != nil {
		return f.n
	}
	return len(f.b)
}

// send queues a frame for the writer goroutine; it never blocks.
func (t *transport) send(frame []byte) { t.sendFrame(outFrame{b: frame}) }

// sendFrame queues a frame for the writer goroutine; it never blocks. A
// server that has not taken Config.OutboxBytes of what was queued for it
// is taken for hung: the frame is not queued, and the server is killed
// (see fatal). A frame alone in the queue passes whatever its size.
func (t *transport) sendFrame(f outFrame) {
	n := f.size()
	t.mu.Lock()
	if t.closed || t.killErr != nil {
		t.mu.Unlock()
		return
	}
	if t.outBytes > 0 && t.outBytes+n > t.maxOutBytes {
		queued := t.outBytes
		t.mu.Unlock()
		t.fatal(fmt.Errorf("%w: %d bytes wait for it, and %d more would pass the limit of %d (Config.OutboxBytes)",
			ErrNotReading, queued, n, t.maxOutBytes))
		return
	}
	t.outq = append(t.outq, f)
	t.outBytes += n
	t.mu.Unlock()
	t.cond.Broadcast()
}

// fatal kills the server for err, which its exit then gives as the cause
// of every request it fails (see exitCause); the client restarts it as it
// would after a crash. Safe from any goroutine; the first reason wins.
func (t *transport) fatal(err error) {
	t.mu.Lock()
	if t.killErr == nil {
		t.killErr = err
	}
	t.outq = nil
	kill := t.kill
	t.mu.Unlock()
	t.cond.Broadcast()
	if kill != nil {
		kill()
	}
}

// setKill gives the transport the new server's Kill. The reader may have
// judged the server before it was set.
func (t *transport) setKill(kill func()) {
	t.mu.Lock()
	t.kill = kill
	judged := t.killErr != nil
	t.mu.Unlock()
	if judged {
		kill()
	}
}

// exitCause is the error a server's exit fails the pending requests with:
// why the client killed it, when it did, and how it ended.
func (t *transport) exitCause(exit error) error {
	t.mu.Lock()
	k := t.killErr
	t.mu.Unlock()
	if k == nil {
		return exit
	}
	return fmt.Errorf("%w; the client stopped the server: %w", k, exit)
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
	t.outBytes = 0
	t.kill, t.killErr = nil, nil
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
			t.mu.Lock()
			t.outBytes -= f.size()
			t.mu.Unlock()
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
// stores pointers. A panic in decoding is a malformed frame, never the
// end of the program; the hooks' own panics fail what they shaped (see
// decode and shapeDiagnostics).
func (t *transport) onBody(body []byte) {
	defer func() {
		if p := recover(); p != nil {
			t.malformed.Add(1)
			t.decodePanics.Add(1)
		}
	}()
	t.received.Add(1)
	now := time.Now()
	var m wireMsg
	if err := json.Unmarshal(body, &m, lenient); err != nil {
		t.malformed.Add(1)
		return
	}
	switch {
	case m.Method != "" && len(m.ID) > 0:
		t.pushSized(evServerRequest{id: m.ID, method: m.Method, params: m.Params}, len(body), true)
	case m.Method != "":
		ev := evNotification{method: m.Method, n: len(body)}
		if m.Method == protocol.MethodTextDocumentPublishDiagnostics {
			if p, dropped, err := decodeDiagnostics(m.Params, MaxDiagnostics); err == nil {
				ev.params, ev.dropped = p, dropped
			}
		} else {
			ev.params = decodeNotification(m.Method, m.Params)
		}
		if p, ok := ev.params.(*protocol.PublishDiagnosticsParams); ok && t.shapeDiags != nil {
			shaped, ok := t.shapeDiagnostics(p)
			if !ok {
				return
			}
			ev.shaped = shaped
		}
		t.pushSized(ev, len(body), true)
	case len(m.ID) > 0:
		t.onResponse(&m, now, len(body))
	default:
		t.malformed.Add(1)
	}
}

// shapeDiagnostics runs Config.ShapeDiagnostics; false when it panicked:
// the publication is dropped, counted, and the first such panic is told
// in the client's messages.
func (t *transport) shapeDiagnostics(p *protocol.PublishDiagnosticsParams) (shaped any, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			t.hookPanics.Add(1)
			if t.diagPanicTold.CompareAndSwap(false, true) {
				t.push(evNotice{text: fmt.Sprintf("%v: Config.ShapeDiagnostics: %v; its publications are dropped (Stats.HookPanics counts them)", ErrHookPanicked, r)}, false)
			}
			shaped, ok = nil, false
		}
	}()
	return t.shapeDiags(p), true
}

func (t *transport) onResponse(m *wireMsg, received time.Time, size int) {
	var id int64
	if err := json.Unmarshal(m.ID, &id, lenient); err != nil {
		t.unknown.Add(1)
		return
	}
	o := t.claim(id)
	if o == nil {
		return
	}
	ev := evResponse{id: id, method: o.method, received: received, raw: o.raw, decode: o.decode}
	if m.Error != nil {
		ev.rerr = &ResponseError{Method: o.method, Code: m.Error.Code, Message: m.Error.Message}
		t.pushSized(ev, size, true)
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
	t.pushSized(ev, size, true)
}

// claim takes the outstanding request a reply answers off the table: nil
// (and counted) when the reply is for nobody, or for a request given up.
// The reply to shutdown sends exit at once, without a round trip through
// the main goroutine, so Stop needs no Poll.
func (t *transport) claim(id int64) *outstanding {
	t.mu.Lock()
	o := t.inflight[id]
	delete(t.inflight, id)
	t.mu.Unlock()
	switch {
	case o == nil:
		t.unknown.Add(1)
		return nil
	case o.cancelled:
		t.late.Add(1)
		return nil
	}
	if id == t.shutdownID.Load() {
		t.send(appendFrame(nil, []byte(`{"jsonrpc":"2.0","method":"exit"}`)))
		t.endInput()
	}
	return o
}

// onOversize deals with a frame larger than the limit, which was skipped
// unread: the request it answers fails, a request from the server is
// answered with an error, a notification is dropped. When the frame had
// no id and no method the client cannot know what it answered, and a
// request would wait for it forever: the server is killed, so its exit
// fails every pending request with the reason and the client restarts it.
func (t *transport) onOversize(size int64, h frameHead) {
	t.oversized.Add(1)
	err := fmt.Errorf("%w: a message of %d bytes, over the limit of %d (Config.MaxFrame)", ErrFrameTooLarge, size, t.maxFrame)
	var id int64
	switch {
	case h.id != nil && h.method:
		t.send(errorFrame(h.id, CodeRequestFailed, err.Error()))
	case h.id != nil && json.Unmarshal(h.id, &id, lenient) == nil:
		if o := t.claim(id); o != nil {
			t.push(evResponse{id: id, method: o.method, fail: err, received: time.Now()}, true)
		}
	case h.id != nil:
		t.unknown.Add(1)
	case h.method:
		// A notification: nothing waits for it.
	default:
		t.fatal(fmt.Errorf("%w, and what it answered cannot be told", err))
	}
}

// onBroken deals with a Content-Length no server sends: the stream is
// taken for broken, and the server is restarted.
func (t *transport) onBroken(length string) {
	t.oversized.Add(1)
	t.fatal(fmt.Errorf("%w: a Content-Length of %s, over the limit of %d (Config.MaxFrame)", ErrFrameTooLarge, length, t.maxFrame))
}

// errorFrame is an error response to the server's request id.
func errorFrame(id []byte, code int64, message string) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = fmt.Appendf(b, "%d", code)
	b = append(b, `,"message":`...)
	b, _ = jsontext.AppendQuote(b, message)
	b = append(b, "}}"...)
	return appendFrame(nil, b)
}

// decode decodes a result into the event, and shapes it for the host,
// counting the time it took. A panic in Config.Shape fails the request
// with the panic's value.
func (t *transport) decode(ev *evResponse, raw jsontext.Value) {
	start := time.Now()
	if ev.decode != nil {
		ev.result, ev.err = ev.decode(raw)
	} else {
		ev.result, ev.err = decodeResult(ev.method, raw)
	}
	if r, ok := ev.result.(*pulledReport); ok && ev.err == nil {
		t.shapePulled(r)
	}
	if ev.err == nil && t.shape != nil && !ev.raw && ev.method != protocol.MethodInitialize && ev.method != protocol.MethodShutdown {
		ev.n, ev.shaped = resultLen(ev.result), true
		t.runShape(ev, raw)
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

func (t *transport) runShape(ev *evResponse, raw jsontext.Value) {
	defer func() {
		if p := recover(); p != nil {
			t.hookPanics.Add(1)
			ev.result, ev.err = nil, nil
			ev.fail = fmt.Errorf("%w: Config.Shape: %v", ErrHookPanicked, p)
		}
	}()
	ev.result, ev.err = t.shape(ev.method, raw, ev.result)
}

// cutText keeps at most maxTextKept bytes of a server's text, copied so the
// frame it came from is not held, and cut at a character boundary.
func cutText(s string) string {
	if len(s) <= maxTextKept {
		return s
	}
	n := maxTextKept
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n]) + fmt.Sprintf(" [%d bytes cut]", len(s)-n)
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// decodeNotification decodes the params of notifications Poll keeps.
func decodeNotification(method string, raw jsontext.Value) any {
	switch method {
	case protocol.MethodTextDocumentPublishDiagnostics:
		p, _, err := decodeDiagnostics(raw, MaxDiagnostics)
		if err != nil {
			return nil
		}
		return p
	case protocol.MethodProgress:
		var p progressParams
		if json.Unmarshal(raw, &p, lenient) != nil {
			return nil
		}
		p.Value.Title, p.Value.Message = cutText(p.Value.Title), cutText(p.Value.Message)
		return &p
	case protocol.MethodWindowShowMessage, protocol.MethodWindowLogMessage:
		var p messageParams
		if json.Unmarshal(raw, &p, lenient) != nil {
			return nil
		}
		p.Message = cutText(p.Message)
		return &p
	}
	return raw
}
