package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/textpos"
	"github.com/pmacs-go/pmacs-go/workers"
)

// Defaults for the zero values of Config.
const (
	DefaultStopGrace      = time.Second
	DefaultPollBudget     = 4 * time.Millisecond
	DefaultMaxRestarts    = 5
	DefaultRestartBackoff = time.Second
	// maxUntakenResults bounds the results kept for TakeResult: a host that
	// never takes them loses the oldest, not memory.
	maxUntakenResults = 256
	maxMessagesKept   = 1000
	maxMessageBytes   = 4 << 20
	// maxProgressKept bounds the progress in flight kept for Progress, and
	// maxProgressJobs the *workers* jobs showing the server's own: a server
	// that begins work and never ends it cannot grow either without limit.
	maxProgressKept = 256
	maxProgressJobs = 64
)

// The teardown's budget: a server being stopped gets SIGTERM (its whole
// tree, see proc) StopGrace after shutdown, and SIGKILL killGrace after
// that; Close and Stop's job give up at CloseTimeout. With the default
// StopGrace, SIGTERM at 1 s, SIGKILL at 2 s and the reaping fit in 3 s.
const (
	// CloseTimeout bounds Close, and the job StopJob returns when
	// StopGrace is the default.
	CloseTimeout = 3 * time.Second
	killGrace    = time.Second
)

// ErrStopTimeout is the cause of a Close, or of StopJob's job, that gave
// up waiting for the server to be reaped.
var ErrStopTimeout = errors.New("lsp: the server did not end in time")

// Events of StopJob's job: cancelled, or past its bound.
type (
	evStopCancelled struct{ job runtime.JobID }
	evStopLimit     struct{ job runtime.JobID }
)

// Actor is the worker-pool actor the clients' own jobs run for (the
// initialize exchange on the heavy lane, folding a document's edits into
// its text on the read lane); an actor of their own keeps those jobs clear
// of the gates of the project roots' jobs.
const Actor workers.ActorID = "pmacs:lsp"

// Config describes a language server and how the client answers it.
type Config struct {
	// Argv is the server program and its arguments.
	Argv []string
	// Dir is the server's working directory; "" means the caller's.
	Dir string
	// Env holds "KEY=value" entries added to the environment the server
	// inherits from the editor; an entry overrides an inherited variable
	// of the same name, and a later entry an earlier one. nil adds none.
	Env []string
	// Root is the workspace folder path; "" means Dir.
	Root string
	// Settings answers workspace/configuration: an item's section is looked
	// up as a key, and an empty section gets the whole map.
	Settings map[string]any
	// InitializationOptions is sent as initialize's initializationOptions.
	InitializationOptions any
	// ApplyEdit applies a workspace/applyEdit from the server. It is called
	// on the main goroutine (inside Poll) and gives its answer through
	// answer, at once or later on the main goroutine: the server waits for
	// it, so a hook that must first wait (for the text of a file not yet
	// open) keeps answer and calls it when the edit is applied or refused.
	// Only the first call counts, and none once the client is stopping or
	// the server process that asked has died. nil refuses every edit with
	// a reason.
	ApplyEdit func(edit *protocol.WorkspaceEdit, answer func(applied bool, failureReason string))
	// ResourceOperations are the file operations ("create", "rename",
	// "delete") ApplyEdit carries out, advertised to the server as
	// workspace.workspaceEdit.resourceOperations; nil advertises none.
	ResourceOperations []string
	// StopGrace is how long Stop waits after shutdown before it sends
	// SIGTERM to the server's tree (SIGKILL follows a second later); 0
	// means DefaultStopGrace. Close waits at most a second, whatever it is.
	StopGrace time.Duration
	// PollBudget bounds the main-goroutine time one Poll spends on
	// messages, whatever the frame's budget; the rest wait for the next
	// Poll. 0 means DefaultPollBudget.
	PollBudget time.Duration
	// MaxRestarts is how many times, over the client's life, a server that
	// died is started again; 0 means DefaultMaxRestarts, a negative value
	// none.
	MaxRestarts int
	// RestartBackoff is the wait before the first restart, doubled before
	// each further one; 0 means DefaultRestartBackoff.
	RestartBackoff time.Duration
	// BeforeLaunch, when set, is asked before every start of the server
	// program, the first (inside Start) and each restart (inside Poll),
	// on the main goroutine with a copy of Argv: whether the program may
	// still run is decided then, not only once (the workspace it lies in
	// may have been untrusted since, or the file replaced). An error stops
	// that launch: Start returns it, and a restart ends the client for
	// good, no further restart, with the error as Err and as the cause of
	// the requests that waited for the new server. Either way it is
	// wrapped with ErrLaunchRefused.
	BeforeLaunch func(argv []string) error
	// Shape, when set, turns each result into the form the host consumes,
	// on the reader goroutine after it is decoded: it receives the method,
	// the result's raw JSON and the decoded value (see Result.Value), and
	// what it returns becomes Result.Value. An error fails the request.
	// The Lua binding shapes results into tables-to-be there, so the main
	// goroutine only builds the tables. Not called for initialize and
	// shutdown, whose results the client itself reads.
	Shape func(method string, raw jsontext.Value, decoded any) (any, error)
	// A panic in Shape fails that request with an error wrapping
	// ErrHookPanicked that gives the panic's value.
	//
	// ShapeDiagnostics, when set, turns each publishDiagnostics into the
	// form the host consumes, on the reader goroutine after it is decoded;
	// ShapedDiagnostics returns it for the latest publication. The Lua
	// binding builds the rows' tables there. A publication it panics on
	// is dropped (Stats.HookPanics counts it; the first is told in
	// TakeMessages).
	ShapeDiagnostics func(*protocol.PublishDiagnosticsParams) any
	// DocumentText gives an open document's current text when a restarted
	// server reopens it (called on the main goroutine, inside Poll); nil
	// uses the text the client last synced: the text Open sent with every
	// edit Change recorded since, saved or not.
	DocumentText func(path string) ([]byte, error)
	// MaxFrame is the largest message, in bytes, the client reads from the
	// server; 0 means DefaultMaxFrame (64 MiB), and it is clamped to
	// [MinMaxFrame, MaxMaxFrame]. A larger message is skipped unread as it
	// streams by (see the package doc, "Bounds").
	MaxFrame int
	// InboxBytes bounds the bytes of the server's messages read but not
	// yet handled by Poll: past it, the reader stops reading until Poll
	// catches up. 0 means DefaultInboxBytes (64 MiB); clamped to
	// [MinQueueBytes, MaxQueueBytes].
	InboxBytes int
	// OutboxBytes bounds the bytes of the client's messages the server has
	// not read yet: past it, the server is taken for hung and restarted
	// (see the package doc, "Bounds"). 0 means DefaultOutboxBytes (64
	// MiB); clamped to [MinQueueBytes, MaxQueueBytes].
	OutboxBytes int
}

// clampBytes is a byte bound of Config: def for 0 (or less), else v
// within [lo, hi].
func clampBytes(v, def, lo, hi int) int {
	if v <= 0 {
		return def
	}
	return min(max(v, lo), hi)
}

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

type lifecycle uint8

const (
	starting lifecycle = iota // initialize sent, not answered
	running
	restarting // the server died; a restart is scheduled
	stopping
	dead
)

type request struct {
	id       int64
	job      runtime.JobID // 0 for the client's own requests
	method   string
	sent     bool
	ctx      context.Context // the job's: ends on cancel and supersede
	stopCtx  func() bool
	timer    *time.Timer
	internal bool
	// token is the workDoneToken the params carried (canonical JSON), ""
	// for none: the server's $/progress on it shows on the job.
	token string
}

// queuedFrame is a message held until initialize has been answered.
type queuedFrame struct {
	id     int64 // 0 for a notification
	method string
	frame  outFrame
}

// A Client attaches to its runtime as mcp.Host does (see Poll).
var _ runtime.Poller = (*Client)(nil)

// Client is a language server client. Its methods belong to the goroutine
// that owns the runtime (see the package doc); only Ready's channel may be
// used elsewhere.
type Client struct {
	rt       *runtime.Runtime
	cfg      Config
	t        *transport
	p        *proc.Process
	done     chan struct{}
	doneOnce sync.Once
	// stopping is set by Stop; the exit watcher reads it to close done
	// without waiting for a Poll.
	stopping     atomic.Bool
	restarts     int
	restartTimer *time.Timer

	state   lifecycle
	nextID  int64
	initID  int64
	pending map[int64]*request
	preInit []queuedFrame
	exitErr error
	caps    *protocol.InitializeResult

	stopTimer *time.Timer
	// stopJob is StopJob's job (0 until asked for), settled once the
	// server has exited and been reaped; stopWatch ends its cancel
	// watcher and stopLimit fails it at its bound.
	stopJob   runtime.JobID
	stopWatch func() bool
	stopLimit *time.Timer
	lastExit  proc.Exit
	// cancelledAnswered counts requests cancelled after their reply was
	// read (Stats.CancelledAnswered).
	cancelledAnswered uint64

	results     map[runtime.JobID]Result
	resultOrder []runtime.JobID

	diags        map[uri.URI]*protocol.PublishDiagnosticsParams
	shapedDiags  map[uri.URI]any
	droppedDiags map[uri.URI]int // see DroppedDiagnostics
	changedDiags []uri.URI
	changedSet   map[uri.URI]struct{}
	progress     map[string]Progress
	// tokenJobs maps the workDoneToken of a pending request to its job;
	// progressJobs holds the jobs that show the server's own progress.
	tokenJobs    map[string]runtime.JobID
	progressJobs map[string]*progressJob
	progressDone []runtime.JobID // ended progress jobs, until taken
	messages     []Message
	messageBytes int
	docs         map[uri.URI]*document
	dirtyDocs    []*document
	// others orders the documents not open that have diagnostics, to
	// bound them (see keepDiagnostics).
	others diagOthers
	// heldBytes is what preInit holds, counted against Config.OutboxBytes
	// while the server has not answered initialize.
	heldBytes int
}

// Start starts the server in a process group of its own and sends
// initialize; it returns at once. Requests and notifications made before the
// server has answered initialize are held and sent, in order, once it has.
// A program that cannot start is an error wrapping proc's *proc.Error.
func Start(rt *runtime.Runtime, cfg Config) (*Client, error) {
	if rt == nil {
		return nil, fmt.Errorf("lsp: start: nil runtime")
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = DefaultStopGrace
	}
	if cfg.PollBudget <= 0 {
		cfg.PollBudget = DefaultPollBudget
	}
	if cfg.Root == "" {
		cfg.Root = cfg.Dir
	}
	if cfg.MaxRestarts == 0 {
		cfg.MaxRestarts = DefaultMaxRestarts
	}
	if cfg.RestartBackoff <= 0 {
		cfg.RestartBackoff = DefaultRestartBackoff
	}
	cfg.MaxFrame = clampBytes(cfg.MaxFrame, DefaultMaxFrame, MinMaxFrame, MaxMaxFrame)
	cfg.InboxBytes = clampBytes(cfg.InboxBytes, DefaultInboxBytes, MinQueueBytes, MaxQueueBytes)
	cfg.OutboxBytes = clampBytes(cfg.OutboxBytes, DefaultOutboxBytes, MinQueueBytes, MaxQueueBytes)
	if len(cfg.Argv) == 0 {
		return nil, fmt.Errorf("lsp: start: %w", proc.ErrEmptyCommand)
	}
	for _, op := range cfg.ResourceOperations {
		if op != "create" && op != "rename" && op != "delete" {
			return nil, fmt.Errorf("lsp: start: resource operation %q is not create, rename or delete", op)
		}
	}
	// false when an earlier client registered it: one actor serves all.
	rt.Executor().RegisterActor(Actor)
	c := &Client{
		rt: rt, cfg: cfg, t: newTransport(), done: make(chan struct{}),
		pending: map[int64]*request{}, results: map[runtime.JobID]Result{},
		diags: map[uri.URI]*protocol.PublishDiagnosticsParams{}, progress: map[string]Progress{},
		tokenJobs: map[string]runtime.JobID{}, progressJobs: map[string]*progressJob{},
		docs: map[uri.URI]*document{},
	}
	c.t.exec = rt.Executor()
	c.t.shape = cfg.Shape
	c.t.shapeDiags = cfg.ShapeDiagnostics
	c.t.maxFrame, c.t.maxInboxBytes, c.t.maxOutBytes = cfg.MaxFrame, cfg.InboxBytes, cfg.OutboxBytes
	if err := c.launch(); err != nil {
		return nil, err
	}
	return c, nil
}

// launch starts the server and sends initialize. Every goroutine of a
// previous launch has ended by then (its exit event was the last thing it
// did), so the transport is reset, not replaced.
func (c *Client) launch() error {
	cfg := c.cfg
	if cfg.BeforeLaunch != nil {
		if err := cfg.BeforeLaunch(slices.Clone(cfg.Argv)); err != nil {
			return fmt.Errorf("lsp: start %v: %w: %w", cfg.Argv, ErrLaunchRefused, err)
		}
	}
	c.t.reset()
	fr := newFramer(cfg.MaxFrame, c.t.onBody, func(string) { c.t.malformed.Add(1) })
	fr.onOversize, fr.onBroken = c.t.onOversize, c.t.onBroken
	var env []string
	if cfg.Env != nil {
		env = append(os.Environ(), cfg.Env...)
	}
	p, err := proc.Start(context.Background(), proc.Spec{
		Argv: cfg.Argv, Dir: cfg.Dir, Env: env, StdinPipe: true,
		// The reader goroutine is proc's: frames are assembled and decoded
		// inside Output, and blocking there is the backpressure.
		Output: func(s proc.Stream, chunk []byte) error {
			if s == proc.Stderr {
				c.t.onStderr(chunk)
				return nil
			}
			fr.feed(chunk)
			return nil
		},
		// A dead server's pipes held open by a grandchild must not delay
		// noticing its death past a frame or two.
		WaitDelay: 50 * time.Millisecond,
		KillGrace: killGrace,
	})
	if err != nil {
		return fmt.Errorf("lsp: start %v: %w", cfg.Argv, err)
	}
	c.p = p
	c.t.setKill(p.Kill)
	var writer sync.WaitGroup
	writer.Add(1)
	go func() {
		defer writer.Done()
		c.t.writeLoop(p.Stdin())
	}()
	// The exit watcher: proc's Wait returns once the server has exited,
	// its whole tree has ended and it has been reaped.
	go func() {
		ex, werr := p.Wait()
		exit := describeExit(cfg.Argv[0], p)
		c.t.markClosed()
		writer.Wait()
		if werr != nil {
			exit = fmt.Sprintf("%s: %v", exit, werr)
		}
		c.t.push(evExit{err: fmt.Errorf("%w (%s)", ErrServerExited, exit), exit: ex}, false)
		if c.stopping.Load() {
			c.finish()
		}
	}()
	c.state = starting
	c.initID = c.newRequest(protocol.MethodInitialize, 0, true).id
	c.t.track(c.initID, protocol.MethodInitialize)
	c.pending[c.initID].sent = true
	// Initialize runs on the heavy lane, both halves: this job encodes the
	// request, and the reader hands the reply to another that decodes the
	// capabilities (transport.onResponse). Nothing else may be sent before
	// it, so the queue has nothing to overtake.
	id, t := c.initID, c.t
	c.rt.Executor().Submit(context.Background(), workers.Task{
		Actor: Actor, Lane: workers.LaneHeavy, Name: "lsp initialize request",
		Run: func(context.Context, workers.Actor) (any, error) {
			t.send(c.encodeRequest(id, protocol.MethodInitialize, c.initializeParams()))
			return nil, nil
		},
		Done: func(r workers.Result) {
			if r.Err != nil {
				t.push(evResponse{id: id, method: protocol.MethodInitialize, err: r.Err}, false)
			}
		},
	})
	return nil
}

// finish closes Done once: the server is gone for good.
func (c *Client) finish() { c.doneOnce.Do(func() { close(c.done) }) }

// describeExit names the program and how it ended, for the message every
// request its death failed carries.
func describeExit(prog string, p *proc.Process) string {
	ex, _ := p.Wait()
	if ex.Signal != "" {
		return fmt.Sprintf("%s, pid %d, killed by %s", filepath.Base(prog), p.Pid(), ex.Signal)
	}
	return fmt.Sprintf("%s, pid %d, exit code %d", filepath.Base(prog), p.Pid(), ex.Code)
}

// Ready receives a token when messages from the server (or a timeout, a
// cancel, the server's exit) wait for Poll. The runtime forwards it to its
// own Ready once the client is registered (Runtime.AddPoller).
func (c *Client) Ready() <-chan struct{} { return c.t.ready }

// Done is closed once the server has exited for good, its tree has ended,
// it has been reaped and the transport's goroutines have ended: after Stop,
// or once Poll has handled a death that no restart follows. After Stop, one
// more Poll handles the exit (it fails what is still pending and settles
// StopJob's job); Close does that itself.
func (c *Client) Done() <-chan struct{} { return c.done }

// Poll handles what the transport has decoded and returns how many
// messages and lifecycle events it handled: it settles requests (their
// runtime jobs settle in the Tick that polls, or the next), stores
// diagnostics, progress and messages, answers the server's requests, and
// sends the document changes made since the last Poll as one didChange per
// document. It spends at most Config.PollBudget on events, and at most
// budget when budget is positive; events left wait for the next Poll, and
// Ready is signalled for them. It is the client's runtime.Poller method:
// registered with Runtime.AddPoller, the client is polled by every Tick,
// with what is left of the frame.
func (c *Client) Poll(budget time.Duration) int {
	if budget <= 0 {
		budget = c.cfg.PollBudget
	} else {
		budget = min(budget, c.cfg.PollBudget)
	}
	if len(c.progressDone) > 0 {
		c.reapProgressJobs()
	}
	start := time.Now()
	n := 0
	for {
		evs, more := c.t.take(64)
		for _, ev := range evs {
			c.handle(ev)
		}
		n += len(evs)
		if !more {
			break
		}
		if time.Since(start) >= budget {
			c.t.signal()
			break
		}
	}
	c.flushChanges()
	return n
}

// maxChangedDiagnostics bounds the documents TakeChangedDiagnostics
// lists: a host that never takes them loses the oldest, not memory.
const maxChangedDiagnostics = 4096

// TakeChangedDiagnostics returns the documents whose diagnostics changed
// since it was last called, each once however many times the server
// published them, by canonical URI (fileuri.Canonical) whatever the
// server's spelling; at most the 4,096 most recently changed.
func (c *Client) TakeChangedDiagnostics() []uri.URI {
	c.dropOldChanges()
	out := c.changedDiags
	c.changedDiags = nil
	clear(c.changedSet)
	return out
}

func (c *Client) handle(ev any) {
	switch e := ev.(type) {
	case evResponse:
		c.onResponse(e)
	case evNotification:
		c.onNotification(e)
	case evServerRequest:
		c.onServerRequest(e)
	case evCancel:
		if r := c.pending[e.id]; r != nil {
			c.abandon(r)
			c.settle(r, Result{Method: r.method, Err: context.Canceled}, true)
		}
	case evTimeout:
		if r := c.pending[e.id]; r != nil {
			c.abandon(r)
			c.settle(r, Result{Method: r.method, Err: fmt.Errorf("%w: %s", ErrTimeout, r.method)}, false)
		}
	case evCompacted:
		c.onCompacted(e)
	case evProgressCancel:
		c.onProgressCancel(e)
	case evNotice:
		c.keepMessage(Message{Show: true, Type: 1, Text: e.text})
	case evExit:
		c.lastExit = e.exit
		c.clearAllDiagnostics()
		c.onExit(c.t.exitCause(e.err))
	case evStopCancelled:
		if e.job == c.stopJob {
			c.rt.CompleteExternalCancelled(c.stopJob)
			c.endStopJob()
		}
	case evStopLimit:
		if e.job == c.stopJob {
			c.rt.CompleteExternalFailed(c.stopJob, fmt.Errorf("lsp: stop %s: %w: the server has not been reaped within %v",
				filepath.Base(c.cfg.Argv[0]), ErrStopTimeout, c.stopBound()))
			c.endStopJob()
		}
	case evRestart:
		if c.state == restarting {
			if err := c.launch(); err != nil {
				if errors.Is(err, ErrLaunchRefused) {
					// Asking again after a backoff would not make the
					// program any more acceptable: the client ends here.
					c.state, c.exitErr = dead, err
				}
				c.onExit(err)
			}
		}
	}
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
	}
	c.settle(r, res, false)
}

func (c *Client) onInitialized(e evResponse) {
	if e.rerr != nil || e.err != nil {
		// e.rerr is a pointer: only a non-nil one may become the error
		// (a nil *wireError in an error interface is not a nil error).
		err := e.err
		if e.rerr != nil {
			err = e.rerr
		}
		c.exitErr = fmt.Errorf("lsp: initialize failed: %w", err)
		c.failAll(c.exitErr)
		c.state = stopping
		c.p.Kill()
		return
	}
	c.caps, _ = e.result.(*protocol.InitializeResult)
	if c.state != starting {
		return
	}
	c.state = running
	// A restarted server runs again: the death that stopped the last one
	// is no longer why the client is not running.
	c.exitErr = nil
	c.sendNow(c.encodeNotification(protocol.MethodInitialized, map[string]any{}))
	for _, q := range c.preInit {
		if q.id != 0 {
			r := c.pending[q.id]
			if r == nil {
				continue // cancelled or timed out while queued
			}
			r.sent = true
			c.t.track(q.id, q.method)
		}
		c.t.sendFrame(q.frame)
	}
	c.preInit = nil
}

func (c *Client) onExit(err error) {
	if c.stopTimer != nil {
		c.stopTimer.Stop()
	}
	c.failAll(err)
	c.endAllProgress(err)
	c.preInit = nil
	if c.state == stopping || c.state == dead || c.restarts >= c.cfg.MaxRestarts {
		c.state = dead
		if c.exitErr == nil {
			c.exitErr = err
		}
		c.finish()
		c.settleStopJob()
		return
	}
	c.exitErr = err
	c.state = restarting
	c.restarts++
	c.reopenDocuments()
	delay := c.cfg.RestartBackoff << (c.restarts - 1)
	t := c.t
	c.restartTimer = time.AfterFunc(delay, func() { t.push(evRestart{}, false) })
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
	job, ctx := c.rt.RegisterExternal(runtime.KindLSPRequest, opts.Key)
	r := c.newRequest(method, job, false)
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
	c.t.track(id, method)
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

// Stop asks the server to shut down: pending requests fail with
// ErrStopped, shutdown is sent and exit follows its reply; StopGrace later
// (1 s by default) the server's whole tree gets SIGTERM if the server is
// still there, and SIGKILL a second after that. It does not wait; Done
// tells when the server is gone, StopJob gives a job for it. Idempotent.
func (c *Client) Stop() {
	if c.state == dead || c.state == stopping {
		return
	}
	c.stopping.Store(true)
	was := c.state
	c.state = stopping
	c.failAll(ErrStopped)
	c.endAllProgress(ErrStopped)
	c.preInit = nil
	if was == restarting {
		// No server runs between a death and its restart.
		c.restartTimer.Stop()
		c.state = dead
		c.finish()
		c.settleStopJob()
		return
	}
	if was == running {
		r := c.newRequest(protocol.MethodShutdown, 0, true)
		c.t.shutdownID.Store(r.id)
		r.sent = true
		c.t.track(r.id, protocol.MethodShutdown)
		c.t.send(c.encodeRequest(r.id, protocol.MethodShutdown, nil))
	} else {
		// Nothing may be sent before initialize is answered, shutdown
		// included, so a server still starting only gets its input closed.
		c.t.endInput()
	}
	p := c.p
	c.stopTimer = time.AfterFunc(c.cfg.StopGrace, p.Terminate)
}

// StopJob stops the server (see Stop) and returns a job (kind
// lsp_request) that completes once the server has exited, its whole tree
// has ended and it has been reaped, with the server's last exit as its
// value: {code, signal} (signal "" unless a signal ended it). It fails
// with ErrStopTimeout if that has not happened StopGrace plus two seconds
// after the stop (3 s with the default StopGrace), and is cancelled like
// any job, which only ends the wait. Calling it again returns the same job
// until it has settled, and a settled one's next call a new job that
// completes at once. Its outcome is taken like a request's
// (runtime.TakeResult).
func (c *Client) StopJob() runtime.JobID {
	if c.stopJob != 0 {
		return c.stopJob
	}
	id, ctx := c.rt.RegisterExternal(runtime.KindLSPRequest, "")
	c.stopJob = id
	t := c.t
	c.stopWatch = context.AfterFunc(ctx, func() { t.push(evStopCancelled{job: id}, false) })
	c.Stop()
	if c.state == dead {
		c.settleStopJob()
		return id
	}
	c.stopLimit = time.AfterFunc(c.stopBound(), func() { t.push(evStopLimit{job: id}, false) })
	return id
}

// stopBound is how long StopJob's job waits for the server to be reaped.
func (c *Client) stopBound() time.Duration { return c.cfg.StopGrace + killGrace + time.Second }

// settleStopJob completes StopJob's job, if there is one, with the last
// exit: the server is gone for good.
func (c *Client) settleStopJob() {
	if c.stopJob == 0 {
		return
	}
	v := map[string]any{"code": c.lastExit.Code}
	if c.lastExit.Signal != "" {
		v["signal"] = c.lastExit.Signal
	}
	_ = c.rt.CompleteExternalOK(c.stopJob, v)
	c.endStopJob()
}

// endStopJob forgets StopJob's job once it is settled.
func (c *Client) endStopJob() {
	if c.stopWatch != nil {
		c.stopWatch()
	}
	if c.stopLimit != nil {
		c.stopLimit.Stop()
	}
	c.stopJob, c.stopWatch, c.stopLimit = 0, nil, nil
}

// Close stops the server and waits until it is gone and its exit handled,
// so every request has settled (at the runtime's next Tick) when it
// returns. It returns within CloseTimeout (3 s) whatever the server does:
// after shutdown, the server's tree gets SIGTERM at most a second later
// (sooner with a shorter StopGrace) and SIGKILL a second after that; an
// error wrapping ErrStopTimeout says the server had still not been reaped
// at CloseTimeout (a process stuck in the kernel), and its goroutines end
// once it is. Close polls while it waits: a reader blocked on a full inbox
// must be drained before it can read the shutdown reply, or before proc
// can finish delivering a dead server's output.
func (c *Client) Close() error { return CloseAll(c) }

// closeStep is a step of Close's escalation: at is counted from the
// start of the close; do nil means giving up.
type closeStep struct {
	at time.Duration
	do func(*proc.Process)
}

// CloseAll closes the clients side by side, on the goroutine that owns
// their runtime: it stops them all first, then waits for them as Close
// does, each escalating on one shared clock, so the whole wait stays
// within CloseTimeout however many clients there are (closing them one
// after the other could take CloseTimeout each). The error joins the
// Close error of each client that had one.
func CloseAll(clients ...*Client) error {
	type closing struct {
		c     *Client
		steps []closeStep
	}
	var open []*closing
	for _, c := range clients {
		if c == nil {
			continue
		}
		c.Stop()
		grace := min(c.cfg.StopGrace, time.Second)
		open = append(open, &closing{c: c, steps: []closeStep{
			{grace, (*proc.Process).Terminate},
			{grace + killGrace, (*proc.Process).Kill},
			{CloseTimeout, nil},
		}})
	}
	var errs []error
	start := time.Now()
	timer := time.NewTimer(CloseTimeout)
	defer timer.Stop()
	// cases holds each open client's Done and Ready, then the timer.
	var cases []reflect.SelectCase
	for len(open) > 0 {
		next := CloseTimeout
		cases = cases[:0]
		for _, o := range open {
			next = min(next, o.steps[0].at)
			cases = append(cases,
				reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(o.c.done)},
				reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(o.c.t.ready)})
		}
		timer.Reset(max(next-time.Since(start), 0))
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(timer.C)})
		// Reset, on the next round, leaves no stale tick to receive.
		chosen, _, _ := reflect.Select(cases)
		switch {
		case chosen == len(cases)-1:
			elapsed := time.Since(start)
			keep := open[:0]
			for _, o := range open {
				for o.steps[0].at <= elapsed && o.steps[0].do != nil {
					o.steps[0].do(o.c.p)
					o.steps = o.steps[1:]
				}
				if o.steps[0].at <= elapsed {
					errs = append(errs, fmt.Errorf("lsp: close %s: %w: the server has not been reaped within %v",
						filepath.Base(o.c.cfg.Argv[0]), ErrStopTimeout, CloseTimeout))
					continue
				}
				keep = append(keep, o)
			}
			open = keep
		case chosen%2 == 0:
			// The exit event is queued before Done closes.
			o := open[chosen/2]
			for o.c.state != dead {
				o.c.Poll(0)
			}
			open = slices.Delete(open, chosen/2, chosen/2+1)
		default:
			open[chosen/2].c.Poll(0)
		}
	}
	return errors.Join(errs...)
}

// Capabilities returns the server's initialize result, nil until it has
// answered.
func (c *Client) Capabilities() *protocol.InitializeResult { return c.caps }

// Initialized reports whether the server has answered initialize and the
// client is running.
func (c *Client) Initialized() bool { return c.state == running }

// Err returns why the client stopped: an error wrapping ErrServerExited,
// the initialize failure, or nil while it runs.
func (c *Client) Err() error { return c.exitErr }

// Stderr returns the tail (64 KiB at most) of what the server wrote to its
// standard error.
func (c *Client) Stderr() string {
	c.t.stderrMu.Lock()
	defer c.t.stderrMu.Unlock()
	return string(c.t.stderr)
}

// Stats counts what the transport saw.
type Stats struct {
	// Received is how many frames were read.
	Received uint64
	// Malformed counts frames dropped for a bad header or invalid JSON.
	Malformed uint64
	// UnknownReplies counts replies for an id never sent (or answered twice).
	UnknownReplies uint64
	// LateReplies counts replies to requests already given up; they are
	// dropped without being decoded.
	LateReplies uint64
	// CancelledAnswered counts requests cancelled or superseded after
	// their reply had been read: they settle Cancelled like the others but
	// send no $/cancelRequest, since the server has answered them.
	CancelledAnswered uint64
	// Oversized counts messages over Config.MaxFrame, skipped unread.
	Oversized uint64
	// HookPanics counts panics of Config.Shape and ShapeDiagnostics.
	HookPanics uint64
	// Pending is how many requests wait for a reply or for initialize.
	Pending int
	// DecodeTime is the time spent decoding (and shaping, see
	// Config.Shape) results on the reader goroutine, in total, and
	// MaxDecode the longest single decode: work the main goroutine did not
	// do.
	DecodeTime, MaxDecode time.Duration
}

// Stats returns the transport's counters.
func (c *Client) Stats() Stats {
	return Stats{
		Received:          c.t.received.Load(),
		Malformed:         c.t.malformed.Load(),
		UnknownReplies:    c.t.unknown.Load(),
		LateReplies:       c.t.late.Load(),
		CancelledAnswered: c.cancelledAnswered,
		Oversized:         c.t.oversized.Load(),
		HookPanics:        c.t.hookPanics.Load(),
		Pending:           len(c.pending),
		DecodeTime:        time.Duration(c.t.decodeNanos.Load()),
		MaxDecode:         time.Duration(c.t.maxDecode.Load()),
	}
}

func marshalParams(params any) ([]byte, error) {
	if params == nil {
		return nil, nil
	}
	return protocol.Marshal(params)
}

func (c *Client) tryEncodeRequest(id int64, method string, params any) ([]byte, error) {
	body, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	return c.requestFrame(id, method, body), nil
}

func (c *Client) encodeRequest(id int64, method string, params any) []byte {
	f, err := c.tryEncodeRequest(id, method, params)
	if err != nil {
		panic(fmt.Sprintf("lsp: encode %s: %v", method, err)) // the client's own params always encode
	}
	return f
}

func (c *Client) encodeNotification(method string, params any) []byte {
	body, err := marshalParams(params)
	if err != nil {
		panic(fmt.Sprintf("lsp: encode %s: %v", method, err)) // the client's own params always encode
	}
	return c.notificationFrame(method, body)
}

func (c *Client) requestFrame(id int64, method string, params []byte) []byte {
	b := make([]byte, 0, 64+len(method)+len(params))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	return c.finishFrame(b, method, params)
}

func (c *Client) notificationFrame(method string, params []byte) []byte {
	b := make([]byte, 0, 64+len(method)+len(params))
	b = append(b, `{"jsonrpc":"2.0"`...)
	return c.finishFrame(b, method, params)
}

func (c *Client) finishFrame(b []byte, method string, params []byte) []byte {
	b = append(b, `,"method":`...)
	b, _ = jsontext.AppendQuote(b, method)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	b = append(b, '}')
	return appendFrame(nil, b)
}

func (c *Client) responseFrame(id jsontext.Value, result any, rerr *wireError) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = append(b, id...)
	if rerr != nil {
		b = append(b, `,"error":`...)
		body, _ := protocol.Marshal(map[string]any{"code": rerr.Code, "message": rerr.Message})
		b = append(b, body...)
	} else {
		body, err := marshalParams(result)
		if err != nil || body == nil {
			body = []byte("null")
		}
		b = append(b, `,"result":`...)
		b = append(b, body...)
	}
	b = append(b, '}')
	return appendFrame(nil, b)
}

// codeActionKinds are the code action kinds the client asks for.
var codeActionKinds = []string{"", "quickfix", "refactor", "refactor.extract", "refactor.inline",
	"refactor.rewrite", "source", "source.organizeImports", "source.fixAll"}

func (c *Client) initializeParams() map[string]any {
	root := docURI(c.cfg.Root)
	name := "root"
	if c.cfg.Root == "" {
		root, name = "", ""
	}
	workspaceEdit := map[string]any{"documentChanges": true}
	if len(c.cfg.ResourceOperations) > 0 {
		workspaceEdit["resourceOperations"] = c.cfg.ResourceOperations
	}
	p := map[string]any{
		"processId":  nil,
		"clientInfo": map[string]any{"name": "pmacs"},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{textpos.UTF16.String()}},
			"window":  map[string]any{"workDoneProgress": true, "showMessage": map[string]any{}},
			"workspace": map[string]any{
				"applyEdit": true, "configuration": true, "workspaceFolders": true,
				"workspaceEdit":  workspaceEdit,
				"executeCommand": map[string]any{},
			},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": true, "dynamicRegistration": false},
				"publishDiagnostics": map[string]any{"relatedInformation": true, "versionSupport": true},
				"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"completion":         map[string]any{"completionItem": map[string]any{"snippetSupport": false}},
				"definition":         map[string]any{},
				"references":         map[string]any{},
				"rename":             map[string]any{},
				"formatting":         map[string]any{},
				// Code actions as literals, each with its edit or its
				// command; no resolveSupport, so a server sends what an
				// action does with the action.
				"codeAction": map[string]any{
					"codeActionLiteralSupport": map[string]any{"codeActionKind": map[string]any{"valueSet": codeActionKinds}},
					"isPreferredSupport":       true,
					"disabledSupport":          true,
				},
				"semanticTokens": map[string]any{
					"requests":       map[string]any{"full": true, "range": true},
					"tokenTypes":     semanticTokenTypes,
					"tokenModifiers": semanticTokenModifiers,
					"formats":        []string{"relative"},
				},
			},
		},
	}
	if c.cfg.InitializationOptions != nil {
		p["initializationOptions"] = c.cfg.InitializationOptions
	}
	if root != "" {
		p["rootUri"] = string(root)
		p["workspaceFolders"] = []map[string]any{{"uri": string(root), "name": name}}
	} else {
		p["rootUri"] = nil
	}
	return p
}
