package lsp

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// Semantic tokens by delta: after the first full answer the client keeps
// the document's tokens and the server's resultId, and asks
// textDocument/semanticTokens/full/delta for what changed since, which a
// server that offers it answers with edits of the integer array instead of
// the whole array (a typing user's 70,000-integer file becomes a few
// dozen). The edits are decoded and applied, and the rows rebuilt, on the
// reader goroutine (see RequestSemanticTokens).

// semanticEdit is one edit of a delta: deleteCount integers from start
// replaced by data.
type semanticEdit struct {
	Start       uint32   `json:"start"`
	DeleteCount uint32   `json:"deleteCount"`
	Data        []uint32 `json:"data"`
}

// semanticTokensDelta is a full/delta answer made of edits.
type semanticTokensDelta struct {
	ResultID string
	Edits    []semanticEdit
}

// semState is the last full result the client kept for a document.
type semState struct {
	resultID string
	data     []uint32
}

// decodeSemanticTokensDelta decodes a full/delta answer: the server may
// send a whole result (data) or edits.
func decodeSemanticTokensDelta(raw jsontext.Value) (any, error) {
	if isNull(raw) {
		return (*SemanticTokens)(nil), nil
	}
	var v struct {
		ResultID *string        `json:"resultId"`
		Edits    []semanticEdit `json:"edits"`
		Data     jsontext.Value `json:"data"`
	}
	if err := json.Unmarshal(raw, &v, lenient); err != nil {
		return nil, err
	}
	if len(v.Data) > 0 {
		return decodeSemanticTokens(raw)
	}
	d := &semanticTokensDelta{Edits: v.Edits}
	if v.ResultID != nil {
		d.ResultID = *v.ResultID
	}
	return d, nil
}

// errStaleDelta: a delta answered against a result the client no longer
// keeps; the next request asks for everything.
var errStaleDelta = errors.New("semantic tokens delta against a result the client no longer has")

// maxSemanticInts bounds a document's kept token array (five integers a
// token): deltas could otherwise grow it without end. 4 Mi integers is
// 800,000 tokens, 16 MiB.
const maxSemanticInts = 4 << 20

// applySemanticEdits returns data with the edits applied, each against the
// array as the server had it (they may come in any order; they must not
// overlap or reach past its end).
func applySemanticEdits(data []uint32, edits []semanticEdit) ([]uint32, error) {
	edits = slices.Clone(edits)
	slices.SortStableFunc(edits, func(a, b semanticEdit) int { return int(int64(a.Start) - int64(b.Start)) })
	out := make([]uint32, 0, len(data))
	at := uint32(0)
	for _, e := range edits {
		end := uint64(e.Start) + uint64(e.DeleteCount)
		if e.Start < at || end > uint64(len(data)) {
			return nil, fmt.Errorf("semantic tokens delta: edit at %d deleting %d does not fit %d integers after the edits before it", e.Start, e.DeleteCount, len(data))
		}
		out = append(out, data[at:e.Start]...)
		out = append(out, e.Data...)
		at = uint32(end)
		if len(out)+len(data)-int(at) > maxSemanticInts {
			return nil, fmt.Errorf("semantic tokens delta: the edits make over %d integers", maxSemanticInts)
		}
	}
	return append(out, data[at:]...), nil
}

// RequestSemanticTokens asks for path's semantic tokens: by delta against
// the last result the client kept for the document when the server offers
// textDocument/semanticTokens/full/delta, else in full. The job settles as
// Request's do; its result (TakeResult) is always the whole document's
// *SemanticTokens, the edits applied. A delta that does not fit the kept
// result fails the job and drops it, so the next request asks in full.
//
// The reader does the work: it applies a delta's edits to the result the
// request was made against (kept arrays are never changed in place, so it
// may read one while the main goroutine keeps another), rebuilds the rows,
// and encodes a full answer's rows as the array the next delta edits. The
// main goroutine only swaps what it keeps, whatever the size of the
// document.
func (c *Client) RequestSemanticTokens(path string, opts RequestOptions) runtime.JobID {
	u := docURI(path)
	prev := c.semantic[u]
	method := protocol.MethodTextDocumentSemanticTokensFull
	params := map[string]any{"textDocument": map[string]any{"uri": string(u)}}
	decode := decodeSemanticTokens
	if prev.resultID != "" && c.Supports(protocol.MethodTextDocumentSemanticTokensFullDelta) {
		method = protocol.MethodTextDocumentSemanticTokensFullDelta
		params["previousResultId"] = prev.resultID
		decode = decodeSemanticTokensDelta
	}
	return c.requestDecoded(method, params, opts, func(v any) (any, error) {
		return c.semanticResult(u, v)
	}, func(raw jsontext.Value) (any, error) {
		v, err := decode(raw)
		if err != nil {
			return nil, err
		}
		return finishSemantic(prev, v), nil
	})
}

// semanticReady is a semantic tokens answer the reader finished: the whole
// result, and what to keep for the next delta (keep.resultID "" when the
// server named no result); err when a delta did not fit.
type semanticReady struct {
	tokens  *SemanticTokens
	keep    semState
	against string // the result a delta was applied to, "" for a full answer
	err     error
}

// finishSemantic turns a decoded answer into the whole result: a delta's
// edits applied to prev's array, a full answer's rows encoded for the next
// delta.
func finishSemantic(prev semState, v any) *semanticReady {
	switch r := v.(type) {
	case *SemanticTokens:
		if r == nil || r.ResultID == "" {
			return &semanticReady{tokens: r}
		}
		return &semanticReady{tokens: r, keep: semState{resultID: r.ResultID, data: semanticData(r.Tokens)}}
	case *semanticTokensDelta:
		if prev.resultID == "" {
			return &semanticReady{err: errStaleDelta}
		}
		data, err := applySemanticEdits(prev.data, r.Edits)
		if err != nil {
			return &semanticReady{err: err}
		}
		rows, err := SemanticTokenRows(data)
		if err != nil {
			return &semanticReady{err: err}
		}
		out := &semanticReady{tokens: &SemanticTokens{ResultID: r.ResultID, Tokens: rows}, against: prev.resultID}
		if r.ResultID != "" {
			out.keep = semState{resultID: r.ResultID, data: data}
		}
		return out
	}
	return &semanticReady{err: fmt.Errorf("semantic tokens: unexpected result %T", v)}
}

// semanticResult keeps what the reader finished for u and returns the
// whole result. A delta applied to a result the client no longer keeps
// (the document was closed meanwhile, or another answer replaced it) is
// returned but not kept.
func (c *Client) semanticResult(u uri.URI, v any) (any, error) {
	r, ok := v.(*semanticReady)
	if !ok {
		delete(c.semantic, u)
		return nil, fmt.Errorf("semantic tokens: unexpected result %T", v)
	}
	if r.err != nil || r.keep.resultID == "" {
		delete(c.semantic, u)
		return r.tokens, r.err
	}
	if r.against != "" && c.semantic[u].resultID != r.against {
		return r.tokens, nil
	}
	c.keepSemantic(u, r.keep)
	return r.tokens, nil
}

// maxSemanticDocs bounds the documents whose tokens the client keeps for
// deltas; past it the oldest kept goes.
const maxSemanticDocs = 64

func (c *Client) keepSemantic(u uri.URI, st semState) {
	if c.semantic == nil {
		c.semantic = map[uri.URI]semState{}
	}
	if _, ok := c.semantic[u]; !ok {
		for len(c.semantic) >= maxSemanticDocs && len(c.semanticOrder) > 0 {
			delete(c.semantic, c.semanticOrder[0])
			c.semanticOrder = c.semanticOrder[1:]
		}
		c.semanticOrder = append(c.semanticOrder, u)
	}
	c.semantic[u] = st
	if len(c.semanticOrder) > 2*maxSemanticDocs {
		// Documents dropped since (closed, a failed delta) leave their
		// place in the order behind: keep only the kept ones.
		c.semanticOrder = slices.DeleteFunc(c.semanticOrder, func(k uri.URI) bool {
			_, ok := c.semantic[k]
			return !ok
		})
	}
}

// semanticData is the protocol's relative encoding of rows, the inverse of
// SemanticTokenRows: what the server's next delta edits.
func semanticData(rows []SemanticToken) []uint32 {
	data := make([]uint32, 0, 5*len(rows))
	var line, col uint32
	for _, r := range rows {
		if r.Line != line {
			col = 0
		}
		data = append(data, r.Line-line, r.Col-col, r.Len, r.Type, r.Mods)
		line, col = r.Line, r.Col
	}
	return data
}

// RequestSemanticTokensRange asks for path's semantic tokens on rows
// [startLine, endLine) (textDocument/semanticTokens/range): a screenful,
// answered faster than the whole document, for a first paint. Its result
// (TakeResult) is a *SemanticTokens, decoded on the reader and never
// shaped by Config.Shape, so the host gets the rows as Go values; it does
// not touch the tokens kept for deltas.
func (c *Client) RequestSemanticTokensRange(path string, startLine, endLine uint32, opts RequestOptions) runtime.JobID {
	params := map[string]any{
		"textDocument": map[string]any{"uri": string(docURI(path))},
		"range": map[string]any{
			"start": map[string]any{"line": startLine, "character": 0},
			"end":   map[string]any{"line": endLine, "character": 0},
		},
	}
	return c.request(protocol.MethodTextDocumentSemanticTokensRange, params, opts, func(v any) (any, error) {
		if _, ok := v.(*SemanticTokens); !ok {
			return nil, fmt.Errorf("semantic tokens: unexpected result %T", v)
		}
		return v, nil
	})
}
