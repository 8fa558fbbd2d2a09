package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pmacs-go/pmacs-go/fileuri"
	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// Defaults of Spec's durations.
const (
	DefaultConnectTimeout = 10 * time.Second
	// CloseTimeout bounds Conn.Close and Host.Close.
	CloseTimeout = 3 * time.Second
	// closeGrace is how long a server has to exit on its own once its
	// input ended before its group is killed.
	closeGrace = 1 * time.Second
	stderrTail = 8 << 10
)

// waitDelay is proc's bound on pipes held open after the server exited; a
// variable so that a test can make the server's end outlast CloseTimeout.
var waitDelay = 500 * time.Millisecond

// Spec says which server to connect to: a program (Argv) spoken to over
// its standard input and output, or a streamable HTTP endpoint (URL).
type Spec struct {
	// Argv is the server program and its arguments.
	Argv []string
	// Env holds "KEY=value" entries added to the environment the server
	// inherits from the editor; an entry overrides an inherited variable
	// of the same name, and a later entry an earlier one. nil adds none.
	Env []string
	// Dir is the server's working directory; "" means the editor's.
	Dir string
	// URL is a streamable HTTP endpoint, instead of Argv.
	URL string
	// HTTPClient is used for URL; nil means http.DefaultClient.
	HTTPClient *http.Client
	// ConnectTimeout bounds start and initialize; 0 means
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// Roots are the directories the server is told it may work in: its
	// roots/list is answered with exactly these, as file URIs (relative
	// paths are made absolute). Nil tells the server of no roots and does
	// not offer the roots capability at all; an empty, non-nil list offers
	// it with no root. The list never changes during the connection.
	Roots []string
	// MaxMessage is the largest message, in bytes, the client reads from
	// the server: a line of JSON-RPC from a program, a response body or a
	// server-sent event from an HTTP server. A larger one ends the
	// connection (see the package doc, "Bounds"). 0 means
	// DefaultMaxMessage (64 MiB); clamped to [MinMaxMessage,
	// MaxMaxMessage].
	MaxMessage int
}

// Bounds of Spec.MaxMessage.
const (
	DefaultMaxMessage = 64 << 20
	MinMaxMessage     = 64 << 10
	MaxMaxMessage     = 1 << 30
)

func (s Spec) maxMessage() int {
	if s.MaxMessage <= 0 {
		return DefaultMaxMessage
	}
	return min(max(s.MaxMessage, MinMaxMessage), MaxMaxMessage)
}

func (s Spec) name() string {
	if s.URL != "" {
		return strconv.Quote(s.URL)
	}
	if len(s.Argv) > 0 {
		return strconv.Quote(s.Argv[0])
	}
	return `""`
}

// Conn is a connection to one MCP server, made by Host.Dial or
// Host.Connect. Close, Done, Ready, Err, Stderr, Progress, Pid, Name and
// ServerInfo are safe from any goroutine; the methods that start requests
// (Call, Tools, Resources, ReadResource, Prompts) register runtime jobs and
// so belong to the main goroutine.
type Conn struct {
	host *Host
	name string
	cs   *sdk.ClientSession

	// abort ends every HTTP request of an HTTP connection.
	abort context.CancelFunc

	// Present for a stdio server only.
	proc   *proc.Process
	stdin  *onceCloser
	stdout *io.PipeReader
	stderr *tail
	// discard is set once nothing reads the server's output any more.
	discard atomic.Bool
	// maxMessage is Spec.MaxMessage, clamped; lineLen is how many bytes
	// of stdout came since its last newline (touched only by proc's
	// reader, one call at a time).
	maxMessage int
	lineLen    int

	ready         chan struct{} // closed once initialize has finished
	connErr       error         // its failure; read after ready
	cancelConnect context.CancelFunc

	mu       sync.Mutex
	calls    map[runtime.JobID]*call
	closed   bool
	tooLarge error // set once the server sent a message over maxMessage
	exitErr  error // set once the server process is gone
	done     chan struct{}
	wg       sync.WaitGroup
	closing  sync.Once
	closeErr error
}

// call is a pending request, guarded by Conn.mu.
type call struct {
	cancel   context.CancelCauseFunc
	progress Progress
	seen     bool
}

// Progress is the latest progress notification of a pending call.
type Progress struct {
	Progress float64
	Total    float64 // 0 when unknown
	Message  string
	Count    int // notifications received so far
}

// Connect is Dial followed by waiting until the MCP initialize handshake
// has finished: a program that cannot start, exits, writes something that
// is not MCP, or stays silent for spec.ConnectTimeout fails with a
// *ConnectError naming the reason, and nothing is left running. ctx bounds
// the wait too. Safe from any goroutine; it blocks, so an editor's main
// loop uses Dial.
func (h *Host) Connect(ctx context.Context, spec Spec) (*Conn, error) {
	c, err := h.Dial(spec)
	if err != nil {
		return nil, err
	}
	select {
	case <-c.ready:
	case <-ctx.Done():
		_ = c.Close()
		return nil, &ConnectError{Name: c.name, Reason: "gave up waiting", Err: context.Cause(ctx)}
	}
	if c.connErr != nil {
		_ = c.Close()
		return nil, c.connErr
	}
	return c, nil
}

// Dial starts the server program (or prepares the HTTP session) and returns
// at once, while the initialize handshake runs on a goroutine of its own
// for at most spec.ConnectTimeout. Requests made before it has finished wait
// for it (their timeouts and cancellation still apply); if it fails, they
// fail with the *ConnectError (code CodeConnectFailed), Err returns it, and
// the server is stopped. Only a bad spec or a program that cannot start
// fail Dial itself. Safe from any goroutine; it does not block.
func (h *Host) Dial(spec Spec) (*Conn, error) {
	if (spec.URL == "") == (len(spec.Argv) == 0) {
		return nil, fmt.Errorf("mcp: connect: exactly one of Argv and URL is required")
	}
	timeout := spec.ConnectTimeout
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	roots, err := fileRoots(spec.Roots)
	if err != nil {
		return nil, fmt.Errorf("mcp: connect: %w", err)
	}
	c := &Conn{host: h, name: spec.name(), calls: make(map[runtime.JobID]*call),
		done: make(chan struct{}), ready: make(chan struct{}), maxMessage: spec.maxMessage()}
	var t sdk.Transport
	if spec.URL != "" {
		var hc *http.Client
		hc, c.abort = abortableClient(spec.HTTPClient, c.maxMessage, c.overLimit)
		// The SDK's own bound on an event stays above this package's, which
		// sees the bytes first and says why.
		t = &sdk.StreamableClientTransport{Endpoint: spec.URL, HTTPClient: hc, DisableStandaloneSSE: true,
			MaxEventSize: c.maxMessage + sdkSlack}
	} else {
		var err error
		if t, err = c.spawn(spec); err != nil {
			return nil, err
		}
	}
	cctx, cancel := context.WithTimeout(context.Background(), timeout)
	c.cancelConnect = cancel
	c.wg.Add(1)
	go c.handshake(cctx, t, roots)
	if !h.add(c) {
		_ = c.teardown(ErrClosed)
		return nil, fmt.Errorf("mcp: connect %s: %w", c.name, ErrClosed)
	}
	return c, nil
}

// handshake runs initialize and publishes its outcome by closing c.ready.
// roots nil offers no roots capability (the SDK's default would offer one,
// with an empty list); otherwise the client answers roots/list with them.
func (c *Conn) handshake(ctx context.Context, t sdk.Transport, roots []*sdk.Root) {
	defer c.wg.Done()
	defer c.cancelConnect()
	caps := &sdk.ClientCapabilities{}
	if roots != nil {
		// The list never changes, so listChanged is not offered.
		caps.RootsV2 = &sdk.RootCapabilities{}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "pmacs", Version: "1"}, &sdk.ClientOptions{
		Capabilities:                caps,
		ProgressNotificationHandler: c.onProgress,
	})
	client.AddRoots(roots...) //nolint:staticcheck // roots stay in the protocol's deprecation window; servers still read them
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		err = c.connectError(ctx, err)
	}
	c.mu.Lock()
	c.cs, c.connErr = cs, err
	c.mu.Unlock()
	// Published before the server is killed, so that waiting calls and
	// the watcher see the failed handshake as the cause, not the kill.
	close(c.ready)
	if err != nil && c.proc != nil {
		// Nothing may stay running after a failed connect, whether or
		// not anyone calls Close.
		c.stopReading()
		c.proc.Kill()
	}
}

// fileRoots makes Spec.Roots the SDK's roots: absolute file URIs, each
// named by its directory's base name; nil stays nil.
func fileRoots(paths []string) ([]*sdk.Root, error) {
	if paths == nil {
		return nil, nil
	}
	roots := make([]*sdk.Root, 0, len(paths))
	for _, p := range paths {
		if p == "" {
			return nil, errors.New("a root is an empty path")
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("root %q: %w", p, err)
		}
		roots = append(roots, &sdk.Root{URI: fileuri.FromPath(abs), Name: filepath.Base(abs)})
	}
	return roots, nil
}

// spawn runs the server program and returns the transport over its pipes.
func (c *Conn) spawn(spec Spec) (sdk.Transport, error) {
	pr, pw := io.Pipe()
	c.stdout, c.stderr = pr, &tail{max: stderrTail}
	var env []string
	if len(spec.Env) > 0 {
		env = append(os.Environ(), spec.Env...)
	}
	p, err := proc.Start(context.Background(), proc.Spec{
		Argv: spec.Argv, Dir: spec.Dir, Env: env, StdinPipe: true, WaitDelay: waitDelay,
		Output: func(s proc.Stream, chunk []byte) error {
			if s == proc.Stdout {
				if c.lineOverLimit(chunk) {
					// Counted before the SDK buffers them: a line over
					// the limit ends the connection. The error makes
					// proc stop the server's group and drop the rest.
					err := fmt.Errorf("%w: the server wrote a line of more than %d bytes (Spec.MaxMessage)", ErrMessageTooLarge, c.maxMessage)
					c.overLimit(err)
					pw.CloseWithError(err)
					return err
				}
				// Blocks until the SDK's reader took the bytes: the
				// server is throttled to the client's pace. Once the
				// session is over, what the server still writes is
				// drained and dropped, so it can never block there and
				// proc can finish.
				_, err := pw.Write(chunk)
				if err != nil && c.discard.Load() {
					return nil
				}
				return err
			}
			_, _ = c.stderr.Write(chunk)
			return nil
		},
	})
	if err != nil {
		pr.Close()
		return nil, &ConnectError{Name: c.name, Reason: "cannot start the server", Err: err}
	}
	c.proc, c.stdin = p, &onceCloser{w: p.Stdin()}
	c.wg.Add(1)
	go c.watch(pw)
	return &sdk.IOTransport{Reader: keepOpen{pr}, Writer: c.stdin, MaxLineLength: c.maxMessage + sdkSlack}, nil
}

// sdkSlack puts the SDK's own bounds on a message above Spec.MaxMessage:
// this package sees the bytes first, counts them exactly and says why.
const sdkSlack = 1 << 20

// lineOverLimit counts a chunk of the server's stdout into the line it
// continues and reports whether a line has passed maxMessage. Once it has,
// every later chunk is over too: the connection is over.
func (c *Conn) lineOverLimit(chunk []byte) bool {
	if c.lineLen > c.maxMessage {
		return true
	}
	for {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			c.lineLen += len(chunk)
			return c.lineLen > c.maxMessage
		}
		if c.lineLen+i > c.maxMessage {
			c.lineLen += i
			return true
		}
		c.lineLen = 0
		chunk = chunk[i+1:]
	}
}

// overLimit ends the connection for a message over Spec.MaxMessage: every
// pending call fails with err at once, so do later ones (Err returns it),
// and an HTTP server's requests are aborted (a program's group is stopped
// by proc, told by the Output callback's error). Safe from any goroutine;
// the first message over wins.
func (c *Conn) overLimit(err error) {
	c.mu.Lock()
	if c.tooLarge != nil {
		c.mu.Unlock()
		return
	}
	c.tooLarge = err
	for _, cl := range c.calls {
		cl.cancel(err)
	}
	c.mu.Unlock()
	if c.abort != nil {
		c.abort()
	}
}

// watch waits for the server process to end, then fails every pending call
// with the reason at once and ends the SDK's input.
func (c *Conn) watch(pw *io.PipeWriter) {
	defer c.wg.Done()
	exit, err := c.proc.Wait()
	xerr := &ServerExitedError{Name: c.name, Exit: exit, Err: err, Stderr: c.stderr.String()}
	c.mu.Lock()
	c.exitErr = xerr
	select {
	case <-c.ready:
		// unusable prefers a failed handshake, which caused this exit.
		cause := c.unusable()
		for _, cl := range c.calls {
			cl.cancel(cause)
		}
	default:
		// The calls wait for the handshake, which fails now that the
		// output has ended, and they take its reason, the first cause.
	}
	c.mu.Unlock()
	pw.CloseWithError(xerr)
}

func (c *Conn) connectError(ctx context.Context, err error) error {
	// A deadline that had passed when the handshake failed is the reason,
	// even if the server exits in the moment below: giving up closes its
	// input, and a silent server then ends cleanly.
	timedOut := ctx.Err() != nil
	var stderr string
	if c.proc != nil {
		// The SDK may notice the end of the output before proc has
		// reaped the server; a moment's wait gives the real reason.
		select {
		case <-c.proc.Done():
		case <-time.After(100 * time.Millisecond):
		}
		stderr = c.stderr.String()
		c.mu.Lock()
		xerr := c.exitErr
		c.mu.Unlock()
		// A program that wrote garbage often exits once the SDK gives up
		// and closes its input: the garbage is the reason, not the exit.
		if xerr != nil && !timedOut && !isDecodeError(err) {
			return &ConnectError{Name: c.name, Reason: "the server exited before initialize finished", Err: xerr}
		}
	}
	switch {
	case timedOut:
		return &ConnectError{Name: c.name, Reason: "no answer to initialize", Err: context.Cause(ctx), Stderr: stderr}
	case isDecodeError(err):
		return &ConnectError{Name: c.name, Reason: "the server's output is not MCP JSON-RPC", Err: err, Stderr: stderr}
	}
	return &ConnectError{Name: c.name, Reason: "initialize failed", Err: err, Stderr: stderr}
}

func isDecodeError(err error) bool {
	s := err.Error()
	return strings.Contains(s, "invalid character") || strings.Contains(s, "unmarshal") ||
		strings.Contains(s, "trailing data") || strings.Contains(s, "cannot decode")
}

// Done is closed once the connection is unusable: closed, or its server
// process gone.
func (c *Conn) Done() <-chan struct{} {
	if c.proc != nil {
		return c.proc.Done()
	}
	return c.done
}

// Err returns ErrClosed after Close, an error wrapping ErrMessageTooLarge
// once the server sent a message over Spec.MaxMessage, the
// *ServerExitedError once the server process is gone, the *ConnectError if
// initialize failed, and nil while the connection is usable or still
// connecting.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unusable()
}

// Ready is closed once the initialize handshake has finished, well or not
// (Err tells which).
func (c *Conn) Ready() <-chan struct{} { return c.ready }

// Stderr returns the last few KiB the server wrote to its standard error
// ("" for an HTTP server).
func (c *Conn) Stderr() string {
	if c.stderr == nil {
		return ""
	}
	return c.stderr.String()
}

// Name is how messages name the server: its quoted program or URL.
func (c *Conn) Name() string { return c.name }

// ServerInfo returns the name and version the server gave at initialize
// ("", "" before it has finished or when it failed).
func (c *Conn) ServerInfo() (name, version string) {
	select {
	case <-c.ready:
	default:
		return "", ""
	}
	if c.cs == nil {
		return "", ""
	}
	if r := c.cs.InitializeResult(); r != nil && r.ServerInfo != nil {
		return r.ServerInfo.Name, r.ServerInfo.Version
	}
	return "", ""
}

// Close ends the connection and returns within CloseTimeout, whatever the
// server does: pending calls fail with ErrClosed, the server's input is
// closed, and a server that has not exited a second later has its whole
// tree killed (its process group and every descendant proc finds, see
// proc). An error wrapping ErrCloseTimeout says what had not ended by
// CloseTimeout (the server's tree, the SDK's session or the connection's
// goroutines, which end on their own later). Safe from any goroutine, any
// number of times.
func (c *Conn) Close() error {
	c.closing.Do(func() {
		c.closeErr = c.teardown(ErrClosed)
		// Removed only now, so a Host.Close racing with this one still
		// finds the connection and waits for its end.
		c.host.remove(c)
	})
	return c.closeErr
}

// ErrCloseTimeout is wrapped by the error of a Close that gave up waiting
// at CloseTimeout.
var ErrCloseTimeout = errors.New("mcp: close timed out")

// closeSession closes the SDK's session; tests replace it with a fake that
// ignores the close.
var closeSession = (*sdk.ClientSession).Close

// teardown fails the pending calls with cause, stops the server and closes
// the session. Every wait shares one deadline, CloseTimeout from the start,
// so no wait can use up another's bound.
func (c *Conn) teardown(cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
	defer cancel()
	var errs []error
	// wait waits for ch until the deadline and records what did not end.
	wait := func(ch <-chan struct{}, what string) bool {
		select {
		case <-ch:
			return true
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("mcp: close %s: %w: %s did not end within %v", c.name, ErrCloseTimeout, what, CloseTimeout))
			return false
		}
	}
	c.mu.Lock()
	c.closed = true
	for _, cl := range c.calls {
		cl.cancel(cause)
	}
	c.mu.Unlock()
	c.cancelConnect()

	// The server's end starts at once: nothing the session does first
	// may use up its grace. The grace, like the deadline, is a context:
	// once over it stays over for every wait that selects on it.
	graceCtx, cancelGrace := context.WithTimeout(ctx, closeGrace)
	defer cancelGrace()
	grace := graceCtx.Done()
	if c.proc != nil {
		c.stopReading()
		_ = c.stdin.Close()
	}
	// A cancelled initialize normally returns at once, and its session,
	// if any, is then known; if it does not, the server is stopped anyway,
	// which ends it.
	var cs *sdk.ClientSession
	select {
	case <-c.ready:
		cs = c.cs
	case <-grace:
	}
	sessionDone := make(chan struct{})
	if cs != nil {
		// The SDK's Close waits for the requests in flight; they were
		// just cancelled, but nothing the server does may hold Close up,
		// so it runs aside and is waited for only until the deadline.
		closeFn := closeSession
		go func() {
			defer close(sessionDone)
			_ = closeFn(cs)
		}()
	} else {
		close(sessionDone)
	}

	if c.proc != nil {
		select {
		case <-c.proc.Done():
		case <-grace:
			c.proc.Kill()
		}
		wait(c.proc.Done(), "the server's process tree")
	}
	if c.abort != nil {
		// The session's DELETE can wait on the server's handlers, which
		// may never end: after the grace, every request is aborted.
		defer c.abort()
		select {
		case <-sessionDone:
		case <-grace:
			c.abort()
		}
	}
	if wait(sessionDone, "the session") {
		goroutines := make(chan struct{})
		go func() {
			c.wg.Wait()
			close(goroutines)
		}()
		wait(goroutines, "the connection's goroutines")
	}
	if c.proc == nil {
		select {
		case <-c.done:
		default:
			close(c.done)
		}
	}
	return errors.Join(errs...)
}

// stopReading ends the SDK's input and makes proc drop the server's further
// output, so neither a server that keeps writing nor a blocked write can
// hold up its end.
func (c *Conn) stopReading() {
	c.discard.Store(true)
	c.stdout.CloseWithError(ErrClosed)
}

// onceCloser lets both the SDK and Close close the server's stdin.
type onceCloser struct {
	w    io.WriteCloser
	once sync.Once
	err  error
}

func (o *onceCloser) Write(p []byte) (int, error) { return o.w.Write(p) }

func (o *onceCloser) Close() error {
	o.once.Do(func() { o.err = o.w.Close() })
	return o.err
}

// keepOpen hides Close from the SDK: its closing the stdout pipe on its own
// would make proc treat the next output as a consumer error and signal the
// server. Conn closes the pipe itself (stopReading), with discard set first.
type keepOpen struct{ r *io.PipeReader }

func (k keepOpen) Read(p []byte) (int, error) { return k.r.Read(p) }
func (keepOpen) Close() error                 { return nil }

// Pid returns the server's process id, which is also its process group id,
// or 0 for an HTTP server.
func (c *Conn) Pid() int {
	if c.proc == nil {
		return 0
	}
	return c.proc.Pid()
}
