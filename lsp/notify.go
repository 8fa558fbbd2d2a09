package lsp

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pmacs-go/pmacs-go/runtime"
)

type progressParams struct {
	Token jsontext.Value `json:"token"`
	Value struct {
		Kind        string  `json:"kind"`
		Title       string  `json:"title"`
		Message     string  `json:"message"`
		Percentage  *uint32 `json:"percentage"`
		Cancellable bool    `json:"cancellable"`
	} `json:"value"`
}

type messageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

// Progress is the latest state of a server's work-done progress.
type Progress struct {
	// Token is the progress token as JSON ("\"abc\"" or "3").
	Token   string
	Title   string
	Message string
	// Percentage is -1 when the server gave none.
	Percentage int
}

// Message is a window/showMessage or window/logMessage from the server.
type Message struct {
	// Show is set for showMessage (meant for the user), clear for
	// logMessage (meant for a log).
	Show bool
	// Type is the LSP MessageType: 1 error, 2 warning, 3 info, 4 log,
	// 5 debug.
	Type int
	Text string
}

func (c *Client) onNotification(e evNotification) {
	switch p := e.params.(type) {
	case *protocol.PublishDiagnosticsParams:
		c.keepDiagnostics(p, e.shaped, e.n)
		c.noteDropped(canonicalURI(p.URI), e.dropped)
	case *progressParams:
		c.onProgress(p)
	case *messageParams:
		c.keepMessage(Message{Show: e.method == protocol.MethodWindowShowMessage, Type: p.Type, Text: p.Message})
	}
}

// keepMessage keeps a message for TakeMessages: the newest
// maxMessagesKept, and of those only as many as hold maxMessageBytes of
// text (each text is cut to 64 KiB on the reader).
func (c *Client) keepMessage(m Message) {
	c.messages = append(c.messages, m)
	c.messageBytes += len(m.Text)
	drop := 0
	for len(c.messages)-drop > 1 && (len(c.messages)-drop > maxMessagesKept || c.messageBytes > maxMessageBytes) {
		c.messageBytes -= len(c.messages[drop].Text)
		drop++
	}
	if drop > 0 {
		c.messages = slices.Delete(c.messages, 0, drop)
	}
}

// The diagnostics the client keeps for documents that are not open: a
// server may publish for every file of a workspace (or, hostile, for
// 100,000 it was never asked about), so only the most recently published
// are kept, up to a count and a total of their frames' bytes. Those of
// open documents are always kept.
const (
	maxOtherDiagnostics     = 1000
	maxOtherDiagnosticBytes = 32 << 20
)

// diagOthers orders the documents not open that have diagnostics, oldest
// publication first.
type diagOthers struct {
	seq   uint64
	last  map[uri.URI]diagEntry
	order []diagOrder // stale entries (an older seq than last's) are skipped
	bytes int
}

type diagEntry struct {
	seq uint64
	n   int
}

type diagOrder struct {
	u   uri.URI
	seq uint64
}

func (o *diagOthers) note(u uri.URI, n int) {
	o.forget(u)
	if o.last == nil {
		o.last = map[uri.URI]diagEntry{}
	}
	o.seq++
	o.last[u] = diagEntry{seq: o.seq, n: n}
	o.order = append(o.order, diagOrder{u: u, seq: o.seq})
	o.bytes += n
	if len(o.order) > 2*len(o.last)+64 {
		keep := o.order[:0]
		for _, e := range o.order {
			if o.last[e.u].seq == e.seq {
				keep = append(keep, e)
			}
		}
		clear(o.order[len(keep):])
		o.order = keep
	}
}

func (o *diagOthers) forget(u uri.URI) {
	if e, ok := o.last[u]; ok {
		o.bytes -= e.n
		delete(o.last, u)
	}
}

// evict returns the oldest document over the bounds, if any, and forgets
// it.
func (o *diagOthers) evict() (uri.URI, bool) {
	for len(o.last) > maxOtherDiagnostics || (o.bytes > maxOtherDiagnosticBytes && len(o.last) > 1) {
		e := o.order[0]
		o.order[0] = diagOrder{}
		o.order = o.order[1:]
		if o.last[e.u].seq == e.seq {
			o.forget(e.u)
			return e.u, true
		}
	}
	return "", false
}

// keepDiagnostics keeps a publication (n is its frame's size) as the
// document's latest, and lists the document among the changed ones. A
// document that is not open and has no diagnostics keeps nothing.
func (c *Client) keepDiagnostics(p *protocol.PublishDiagnosticsParams, shaped any, n int) {
	// Keyed canonically, so they reach the document whatever the server's
	// spelling of its URI.
	u := canonicalURI(p.URI)
	c.markDiagnosticsChanged(u)
	if _, open := c.docs[u]; !open && len(p.Diagnostics) == 0 {
		c.others.forget(u)
		delete(c.diags, u)
		delete(c.shapedDiags, u)
		delete(c.droppedDiags, u)
		return
	} else if !open {
		c.others.note(u, n)
	}
	c.diags[u] = p
	if shaped != nil {
		if c.shapedDiags == nil {
			c.shapedDiags = map[uri.URI]any{}
		}
		c.shapedDiags[u] = shaped
	} else {
		delete(c.shapedDiags, u)
	}
	for {
		old, ok := c.others.evict()
		if !ok {
			break
		}
		delete(c.diags, old)
		delete(c.shapedDiags, old)
		delete(c.droppedDiags, old)
	}
}

// noteDropped records how many diagnostics of a document's latest
// publication were past MaxDiagnostics; only documents that had some are
// in the map.
func (c *Client) noteDropped(u uri.URI, n int) {
	if _, kept := c.diags[u]; n == 0 || !kept {
		delete(c.droppedDiags, u)
		return
	}
	if c.droppedDiags == nil {
		c.droppedDiags = map[uri.URI]int{}
	}
	c.droppedDiags[u] = n
}

func (c *Client) markDiagnosticsChanged(u uri.URI) {
	if c.changedSet == nil {
		c.changedSet = map[uri.URI]struct{}{}
	}
	if _, dup := c.changedSet[u]; !dup {
		if len(c.changedDiags) >= 2*maxChangedDiagnostics {
			c.dropOldChanges()
		}
		c.changedSet[u] = struct{}{}
		c.changedDiags = append(c.changedDiags, u)
	}
}

// dropOldChanges keeps the newest maxChangedDiagnostics of the changed
// documents. The list may grow to twice that before it is cut, so a
// server publishing for ever new files costs a copy per 4,096
// publications, not one each.
func (c *Client) dropOldChanges() {
	drop := len(c.changedDiags) - maxChangedDiagnostics
	if drop <= 0 {
		return
	}
	for _, u := range c.changedDiags[:drop] {
		delete(c.changedSet, u)
	}
	n := copy(c.changedDiags, c.changedDiags[drop:])
	clear(c.changedDiags[n:])
	c.changedDiags = c.changedDiags[:n]
}

// dropDiagnostics forgets a document's diagnostics (it was closed) and
// lists it among the changed ones (TakeChangedDiagnostics).
func (c *Client) dropDiagnostics(u uri.URI) {
	if _, ok := c.diags[u]; !ok {
		return
	}
	delete(c.diags, u)
	delete(c.shapedDiags, u)
	delete(c.droppedDiags, u)
	delete(c.pullIDs, u)
	c.others.forget(u)
	c.markDiagnosticsChanged(u)
}

// clearAllDiagnostics forgets every diagnostic of a server that has
// exited: a restarted server publishes afresh, and a dead one's are stale.
// Each document is listed among the changed ones.
func (c *Client) clearAllDiagnostics() {
	us := make([]uri.URI, 0, len(c.diags))
	for u := range c.diags {
		us = append(us, u)
	}
	slices.Sort(us)
	for _, u := range us {
		c.markDiagnosticsChanged(u)
	}
	clear(c.diags)
	clear(c.shapedDiags)
	clear(c.droppedDiags)
	clear(c.pullIDs)
	c.others = diagOthers{}
}

// onProgress keeps a $/progress report for Progress and shows it in the
// runtime's *workers* view: on the request whose workDoneToken it names,
// or, for progress the server started itself (indexing, loading
// packages), on an external job of its own that lives from begin to end.
func (c *Client) onProgress(p *progressParams) {
	tok := progressToken(p.Token)
	switch {
	case tok == "":
		return
	case p.Value.Kind != "begin" && p.Value.Kind != "report" && p.Value.Kind != "end":
		// A partial result (on a partialResultToken) is no work-done
		// progress: it has no end that would settle a job made for it.
		return
	}
	if p.Value.Kind == "end" {
		delete(c.progress, tok)
		if job, ok := c.tokenJobs[tok]; ok {
			c.rt.SetExternalProgress(job, "")
		}
		if pj := c.progressJobs[tok]; pj != nil {
			c.endProgressJob(tok, pj)
			_ = c.rt.CompleteExternalOK(pj.job, nil)
		}
		return
	}
	pr, known := c.progress[tok]
	if !known && len(c.progress) >= maxProgressKept {
		return
	}
	pr.Token = tok
	if p.Value.Title != "" {
		pr.Title = p.Value.Title
	}
	if p.Value.Message != "" {
		pr.Message = p.Value.Message
	}
	pr.Percentage = -1
	if p.Value.Percentage != nil {
		pr.Percentage = int(*p.Value.Percentage)
	}
	c.progress[tok] = pr
	job, ok := c.tokenJobs[tok]
	if !ok {
		pj := c.progressJobs[tok]
		if pj == nil {
			if len(c.progressJobs) >= maxProgressJobs {
				return
			}
			pj = c.newProgressJob(tok)
		}
		job = pj.job
	}
	c.rt.SetExternalProgress(job, pr.line())
}

// progressJob is the external job that shows a server-initiated progress
// in the *workers* view. Cancelling it asks the server to cancel the work
// (window/workDoneProgress/cancel).
type progressJob struct {
	job  runtime.JobID
	stop func() bool
}

func (c *Client) newProgressJob(tok string) *progressJob {
	job, ctx := c.rt.RegisterExternal(RequestKind, "")
	t := c.t
	pj := &progressJob{job: job}
	pj.stop = context.AfterFunc(ctx, func() { t.push(evProgressCancel{token: tok, job: job}, false) })
	if c.progressJobs == nil {
		c.progressJobs = map[string]*progressJob{}
	}
	c.progressJobs[tok] = pj
	return pj
}

// endProgressJob forgets a progress job the caller is settling. The
// client owns the job, so it also takes its outcome (reapProgressJobs) once
// a Tick has settled it: nobody else would, and the runtime keeps a settled
// job until its result is taken.
func (c *Client) endProgressJob(tok string, pj *progressJob) {
	pj.stop()
	delete(c.progressJobs, tok)
	c.progressDone = append(c.progressDone, pj.job)
}

// reapProgressJobs takes the outcomes of the progress jobs that have
// settled since they were ended.
func (c *Client) reapProgressJobs() {
	keep := c.progressDone[:0]
	for _, id := range c.progressDone {
		if _, st, ok := c.rt.Lookup(id); ok && st == runtime.Running {
			keep = append(keep, id)
			continue
		}
		c.rt.TakeResult(id)
	}
	clear(c.progressDone[len(keep):])
	c.progressDone = keep
}

// onProgressCancel handles a cancel of a progress job from the runtime:
// the server is asked to stop the work, and the progress itself stays
// visible on the client until the server ends it.
func (c *Client) onProgressCancel(e evProgressCancel) {
	pj := c.progressJobs[e.token]
	if pj == nil || pj.job != e.job {
		return
	}
	c.endProgressJob(e.token, pj)
	c.rt.CompleteExternalCancelled(pj.job)
	if c.state == running {
		c.sendNow(c.notificationFrame(protocol.MethodWindowWorkDoneProgressCancel, append(append([]byte(`{"token":`), e.token...), '}')))
	}
}

// endAllProgress forgets every progress in flight when the server goes
// away, and fails the jobs that showed the server's own.
func (c *Client) endAllProgress(err error) {
	clear(c.progress)
	toks := make([]string, 0, len(c.progressJobs))
	for tok := range c.progressJobs {
		toks = append(toks, tok)
	}
	slices.Sort(toks)
	for _, tok := range toks {
		pj := c.progressJobs[tok]
		c.endProgressJob(tok, pj)
		c.rt.CompleteExternalFailed(pj.job, fmt.Errorf("lsp progress %s: %w", tok, err))
	}
}

// line is the progress as one line of the *workers* view:
// "Indexing: 3/4 (75%)".
func (p Progress) line() string {
	s := p.Title
	if p.Message != "" {
		if s != "" {
			s += ": "
		}
		s += p.Message
	}
	if p.Percentage >= 0 {
		if s != "" {
			s += " "
		}
		s += "(" + strconv.Itoa(p.Percentage) + "%)"
	}
	return s
}

// progressToken is a progress token in canonical JSON ("\"abc\"" or "3"),
// so the token a request carried and the one a report names compare equal
// however the server spelled them; "" for a missing or invalid token.
func progressToken(raw jsontext.Value) string {
	if len(raw) == 0 || isNull(raw) {
		return ""
	}
	v := slices.Clone(raw)
	if v.Canonicalize() != nil {
		return ""
	}
	return string(v)
}

// workDoneToken returns the canonical workDoneToken of encoded request
// params, "" when they carry none. The byte search keeps the decode off
// the common path.
func workDoneToken(params []byte) string {
	if !bytes.Contains(params, []byte(`"workDoneToken"`)) {
		return ""
	}
	var p struct {
		Token jsontext.Value `json:"workDoneToken"`
	}
	if json.Unmarshal(params, &p, lenient) != nil {
		return ""
	}
	return progressToken(p.Token)
}

// Diagnostics returns the latest diagnostics the server published for a
// file path (nil when none). Publications are coalesced: only the newest per
// document is kept. They are kept for every open document until it is
// closed, and for the 1,000 documents not open most recently published
// (at most 32 MiB of their publications); a server's exit clears all.
func (c *Client) Diagnostics(path string) []protocol.Diagnostic {
	return c.DiagnosticsURI(docURI(path))
}

// ShapedDiagnostics returns what Config.ShapeDiagnostics made of the
// latest publication for a file path; nil when there is none or no shaper.
func (c *Client) ShapedDiagnostics(path string) any {
	return c.shapedDiags[docURI(path)]
}

// DroppedDiagnostics returns how many diagnostics of the latest
// publication for a file path were dropped past MaxDiagnostics: Diagnostics
// holds the first MaxDiagnostics, in the server's order. 0 when none were.
func (c *Client) DroppedDiagnostics(path string) int {
	return c.droppedDiags[docURI(path)]
}

// DiagnosticsURI is Diagnostics by document URI, in any spelling of it.
func (c *Client) DiagnosticsURI(u uri.URI) []protocol.Diagnostic {
	if p := c.diags[canonicalURI(u)]; p != nil {
		return p.Diagnostics
	}
	return nil
}

// Progress returns the work-done progress in flight, ordered by token.
func (c *Client) Progress() []Progress {
	out := make([]Progress, 0, len(c.progress))
	for _, p := range c.progress {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Progress) int { return strings.Compare(a.Token, b.Token) })
	return out
}

// TakeMessages returns the show/log messages received since the last call
// (the newest 1,000 at most, and of those as many as hold 4 MiB of text;
// each text is cut to its first 64 KiB), and the client's own notices (a
// panic of Config.ShapeDiagnostics).
func (c *Client) TakeMessages() []Message {
	m := c.messages
	c.messages, c.messageBytes = nil, 0
	return m
}

// applyEditResult is the ApplyWorkspaceEditResult of an answer.
func applyEditResult(applied bool, reason string) any {
	r := map[string]any{"applied": applied}
	if !applied && reason != "" {
		r["failureReason"] = reason
	}
	return r
}

// answerApplyEdit returns the func that answers the server's applyEdit
// request id once: on the main goroutine, and only while the server process
// that asked runs and the client has not been stopped (a restarted server
// never sent that id; a stopping one is past its work).
func (c *Client) answerApplyEdit(id jsontext.Value) func(bool, string) {
	gen, answered := c.restarts, false
	return func(ok bool, reason string) {
		if answered || gen != c.restarts || (c.state != running && c.state != starting) {
			return
		}
		answered = true
		c.sendNow(c.responseFrame(id, applyEditResult(ok, reason), nil))
	}
}

// onServerRequest answers a request from the server on the main goroutine.
func (c *Client) onServerRequest(e evServerRequest) {
	var result any
	var rerr *wireError
	switch e.method {
	case protocol.MethodWorkspaceConfiguration:
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		if err := json.Unmarshal(e.params, &p, lenient); err != nil {
			rerr = &wireError{Code: CodeInvalidParams, Message: err.Error()}
			break
		}
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			if it.Section == "" {
				if c.cfg.Settings != nil {
					out[i] = c.cfg.Settings
				}
				continue
			}
			out[i] = c.cfg.Settings[it.Section]
		}
		result = out
	case protocol.MethodClientRegisterCapability:
		rerr = c.register(e.params)
	case protocol.MethodClientUnregisterCapability:
		rerr = c.unregister(e.params)
	case protocol.MethodWindowWorkDoneProgressCreate:
		result = nil
	case methodDiagnosticRefresh:
		c.diagRefresh = true
	case protocol.MethodWorkspaceApplyEdit:
		var p protocol.ApplyWorkspaceEditParams
		if err := protocol.Unmarshal(e.params, &p); err != nil {
			rerr = &wireError{Code: CodeInvalidParams, Message: err.Error()}
			break
		}
		if c.cfg.ApplyEdit == nil {
			result = applyEditResult(false, "the client has no applyEdit hook")
			break
		}
		c.cfg.ApplyEdit(&p.Edit, c.answerApplyEdit(e.id))
		return
	default:
		rerr = &wireError{Code: CodeMethodNotFound, Message: "method not supported by the client: " + e.method}
	}
	c.sendNow(c.responseFrame(e.id, result, rerr))
}
