package lsp

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// RequestKind is the kind of the jobs a Client makes: requests awaiting a
// server's reply, and the stop that waits for the server to exit. The
// runtime knows no kind; this package registers its own, as a driver does.
var RequestKind = runtime.RegisterKind(runtime.KindSpec{Name: "lsp_request"})

// RequestOptions tunes one request; mcp.RequestOptions has the same
// fields.
type RequestOptions struct {
	// Key supersedes: the request previously made under the same key is
	// cancelled ($/cancelRequest) when this one is made.
	Key string
	// Timeout, when positive, fails the request (and sends $/cancelRequest)
	// if the server has not answered by then.
	Timeout time.Duration
}

// Result is a settled request's outcome, taken with TakeResult.
type Result struct {
	Method string
	// Value is the decoded result: a protocol type for the methods listed in
	// the package doc, else the raw JSON as a jsontext.Value.
	Value any
	// Err is why the request failed: a *ResponseError for a server error,
	// or an error wrapping ErrTimeout, ErrServerExited, ErrStopped,
	// ErrFrameTooLarge, ErrNotReading or ErrHookPanicked.
	Err error
	// Received is when the reader had the reply's last byte (zero when
	// the request failed without a reply): the start of the reply's
	// latency to the host.
	Received time.Time

	// n is the decoded value's item count when Shape replaced it.
	n      int
	shaped bool
}

// abandon gives a request up: the server is told if it has the request, and
// a queued one is never sent.
func (c *Client) abandon(r *request) {
	if r.sent {
		c.t.forget(r.id)
		c.sendNow(c.encodeNotification(protocol.MethodCancelRequest, map[string]any{"id": r.id}))
	}
}

func (c *Client) onResponse(e evResponse) {
	r := c.pending[e.id]
	if r == nil {
		return
	}
	if e.id == c.initID {
		c.release(r)
		c.onInitialized(e)
		return
	}
	if r.ctx != nil && r.ctx.Err() != nil {
		// Superseded or cancelled after the reply was read but before the
		// cancel event was handled: the answer is stale, and the server
		// needs no $/cancelRequest for a request it has answered.
		c.cancelledAnswered++
		c.settle(r, Result{Method: e.method, Err: context.Cause(r.ctx)}, true)
		return
	}
	res := Result{Method: e.method, Value: e.result, Received: e.received, n: e.n, shaped: e.shaped}
	switch {
	case e.fail != nil:
		res = Result{Method: e.method, Err: fmt.Errorf("lsp %s: %w", e.method, e.fail), Received: e.received}
	case e.rerr != nil:
		res = Result{Method: e.method, Err: e.rerr, Received: e.received}
	case e.err != nil:
		res = Result{Method: e.method, Err: fmt.Errorf("lsp %s: decode result: %w", e.method, e.err), Received: e.received}
	case r.post != nil:
		v, err := r.post(res.Value)
		if err != nil {
			res = Result{Method: e.method, Err: fmt.Errorf("lsp %s: %w", e.method, err), Received: e.received}
		} else {
			res.Value, res.n, res.shaped = v, 0, false
		}
	}
	c.settle(r, res, false)
}

// failAll fails every request the client still waits on.
func (c *Client) failAll(err error) {
	ids := make([]int64, 0, len(c.pending))
	for id := range c.pending {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		r := c.pending[id]
		c.settle(r, Result{Method: r.method, Err: fmt.Errorf("lsp %s: %w", r.method, err)}, false)
	}
}

// release drops a request from the tables and stops its watchers.
func (c *Client) release(r *request) {
	delete(c.pending, r.id)
	if r.stopCtx != nil {
		r.stopCtx()
	}
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.token != "" && c.tokenJobs[r.token] == r.job {
		delete(c.tokenJobs, r.token)
	}
}

// settle ends a request and its runtime job.
func (c *Client) settle(r *request, res Result, cancelled bool) {
	c.release(r)
	if r.internal || r.job == 0 {
		return
	}
	c.keepResult(r.job, res)
	switch {
	case cancelled:
		c.rt.CompleteExternalCancelled(r.job)
	case res.Err != nil:
		c.rt.CompleteExternalFailed(r.job, res.Err)
	default:
		// The decoded value stays here (TakeResult): encoding 6,000
		// completion items as MessagePack on the main goroutine is what
		// this package exists to avoid. The job carries a summary.
		n := res.n
		if !res.shaped {
			n = resultLen(res.Value)
		}
		_ = c.rt.CompleteExternalOK(r.job, map[string]any{"method": r.method, "len": n})
	}
}

func (c *Client) keepResult(job runtime.JobID, res Result) {
	c.results[job] = res
	c.resultOrder = append(c.resultOrder, job)
	for len(c.resultOrder) > maxUntakenResults {
		delete(c.results, c.resultOrder[0])
		c.resultOrder = c.resultOrder[1:]
	}
}

// TakeResult returns a settled request's decoded result once; false if the
// job is unknown to the client, still pending, already taken or was dropped
// (only the newest 256 untaken results are kept).
func (c *Client) TakeResult(job runtime.JobID) (Result, bool) {
	res, ok := c.results[job]
	if !ok {
		return Result{}, false
	}
	delete(c.results, job)
	if i := slices.Index(c.resultOrder, job); i >= 0 {
		c.resultOrder = slices.Delete(c.resultOrder, i, i+1)
	}
	return res, true
}

func (c *Client) newRequest(method string, job runtime.JobID, internal bool) *request {
	c.nextID++
	r := &request{id: c.nextID, job: job, method: method, internal: internal}
	c.pending[r.id] = r
	return r
}

// Request sends a request and returns the runtime job that settles with its
// outcome (kind lsp_request): Complete with a summary value
// {method, len} (len is the item count of an array result, else -1) and
// the decoded result in TakeResult; Failed with a message naming the LSP
// error code, a timeout or the server's death; Cancelled when the job is
// cancelled or superseded, which also sends $/cancelRequest. params is
// encoded with protocol.Marshal; an encoding error fails the job at once.
func (c *Client) Request(method string, params any, opts RequestOptions) runtime.JobID {
	return c.request(method, params, opts, nil)
}

// request is Request; post, when set, makes the request skip Config.Shape
// and finishes its decoded result on the main goroutine.
func (c *Client) request(method string, params any, opts RequestOptions, post func(any) (any, error)) runtime.JobID {
	return c.requestDecoded(method, params, opts, post, nil)
}

// requestDecoded is request whose result decode decodes on the reader, in
// place of the method's decoder, before post finishes it.
func (c *Client) requestDecoded(method string, params any, opts RequestOptions, post func(any) (any, error), decode func(jsontext.Value) (any, error)) runtime.JobID {
	job, ctx := c.rt.RegisterExternal(RequestKind, opts.Key)
	r := c.newRequest(method, job, false)
	r.raw, r.post, r.decode = post != nil, post, decode
	if c.state == dead || c.state == stopping {
		cause := c.exitErr
		if cause == nil || c.state == stopping {
			cause = ErrStopped
		}
		c.settle(r, Result{Method: method, Err: fmt.Errorf("lsp %s: %w", method, cause)}, false)
		return job
	}
	body, err := marshalParams(params)
	if err != nil {
		c.settle(r, Result{Method: method, Err: fmt.Errorf("lsp %s: encode params: %w", method, err)}, false)
		return job
	}
	frame := c.requestFrame(r.id, method, body)
	if r.token = workDoneToken(body); r.token != "" {
		if c.tokenJobs == nil {
			c.tokenJobs = map[string]runtime.JobID{}
		}
		c.tokenJobs[r.token] = job
	}
	id := r.id
	r.ctx = ctx
	t := c.t
	r.stopCtx = context.AfterFunc(ctx, func() { t.push(evCancel{id: id}, false) })
	if opts.Timeout > 0 {
		r.timer = time.AfterFunc(opts.Timeout, func() { t.push(evTimeout{id: id}, false) })
	}
	c.flushChanges()
	if c.state == starting || c.state == restarting {
		c.hold(queuedFrame{id: id, method: method, frame: outFrame{b: frame}})
		return job
	}
	r.sent = true
	c.t.trackAs(id, method, r.raw, r.decode)
	c.t.send(frame)
	return job
}

// Notify sends a notification (after the document changes made before it).
func (c *Client) Notify(method string, params any) error {
	body, err := marshalParams(params)
	if err != nil {
		return fmt.Errorf("lsp %s: encode params: %w", method, err)
	}
	c.flushChanges()
	c.out(outFrame{b: c.notificationFrame(method, body)})
	return nil
}

// out sends a notification now, or after initialize when it is pending.
func (c *Client) out(f outFrame) {
	switch c.state {
	case starting, restarting:
		c.hold(queuedFrame{frame: f})
	case running:
		c.t.sendFrame(f)
	}
}

// hold queues a message until initialize is answered. A server that has
// not answered while Config.OutboxBytes wait for it is as hung as one that
// does not read them (see transport.sendFrame); while no server runs
// (between a death and its restart) nothing is counted, the wait being
// bounded by the backoff.
func (c *Client) hold(q queuedFrame) {
	if len(c.preInit) == 0 {
		c.heldBytes = 0
	}
	n := q.frame.size()
	if c.state == starting && c.heldBytes > 0 && c.heldBytes+n > c.cfg.OutboxBytes {
		c.t.fatal(fmt.Errorf("%w: it has not answered initialize, %d bytes wait for it, and %d more would pass the limit of %d (Config.OutboxBytes)",
			ErrNotReading, c.heldBytes, n, c.cfg.OutboxBytes))
	}
	c.preInit = append(c.preInit, q)
	c.heldBytes += n
}

// sendNow bypasses the initialize gate: for $/cancelRequest, initialized
// and replies to the server's requests.
func (c *Client) sendNow(frame []byte) {
	if c.state != dead {
		c.t.send(frame)
	}
}
