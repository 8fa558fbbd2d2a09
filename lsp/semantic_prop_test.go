package lsp

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// The semantic tokens property: a document's tokens change at random from
// one request to the next, the fake server answers each request after the
// first with a delta (edits of the integer array, computed from its own
// previous and next arrays), and the client's whole-document result must
// equal the server's full tokens after every step.
//
// Both sides derive the tokens of step k of a document from those of step
// k-1 with a generator seeded by the document and k (propStep): the server
// to answer, the test to know what the answer must come to. The server
// keeps only its own arrays; the client keeps its own, built from the
// edits.

// propDocPrefix marks the documents the fake answers this way.
const propDocPrefix = "/prop/"

// propRand is the generator of a document's step.
func propRand(uri string, step int) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s#%d", uri, step)
	return rand.New(rand.NewPCG(h.Sum64(), uint64(step)))
}

// propStep returns the tokens of step `step` made from prev (step-1's; nil
// for step 0): a few tokens inserted, deleted, retyped, moved down with an
// inserted line or up with a deleted one. The tokens stay sorted, one per
// position, few (at most 60), so each step is cheap under -race.
func propStep(prev []SemanticToken, uri string, step int) []SemanticToken {
	r := propRand(uri, step)
	toks := slices.Clone(prev)
	if step == 0 {
		for range 10 + r.IntN(30) {
			toks = propInsert(toks, r)
		}
		return toks
	}
	for range r.IntN(4) { // 0 to 3 changes: a step may change nothing
		switch op := r.IntN(6); {
		case op == 0 && len(toks) < 60:
			toks = propInsert(toks, r)
		case op == 1 && len(toks) > 0:
			i := r.IntN(len(toks))
			toks = slices.Delete(toks, i, i+1)
		case op == 2 && len(toks) > 0:
			i := r.IntN(len(toks))
			toks[i].Type, toks[i].Mods = uint32(r.IntN(23)), uint32(r.IntN(1<<10))
		case op == 3:
			// A line inserted: the tokens below it move down.
			at := uint32(r.IntN(40))
			for i := range toks {
				if toks[i].Line >= at {
					toks[i].Line++
				}
			}
		case op == 4 && len(toks) > 0:
			// A line deleted with its tokens: those below move up.
			at := toks[r.IntN(len(toks))].Line
			toks = slices.DeleteFunc(toks, func(t SemanticToken) bool { return t.Line == at })
			for i := range toks {
				if toks[i].Line > at {
					toks[i].Line--
				}
			}
		case op == 5 && len(toks) > 0:
			i := r.IntN(len(toks))
			toks[i].Len = uint32(1 + r.IntN(12))
		}
	}
	return toks
}

// propInsert adds a token at a free random position, keeping the order.
func propInsert(toks []SemanticToken, r *rand.Rand) []SemanticToken {
	t := SemanticToken{Line: uint32(r.IntN(40)), Col: uint32(r.IntN(80)), Len: uint32(1 + r.IntN(12)),
		Type: uint32(r.IntN(23)), Mods: uint32(r.IntN(1 << 10))}
	i, found := slices.BinarySearchFunc(toks, t, func(a, b SemanticToken) int {
		if a.Line != b.Line {
			return int(a.Line) - int(b.Line)
		}
		return int(a.Col) - int(b.Col)
	})
	if found {
		return toks
	}
	return slices.Insert(toks, i, t)
}

// propDelta is the server's answer to a delta request: the edits that
// turn old into new. The changed stretch (after the common prefix, before
// the common suffix) is cut into up to three edits at random points, sent
// in a random order; edits against the array as the server had it may
// come in any order.
func propDelta(old, new []uint32, r *rand.Rand) []map[string]any {
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	s := 0
	for s < len(old)-p && s < len(new)-p && old[len(old)-1-s] == new[len(new)-1-s] {
		s++
	}
	oldMid, newMid := old[p:len(old)-s], new[p:len(new)-s]
	if len(oldMid) == 0 && len(newMid) == 0 {
		return []map[string]any{}
	}
	// The old stretch is cut at distinct points, so no two edits start at
	// one place: an insertion and a replacement at the same start would
	// leave the order of their data open.
	k := min(1+r.IntN(3), max(len(oldMid), 1))
	cuts := func(n int, distinct bool) []int {
		c := []int{0, n}
		if distinct && k > 1 {
			c = append(c, r.Perm(n - 1)[:k-1]...)
			for i := 2; i < len(c); i++ {
				c[i]++
			}
		} else if !distinct {
			for range k - 1 {
				c = append(c, r.IntN(n+1))
			}
		}
		slices.Sort(c)
		return c
	}
	oc, nc := cuts(len(oldMid), true), cuts(len(newMid), false)
	edits := make([]map[string]any, 0, k)
	for i := range k {
		data := newMid[nc[i]:nc[i+1]]
		if len(data) == 0 && oc[i] == oc[i+1] {
			continue
		}
		e := map[string]any{"start": p + oc[i], "deleteCount": oc[i+1] - oc[i]}
		if len(data) > 0 || r.IntN(2) == 0 {
			e["data"] = data // an absent data and an empty one mean the same
		}
		edits = append(edits, e)
	}
	r.Shuffle(len(edits), func(i, j int) { edits[i], edits[j] = edits[j], edits[i] })
	return edits
}

// propServerDoc is what the fake server keeps of a document.
type propServerDoc struct {
	step     int
	tokens   []SemanticToken
	resultID string
}

// semanticProp answers a semantic tokens request for a property document:
// the next step's tokens, in full for a full request and by delta for a
// delta request against the result it gave last (an error against any
// other: the client must always name the newest).
func (s *fakeServer) semanticProp(m *fakeMsg, p map[string]any) {
	uri := fmt.Sprint(p["textDocument"].(map[string]any)["uri"])
	if s.prop == nil {
		s.prop = map[string]*propServerDoc{}
	}
	d := s.prop[uri]
	if d == nil {
		d = &propServerDoc{step: -1}
		s.prop[uri] = d
	}
	if m.Method == "textDocument/semanticTokens/full/delta" && p["previousResultId"] != d.resultID {
		s.replyErr(m.ID, -32602, fmt.Sprintf("delta against %v, the last result was %s", p["previousResultId"], d.resultID))
		return
	}
	old := semanticData(d.tokens)
	d.step++
	d.tokens = propStep(d.tokens, uri, d.step)
	d.resultID = fmt.Sprintf("r%d", d.step)
	data := semanticData(d.tokens)
	r := propRand(uri+"/delta", d.step)
	if m.Method == "textDocument/semanticTokens/full" || r.IntN(50) == 0 {
		// A server may answer a delta request in full.
		s.reply(m.ID, map[string]any{"resultId": d.resultID, "data": data})
		return
	}
	s.reply(m.ID, map[string]any{"resultId": d.resultID, "edits": propDelta(old, data, r)})
}

// 50,000 deltas: 50 documents asked 1,001 times each, a round at a time
// (all 50 requests in flight together), each answer checked against the
// tokens the server made for that step.
func TestSemanticTokenDeltasKeepTheServersTokens(t *testing.T) {
	const docs, rounds = 50, 1001
	rt := newRT(t)
	c := startFake(t, rt, Config{}, fakeCapsEnv+`={"semanticTokensProvider": {"full": {"delta": true}, "legend": {"tokenTypes": [], "tokenModifiers": []}}}`)
	pump(t, rt, c, 20*time.Second, func() bool { return c.Capabilities() != nil })
	require.True(t, c.Supports("textDocument/semanticTokens/full/delta"))

	paths := make([]string, docs)
	want := make([][]SemanticToken, docs)
	for i := range paths {
		paths[i] = fmt.Sprintf("%sd%02d.go", propDocPrefix, i)
	}
	deltas := 0
	jobs := make([]runtime.JobID, docs)
	for round := range rounds {
		for i, path := range paths {
			jobs[i] = c.RequestSemanticTokens(path, RequestOptions{})
			want[i] = propStep(want[i], string(docURI(path)), round)
		}
		if round > 0 {
			deltas += docs
		}
		pump(t, rt, c, 60*time.Second, func() bool {
			for _, j := range jobs {
				if !rt.IsComplete(j) {
					return false
				}
			}
			return true
		})
		for i, j := range jobs {
			o, ok := rt.TakeResult(j)
			require.True(t, ok)
			res, _ := c.TakeResult(j)
			require.True(t, o.OK(), "round %d, %s: %v", round, paths[i], o.Err)
			st := res.Value.(*SemanticTokens)
			if !slices.Equal(want[i], st.Tokens) {
				require.Equal(t, want[i], st.Tokens, "round %d, %s: the client's tokens are the server's", round, paths[i])
			}
			require.Equal(t, fmt.Sprintf("r%d", round), st.ResultID)
		}
	}
	require.Equal(t, 50000, deltas)

	// The fake really answered by delta: the client asked for deltas
	// after the first round.
	n := 0
	for _, m := range fakeLogOf(t, rt, c).Methods {
		if strings.HasSuffix(m, "/full/delta") {
			n++
		}
	}
	require.Equal(t, 50000, n, "every request after a document's first asked by delta")
}
