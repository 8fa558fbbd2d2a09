package lsp

import (
	"context"
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

// Actor is the worker-pool actor the clients' own jobs run for (the
// initialize exchange on the heavy lane, folding a document's edits into
// its text on the read lane); an actor of their own keeps those jobs clear
// of the gates of the project roots' jobs.
const Actor workers.ActorID = "pmacs:lsp"

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
	// raw requests skip Config.Shape; post, when set, finishes their
	// decoded result on the main goroutine before it settles.
	raw  bool
	post func(any) (any, error)
	// decode, when set, decodes the result on the reader in place of the
	// method's decoder (outstanding.decode).
	decode func(jsontext.Value) (any, error)
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
	// rawCaps and regs are what the server can do (capabilities.go).
	rawCaps map[string]jsontext.Value
	regs    []Registration
	// enc is the position encoding the server chose (Encoding).
	enc textpos.Encoding
	// watchersChanged: the file watchers may have changed since
	// TakeWatchersChanged was last called (watched.go).
	watchersChanged bool
	// semantic keeps each document's last semantic tokens for deltas
	// (semantic_delta.go); semanticOrder is the order they came in.
	semantic      map[uri.URI]semState
	semanticOrder []uri.URI

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

	diags map[uri.URI]*protocol.PublishDiagnosticsParams
	// pullIDs are the resultIds of the documents' last pulled reports
	// (pulldiag.go); diagRefresh is set by workspace/diagnostic/refresh.
	pullIDs      map[uri.URI]string
	diagRefresh  bool
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
