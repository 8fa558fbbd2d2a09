package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// serversTimeout bounds one request to a real server: pyright and
// typescript-language-server load their whole standard library first.
const serversTimeout = 90 * time.Second

// Against clangd, pyright and typescript-language-server, as against gopls
// (TestGopls): initialize and the capabilities Supports reads from it,
// definition of a call, hover of a function, document symbols, references,
// completion in the middle of the called name, signature help inside the
// call's parentheses, semantic tokens where the server offers them (pyright
// does not: it must then say so), and a bounded Close. Each project is a
// two-line program calling its add. (Diagnostics, code actions and
// formatting on each server: the editor's TestCodeActionsFixADiagnosticOnEachServer
// and TestFormatOnEachServer.)
func TestOtherServersAnswerTheCoreRequests(t *testing.T) {
	for _, tc := range []struct {
		name  string
		peer  testenv.PeerSpec
		args  []string
		lang  string
		files map[string]string
		file  string
		call  [2]uint32 // line, character of the call of add
		hover string    // what hovering add shows
		// sig is in the signature help inside the call (pyright's label
		// leaves the name out).
		sig string
		// semantic says the server announces semantic tokens.
		semantic bool
	}{
		{name: "clangd", peer: testenv.Clangd, lang: "c",
			files: map[string]string{"compile_flags.txt": "-std=c11\n",
				"a.c": "int add(int a, int b) { return a + b; }\nint main(void) { return add(1, 2); }\n"},
			file: "a.c", call: [2]uint32{1, 25}, hover: "add", sig: "int a", semantic: true},
		{name: "pyright", peer: testenv.Pyright, args: []string{"--stdio"}, lang: "python",
			files: map[string]string{"pyrightconfig.json": "{}\n",
				"a.py": "def add(a: int, b: int) -> int:\n    return a + b\nprint(add(1, 2))\n"},
			file: "a.py", call: [2]uint32{2, 6}, hover: "def add", sig: "a: int"},
		{name: "typescript-language-server", peer: testenv.TypeScriptLS, args: []string{"--stdio"}, lang: "typescript",
			files: map[string]string{"tsconfig.json": "{}\n",
				"a.ts": "export function add(a: number, b: number): number { return a + b; }\nconsole.log(add(1, 2));\n"},
			file: "a.ts", call: [2]uint32{1, 12}, hover: "function add", sig: "a: number", semantic: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := testenv.Peer(t, tc.peer)
			dir := t.TempDir()
			testenv.WriteTree(t, dir, tc.files)
			path := filepath.Join(dir, tc.file)
			text, err := os.ReadFile(path)
			require.NoError(t, err)

			rt := newRT(t)
			c, err := Start(rt, Config{Argv: append([]string{prog}, tc.args...), Dir: dir, Root: dir})
			require.NoError(t, err)
			t.Cleanup(func() {
				start := time.Now()
				require.NoError(t, c.Close())
				require.Less(t, time.Since(start), 10*time.Second, "Close is bounded")
			})
			require.NoError(t, c.Open(path, tc.lang, text))
			pump(t, rt, c, serversTimeout, func() bool { return c.Capabilities() != nil })
			for _, m := range []string{protocol.MethodTextDocumentHover, protocol.MethodTextDocumentDefinition,
				protocol.MethodTextDocumentDocumentSymbol, protocol.MethodTextDocumentReferences,
				protocol.MethodTextDocumentCompletion, protocol.MethodTextDocumentSignatureHelp} {
				require.True(t, c.Supports(m), "%s announces %s", tc.name, m)
			}

			request := func(method string, params any) Result {
				t.Helper()
				// A server still loading may answer null or "not ready":
				// ask again.
				deadline := time.Now().Add(serversTimeout)
				for {
					o, r := awaitWithin(t, rt, c, c.Request(method, params, RequestOptions{Timeout: serversTimeout}))
					if o.OK() && r.Value != nil && !isEmptyResult(r.Value) {
						return r
					}
					require.True(t, time.Now().Before(deadline), "%s: %v", method, o.Err)
					time.Sleep(100 * time.Millisecond)
				}
			}

			def := request(protocol.MethodTextDocumentDefinition, docPos(path, tc.call[0], tc.call[1]))
			require.Equal(t, []uint32{0}, definitionLines(t, def.Value), "add is defined on line 0")

			hover := request(protocol.MethodTextDocumentHover, docPos(path, tc.call[0], tc.call[1]))
			require.Contains(t, hoverText(t, hover.Value), tc.hover)

			syms := request(protocol.MethodTextDocumentDocumentSymbol, map[string]any{
				"textDocument": map[string]any{"uri": string(docURI(path))}})
			require.Contains(t, fmt.Sprint(syms.Value), "add", "document symbols name add")

			refs := request(protocol.MethodTextDocumentReferences, map[string]any{
				"textDocument": map[string]any{"uri": string(docURI(path))},
				"position":     map[string]any{"line": tc.call[0], "character": tc.call[1]},
				"context":      map[string]any{"includeDeclaration": true}})
			require.ElementsMatch(t, []uint32{0, tc.call[0]}, definitionLines(t, refs.Value), "the definition and the call")

			// In the middle of the called name: "ad" is a prefix of add.
			comp := request(protocol.MethodTextDocumentCompletion, docPos(path, tc.call[0], tc.call[1]+2))
			require.Contains(t, fmt.Sprint(comp.Value), "add", "completion offers add")

			// Inside the call's parentheses, after "add(".
			sig := request(protocol.MethodTextDocumentSignatureHelp, docPos(path, tc.call[0], tc.call[1]+4))
			require.Contains(t, fmt.Sprint(sig.Value), tc.sig, "the signature of add")

			require.Equal(t, tc.semantic, c.Supports(protocol.MethodTextDocumentSemanticTokensFull), "semantic tokens announced")
			if tc.semantic {
				tok := request(protocol.MethodTextDocumentSemanticTokensFull, map[string]any{
					"textDocument": map[string]any{"uri": string(docURI(path))}})
				st, ok := tok.Value.(*SemanticTokens)
				require.True(t, ok, "semantic tokens decode: %T", tok.Value)
				require.NotEmpty(t, st.Tokens, "the program has tokens")
			}
		})
	}
}

func definitionLines(t *testing.T, v any) []uint32 {
	t.Helper()
	var lines []uint32
	switch d := v.(type) {
	case *protocol.Location:
		lines = append(lines, d.Range.Start.Line)
	case protocol.LocationSlice:
		for _, l := range d {
			lines = append(lines, l.Range.Start.Line)
		}
	case []protocol.Location:
		for _, l := range d {
			lines = append(lines, l.Range.Start.Line)
		}
	default:
		t.Fatalf("definition result %T: %v", v, v)
	}
	return lines
}

func hoverText(t *testing.T, v any) string {
	t.Helper()
	h, ok := v.(*protocol.Hover)
	require.True(t, ok, "hover result %T", v)
	switch c := h.Contents.(type) {
	case *protocol.MarkupContent:
		return c.Value
	default:
		return strings.TrimSpace(fmt.Sprint(c))
	}
}

// isEmptyResult: a null or empty answer a server gives while it loads.
func isEmptyResult(v any) bool {
	switch r := v.(type) {
	case *protocol.Hover:
		return r == nil
	case *protocol.Location:
		return r == nil
	case protocol.LocationSlice:
		return len(r) == 0
	case []protocol.Location:
		return len(r) == 0
	}
	s := strings.TrimSpace(fmt.Sprint(v))
	return s == "" || s == "[]" || s == "null"
}
