package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/textpos"
	"github.com/pmacs-go/pmacs-go/workers"
)

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
	if r, ok := e.result.(*initializeResult); ok {
		c.caps, c.rawCaps, c.enc = r.typed, r.caps, r.enc
	}
	// A restarted server registers anew, and knows none of the results
	// deltas would be made against.
	for _, r := range c.regs {
		if r.watchers != nil {
			c.watchersChanged = true
		}
	}
	c.regs = nil
	c.semantic, c.semanticOrder = nil, nil
	c.pullIDs = nil
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
			c.t.trackAs(q.id, q.method, r.raw, r.decode)
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
		c.watchersChanged = true
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
	workspace := map[string]any{
		"applyEdit": true, "configuration": true, "workspaceFolders": true,
		"diagnostics":    map[string]any{"refreshSupport": true},
		"workspaceEdit":  workspaceEdit,
		"executeCommand": map[string]any{},
	}
	if c.cfg.WatchFiles {
		workspace["didChangeWatchedFiles"] = map[string]any{"dynamicRegistration": true, "relativePatternSupport": true}
	}
	p := map[string]any{
		"processId":  nil,
		"clientInfo": map[string]any{"name": "pmacs"},
		"capabilities": map[string]any{
			// UTF-8 first: a server that counts bytes (clangd) then needs
			// no conversion of its own; every other is told UTF-16, LSP's
			// default, by choosing it or by not answering.
			"general": map[string]any{"positionEncodings": []string{textpos.UTF8.String(), textpos.UTF16.String()}},
			// clangd before 16 reads the offer here, its extension that
			// LSP 3.17 made general.positionEncodings.
			"offsetEncoding": []string{textpos.UTF8.String(), textpos.UTF16.String()},
			"window":         map[string]any{"workDoneProgress": true, "showMessage": map[string]any{}},
			"workspace":      workspace,
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": true, "dynamicRegistration": false},
				"publishDiagnostics": map[string]any{"relatedInformation": true, "versionSupport": true},
				// Pull diagnostics (PullDiagnostics), with the reports of
				// related documents a change affects.
				// Pyright registers them only for a client that takes
				// dynamic registrations of them.
				"diagnostic":     map[string]any{"relatedDocumentSupport": true, "dynamicRegistration": true},
				"hover":          map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"completion":     map[string]any{"completionItem": map[string]any{"snippetSupport": false}},
				"definition":     map[string]any{},
				"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": true},
				"references":     map[string]any{},
				"rename":         map[string]any{},
				"formatting":     map[string]any{},
				// Code actions as literals, each with its edit or its
				// command; a server that resolves them may leave the edit
				// out of the list and send it on codeAction/resolve, when
				// one is chosen (computing every action's edit up front is
				// what makes a long list slow).
				"codeAction": map[string]any{
					"resolveSupport":           map[string]any{"properties": []string{"edit"}},
					"dataSupport":              true,
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
