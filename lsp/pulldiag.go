package lsp

import (
	"fmt"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// Pull diagnostics (LSP 3.17): a server that offers diagnosticProvider (in
// its capabilities, or as pyright does by registering textDocument/
// diagnostic) may publish nothing and answer textDocument/diagnostic
// instead. The client sends the resultId of the document's last report as
// previousResultId; a server with nothing new answers "unchanged", and the
// diagnostics kept stay. A report's diagnostics are decoded (and shaped for
// the host) on the reader goroutine and stored as a publication's are, so
// Diagnostics, ShapedDiagnostics and TakeChangedDiagnostics read pulled
// and pushed ones alike.

const (
	methodDocumentDiagnostic  = "textDocument/diagnostic"
	methodWorkspaceDiagnostic = "workspace/diagnostic"
	methodDiagnosticRefresh   = "workspace/diagnostic/refresh"
)

// DiagnosticReport is the result (TakeResult) a pull of diagnostics
// settles with.
type DiagnosticReport struct {
	// Kind is the asked document's report: "full" (its diagnostics were
	// replaced) or "unchanged" (they were kept); "" for workspace/diagnostic
	// and for a document closed while the server worked.
	Kind string
	// ResultID is the asked document's new resultId, "" for none.
	ResultID string
	// Full and Unchanged count the documents, related ones included, whose
	// diagnostics the report replaced or kept.
	Full, Unchanged int
}

// pulledDoc is one document's report, decoded on the reader.
type pulledDoc struct {
	uri      uri.URI // "" for the asked document of textDocument/diagnostic
	kind     string
	resultID string
	params   *protocol.PublishDiagnosticsParams // full reports only
	shaped   any
	dropped  int
	n        int // the bytes of its items, for the bound on others' diagnostics
}

// pulledReport is a decoded pull answer: the asked document first, then
// related documents, or a workspace report's documents.
type pulledReport struct {
	docs []pulledDoc
}

type wireReport struct {
	URI              string                `json:"uri"`
	Kind             string                `json:"kind"`
	ResultID         string                `json:"resultId"`
	Items            jsontext.Value        `json:"items"`
	RelatedDocuments map[string]wireReport `json:"relatedDocuments"`
}

// maxPulledDocs bounds the documents one report may name (related or a
// workspace's); the rest are skipped.
const maxPulledDocs = 10_000

func decodePulledDoc(u uri.URI, w wireReport) (pulledDoc, error) {
	d := pulledDoc{uri: u, kind: w.Kind, resultID: w.ResultID}
	switch w.Kind {
	case "unchanged":
		return d, nil
	case "full":
	case "":
		// gopls (0.23) leaves the kind out of its full reports: one that
		// names no kind is taken for what its items say it is.
		d.kind = "full"
	default:
		return d, fmt.Errorf("diagnostic report kind %q is not full or unchanged", w.Kind)
	}
	items := w.Items
	if len(items) == 0 || isNull(items) {
		items = jsontext.Value("[]")
	}
	wrapped := make([]byte, 0, len(items)+16)
	wrapped = append(wrapped, `{"diagnostics":`...)
	wrapped = append(wrapped, items...)
	wrapped = append(wrapped, '}')
	p, dropped, err := decodeDiagnostics(wrapped, MaxDiagnostics)
	if err != nil {
		return d, err
	}
	if p.Diagnostics == nil {
		p.Diagnostics = []protocol.Diagnostic{}
	}
	d.params, d.dropped, d.n = p, dropped, len(items)
	return d, nil
}

func decodeDocumentDiagnostic(raw jsontext.Value) (any, error) {
	var w wireReport
	if isNull(raw) {
		return nil, fmt.Errorf("a null diagnostic report")
	}
	if err := json.Unmarshal(raw, &w, lenient); err != nil {
		return nil, err
	}
	first, err := decodePulledDoc("", w)
	if err != nil {
		return nil, err
	}
	r := &pulledReport{docs: []pulledDoc{first}}
	related := make([]string, 0, len(w.RelatedDocuments))
	for u := range w.RelatedDocuments {
		related = append(related, u)
	}
	slices.Sort(related)
	for _, u := range related[:min(len(related), maxPulledDocs)] {
		d, err := decodePulledDoc(uri.URI(u), w.RelatedDocuments[u])
		if err != nil {
			return nil, fmt.Errorf("related document %s: %w", u, err)
		}
		r.docs = append(r.docs, d)
	}
	return r, nil
}

func decodeWorkspaceDiagnostic(raw jsontext.Value) (any, error) {
	var w struct {
		Items []wireReport `json:"items"`
	}
	if !isNull(raw) {
		if err := json.Unmarshal(raw, &w, lenient); err != nil {
			return nil, err
		}
	}
	r := &pulledReport{}
	for _, it := range w.Items[:min(len(w.Items), maxPulledDocs)] {
		if it.URI == "" {
			return nil, fmt.Errorf("a workspace diagnostic report without a uri")
		}
		d, err := decodePulledDoc(uri.URI(it.URI), it)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.URI, err)
		}
		r.docs = append(r.docs, d)
	}
	return r, nil
}

// shapePulled runs Config.ShapeDiagnostics on a report's full documents,
// on the reader; a document whose shaping panicked is dropped from the
// report.
func (t *transport) shapePulled(r *pulledReport) {
	if t.shapeDiags == nil {
		return
	}
	keep := r.docs[:0]
	for _, d := range r.docs {
		if d.params != nil {
			shaped, ok := t.shapeDiagnostics(d.params)
			if !ok {
				continue
			}
			d.shaped = shaped
		}
		keep = append(keep, d)
	}
	r.docs = keep
}

// pullIdentifier is the identifier the server gave its pull diagnostics,
// sent back with each pull; "" for none.
func (c *Client) pullIdentifier() string {
	read := func(v jsontext.Value) string {
		var o struct {
			Identifier string `json:"identifier"`
		}
		if json.Unmarshal(v, &o, lenient) == nil {
			return o.Identifier
		}
		return ""
	}
	if v, ok := c.rawCaps["diagnosticProvider"]; ok && truthy(v) {
		if id := read(v); id != "" {
			return id
		}
	}
	for _, r := range c.regs {
		if r.Method == methodDocumentDiagnostic && r.Options != nil {
			if id := read(r.Options); id != "" {
				return id
			}
		}
	}
	return ""
}

// PullDiagnostics asks the server for path's diagnostics
// (textDocument/diagnostic), with the resultId of its last report as
// previousResultId. The job settles as Request's do, with a
// *DiagnosticReport; a full report replaces the document's diagnostics
// (and those of the related documents it names), an unchanged one keeps
// them. Ask Supports("textDocument/diagnostic") first.
func (c *Client) PullDiagnostics(path string, opts RequestOptions) runtime.JobID {
	u := docURI(path)
	params := map[string]any{"textDocument": map[string]any{"uri": string(u)}}
	if id := c.pullIdentifier(); id != "" {
		params["identifier"] = id
	}
	if prev := c.pullIDs[canonicalURI(u)]; prev != "" {
		params["previousResultId"] = prev
	}
	gen := c.restarts
	return c.request(methodDocumentDiagnostic, params, opts, func(v any) (any, error) {
		return c.takePulled(u, gen, v)
	})
}

// PullWorkspaceDiagnostics asks workspace/diagnostic for every document's
// diagnostics the server has, with the resultIds of the reports kept, and
// stores them as PullDiagnostics does. Ask Supports("workspace/diagnostic")
// first.
func (c *Client) PullWorkspaceDiagnostics(opts RequestOptions) runtime.JobID {
	us := make([]uri.URI, 0, len(c.pullIDs))
	for u := range c.pullIDs {
		us = append(us, u)
	}
	slices.Sort(us)
	prev := make([]map[string]any, 0, len(us))
	for _, u := range us {
		prev = append(prev, map[string]any{"uri": string(u), "value": c.pullIDs[u]})
	}
	params := map[string]any{"previousResultIds": prev}
	if id := c.pullIdentifier(); id != "" {
		params["identifier"] = id
	}
	gen := c.restarts
	return c.request(methodWorkspaceDiagnostic, params, opts, func(v any) (any, error) {
		return c.takePulled("", gen, v)
	})
}

// takePulled stores a decoded pull answer on the main goroutine. asked is
// the document of textDocument/diagnostic ("" for workspace/diagnostic):
// its report is dropped when it has been closed since. A report a server
// that has since died made is dropped whole: its resultIds mean nothing to
// the restarted one.
func (c *Client) takePulled(asked uri.URI, gen int, v any) (any, error) {
	r, ok := v.(*pulledReport)
	if !ok || r == nil {
		return nil, fmt.Errorf("unexpected diagnostic report %T", v)
	}
	out := &DiagnosticReport{}
	if gen != c.restarts {
		return out, nil
	}
	for i, d := range r.docs {
		u := d.uri
		if u == "" {
			u = asked
		}
		u = canonicalURI(u)
		if i == 0 && asked != "" {
			if c.docs[asked] == nil {
				continue
			}
			out.Kind, out.ResultID = d.kind, d.resultID
		}
		if c.pullIDs == nil {
			c.pullIDs = map[uri.URI]string{}
		}
		if d.resultID != "" {
			c.pullIDs[u] = d.resultID
		} else {
			delete(c.pullIDs, u)
		}
		if d.kind == "unchanged" {
			out.Unchanged++
			continue
		}
		out.Full++
		d.params.URI = u
		c.keepDiagnostics(d.params, d.shaped, d.n)
		c.noteDropped(u, d.dropped)
	}
	c.prunePullIDs()
	return out, nil
}

// prunePullIDs keeps the resultIds of documents open or with diagnostics
// kept: the others' were dropped with their diagnostics (keepDiagnostics'
// bound), and a previousResultId for them would keep nothing.
func (c *Client) prunePullIDs() {
	if len(c.pullIDs) <= len(c.docs)+len(c.diags)+64 {
		return
	}
	for u := range c.pullIDs {
		if _, open := c.docs[u]; open {
			continue
		}
		if _, kept := c.diags[u]; !kept {
			delete(c.pullIDs, u)
		}
	}
}

// TakeDiagnosticRefresh reports, once, whether the server has sent
// workspace/diagnostic/refresh since the last call: every document's
// diagnostics should be pulled again.
func (c *Client) TakeDiagnosticRefresh() bool {
	r := c.diagRefresh
	c.diagRefresh = false
	return r
}
