package lsp

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// Edits apply against the array the server had, in any order; edits that
// overlap or reach past the end are errors.
func TestApplySemanticEdits(t *testing.T) {
	data := []uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for name, tc := range map[string]struct {
		edits []semanticEdit
		want  []uint32
		err   bool
	}{
		"none":             {want: data},
		"replace one":      {edits: []semanticEdit{{Start: 2, DeleteCount: 1, Data: []uint32{20}}}, want: []uint32{0, 1, 20, 3, 4, 5, 6, 7, 8, 9}},
		"insert and cut":   {edits: []semanticEdit{{Start: 10, Data: []uint32{10, 11}}, {Start: 0, DeleteCount: 5}}, want: []uint32{5, 6, 7, 8, 9, 10, 11}},
		"everything":       {edits: []semanticEdit{{Start: 0, DeleteCount: 10, Data: []uint32{1}}}, want: []uint32{1}},
		"overlapping":      {edits: []semanticEdit{{Start: 2, DeleteCount: 3}, {Start: 4, DeleteCount: 1}}, err: true},
		"past the end":     {edits: []semanticEdit{{Start: 8, DeleteCount: 5}}, err: true},
		"start past it":    {edits: []semanticEdit{{Start: 11}}, err: true},
		"huge deleteCount": {edits: []semanticEdit{{Start: 1, DeleteCount: 1<<32 - 1}}, err: true},
		"past the bound":   {edits: []semanticEdit{{Start: 10, Data: make([]uint32, maxSemanticInts)}}, err: true},
	} {
		got, err := applySemanticEdits(data, tc.edits)
		if tc.err {
			require.Error(t, err, name)
			continue
		}
		require.NoError(t, err, name)
		require.Equal(t, tc.want, got, name)
	}
	require.Equal(t, []uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, data, "the kept array is not changed")
}

// RequestSemanticTokens asks in full first, then by delta against the
// result it kept, and hands back the whole document with the edits
// applied; a delta that does not fit fails and the next request asks in
// full again.
func TestSemanticTokensByDelta(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{}, fakeCapsEnv+`={"semanticTokensProvider": {"full": {"delta": true}}}`)
	pump(t, rt, c, 20*time.Second, func() bool { return c.Capabilities() != nil })
	const path = "/x/small.c"
	get := func() (*SemanticTokens, error) {
		t.Helper()
		o, res := awaitWithin(t, rt, c, c.RequestSemanticTokens(path, RequestOptions{}))
		if !o.OK() {
			return nil, o.Err
		}
		return res.Value.(*SemanticTokens), nil
	}
	full, err := get()
	require.NoError(t, err)
	require.Equal(t, "r1", full.ResultID)
	require.Len(t, full.Tokens, 3)
	require.Equal(t, uint32(1), full.Tokens[1].Type)

	delta, err := get()
	require.NoError(t, err)
	require.Equal(t, "r2", delta.ResultID)
	require.Len(t, delta.Tokens, 3)
	require.Equal(t, uint32(9), delta.Tokens[1].Type, "the edit applied")
	require.Equal(t, full.Tokens[0], delta.Tokens[0])

	_, err = get()
	require.ErrorContains(t, err, "does not fit", "the fake's edit against r2 reaches past the end")

	again, err := get()
	require.NoError(t, err)
	require.Equal(t, "r1", again.ResultID, "asked in full after the failed delta")
}

// Against clangd, which offers deltas: after an edit, the tokens built
// from its delta equal those of a full request on the same text.
func TestSemanticTokensByDeltaAgainstClangd(t *testing.T) {
	clangd := testenv.Peer(t, testenv.Clangd)
	dir := t.TempDir()
	src := "int add(int a, int b) { return a + b; }\nint main(void) { return add(1, 2); }\n"
	testenv.WriteTree(t, dir, map[string]string{"compile_flags.txt": "-std=c11\n", "a.c": src})
	path := filepath.Join(dir, "a.c")
	rt := newRT(t)
	c, err := Start(rt, Config{Argv: []string{clangd}, Dir: dir, Root: dir})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	require.NoError(t, c.Open(path, "c", []byte(src)))
	pump(t, rt, c, serversTimeout, func() bool { return c.Capabilities() != nil })
	require.True(t, c.Supports("textDocument/semanticTokens/full/delta"), "clangd offers deltas")

	tokens := func(job runtime.JobID) *SemanticTokens {
		t.Helper()
		o, res := awaitWithin(t, rt, c, job)
		require.True(t, o.OK(), "%v", o.Err)
		st, ok := res.Value.(*SemanticTokens)
		require.True(t, ok, "%T", res.Value)
		return st
	}
	first := tokens(c.RequestSemanticTokens(path, RequestOptions{Timeout: serversTimeout}))
	require.NotEmpty(t, first.Tokens)
	require.NotEmpty(t, first.ResultID, "clangd names its result, so the next request can be a delta")

	// Insert a new function at the top: every token moves down a line.
	require.NoError(t, c.Change(path, Edit{Range: protocol.Range{}, Text: "static int twice(int x) { return 2 * x; }\n"}))
	delta := tokens(c.RequestSemanticTokens(path, RequestOptions{Timeout: serversTimeout}))
	full := tokens(c.Request(protocol.MethodTextDocumentSemanticTokensFull,
		map[string]any{"textDocument": map[string]any{"uri": string(docURI(path))}}, RequestOptions{Timeout: serversTimeout}))
	require.Equal(t, full.Tokens, delta.Tokens, "the delta's tokens are the full tokens")
	require.Greater(t, len(delta.Tokens), len(first.Tokens))
}

// semanticData re-encodes rows as the server sent them.
func TestSemanticDataIsTheInverseOfRows(t *testing.T) {
	data := []uint32{2, 5, 3, 0, 3, 0, 5, 4, 1, 0, 3, 2, 7, 2, 0, 0, 0, 1, 1, 1}
	rows, err := SemanticTokenRows(data)
	require.NoError(t, err)
	require.Equal(t, data, semanticData(rows))
}
