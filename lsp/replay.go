package lsp

import (
	"fmt"
	"math"
)

// ReplayReport is what Replay made of a server's output.
type ReplayReport struct {
	// Results are the replies to the requests, in the order they were
	// read, as the client settles them: Value shaped by Config.Shape, or
	// Err (a *ResponseError, or an error wrapping ErrFrameTooLarge or
	// ErrHookPanicked, or a result that did not decode).
	Results []Result
	// Notifications and ServerRequests count the other messages read;
	// Diagnostics holds what Config.ShapeDiagnostics made of each
	// publication (the decoded params without one).
	Notifications, ServerRequests int
	Diagnostics                   []any
	// Stats counts what the reader saw, as Client.Stats does.
	Stats Stats
	// Restart is why a client would have killed and restarted the server
	// (wrapping ErrFrameTooLarge), nil when it would not.
	Restart error
}

// Replay runs bytes a server wrote through the client's reader as a
// running client's reader goroutine runs them: Content-Length framing
// within cfg.MaxFrame, the JSON-RPC envelope, each result decoded into the
// type its method calls for (see the package doc, "Results"), then
// cfg.Shape and cfg.ShapeDiagnostics with their panics recovered. The
// request with id i+1 is outstanding under methods[i] while the chunks are
// read. cfg.MaxFrame is taken as given when positive, unclamped, so a
// test reaches the oversized path with small inputs; the inbox is not
// bounded. It starts no process and needs no runtime: it exists so that a
// host can test and fuzz its hooks against anything a server may send.
func Replay(cfg Config, methods []string, chunks ...[]byte) ReplayReport {
	t := newTransport()
	t.shape, t.shapeDiags = cfg.Shape, cfg.ShapeDiagnostics
	t.maxInbox, t.maxInboxBytes, t.maxOutBytes = math.MaxInt, math.MaxInt, math.MaxInt
	if cfg.MaxFrame > 0 {
		t.maxFrame = cfg.MaxFrame
	}
	for i, m := range methods {
		t.track(int64(i+1), m)
	}
	fr := newFramer(t.maxFrame, t.onBody, func(string) { t.malformed.Add(1) })
	fr.onOversize, fr.onBroken = t.onOversize, t.onBroken
	for _, c := range chunks {
		fr.feed(c)
	}
	var rep ReplayReport
	for {
		evs, _ := t.take(math.MaxInt)
		if len(evs) == 0 {
			break
		}
		for _, ev := range evs {
			switch e := ev.(type) {
			case evResponse:
				res := Result{Method: e.method, Value: e.result, Received: e.received}
				switch {
				case e.fail != nil:
					res = Result{Method: e.method, Err: fmt.Errorf("lsp %s: %w", e.method, e.fail)}
				case e.rerr != nil:
					res = Result{Method: e.method, Err: e.rerr}
				case e.err != nil:
					res = Result{Method: e.method, Err: fmt.Errorf("lsp %s: decode result: %w", e.method, e.err)}
				}
				rep.Results = append(rep.Results, res)
			case evNotification:
				rep.Notifications++
				if e.shaped != nil {
					rep.Diagnostics = append(rep.Diagnostics, e.shaped)
				} else if e.method == "textDocument/publishDiagnostics" && e.params != nil {
					rep.Diagnostics = append(rep.Diagnostics, e.params)
				}
			case evServerRequest:
				rep.ServerRequests++
			}
		}
	}
	rep.Stats = Stats{
		Received:       t.received.Load(),
		Malformed:      t.malformed.Load(),
		UnknownReplies: t.unknown.Load(),
		LateReplies:    t.late.Load(),
		Oversized:      t.oversized.Load(),
		HookPanics:     t.hookPanics.Load(),
	}
	t.mu.Lock()
	rep.Restart = t.killErr
	t.mu.Unlock()
	return rep
}
