package syntax

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// samples holds a small, valid document per registered language.
var samples = map[string]string{
	"bash":            "#!/bin/sh\nfor f in *.go; do\n  echo \"$f\" | wc -l\ndone\n",
	"c":               "#include <stdio.h>\nint main(void) { printf(\"hi\\n\"); return 0; }\n",
	"cpp":             "namespace n { class A { public: int f() const { return 1; } }; }\n",
	"css":             "body > .x { color: #fff; margin: 0 auto; }\n",
	"go":              "package main\n\nfunc main() { println(\"hi\", 42) }\n",
	"html":            "<!DOCTYPE html>\n<p class=\"x\">Hello &amp; bye</p>\n",
	"javascript":      "function add(a, b) { return a + b; }\nconst x = add(1, 2);\n",
	"lua":             "local function add(a, b)\n  return a + b\nend\nprint(add(1, 2))\n",
	"markdown":        "# Title\n\nSome *text* and `code`.\n\n```lua\nlocal x = 1\n```\n",
	"markdown_inline": "Some *emphasis*, `code` and a [link](http://x).",
	"python":          "def add(a, b):\n    return a + b\n\nprint(add(1, 2))\n",
	"rust":            "fn main() { let _x = 1 + 2; }\n",
	"toml":            "[server]\nport = 8080\nname = \"x\"\n",
	"tsx":             "const App = (p: {n: number}) => <div id=\"a\">{p.n}</div>;\n",
	"typescript":      "interface P { n: number }\nfunction f(p: P): number { return p.n; }\n",
	"yaml":            "server:\n  port: 8080\n  tags: [a, b]\n",
}

// Acceptance: the registry knows at least the languages the issue lists,
// sorted, and Languages returns a copy the caller may modify.
func TestLanguagesListsTheRequiredGrammarsSorted(t *testing.T) {
	names := Languages()
	require.True(t, sort.StringsAreSorted(names))
	for _, want := range []string{"go", "rust", "lua", "python", "javascript", "typescript", "tsx",
		"c", "cpp", "bash", "markdown", "markdown_inline", "yaml", "toml", "html", "css"} {
		require.Contains(t, names, want)
	}
	names[0] = "mangled"
	require.NotEqual(t, "mangled", Languages()[0])
}

// Acceptance: an unknown language fails with a message listing the known
// ones, matchable with errors.Is, from Lookup and from Parse.
func TestUnknownLanguageErrorListsKnownNames(t *testing.T) {
	_, err := Lookup("cobol")
	require.ErrorIs(t, err, ErrUnknownLanguage)
	require.Contains(t, err.Error(), `"cobol"`)
	require.Contains(t, err.Error(), strings.Join(Languages(), ", "))

	_, err = Parse(context.Background(), Request{Source: []byte("x"), Language: "cobol"})
	require.ErrorIs(t, err, ErrUnknownLanguage)
	require.Contains(t, err.Error(), "rust")
}

// Acceptance: every registered language parses a small sample without
// errors, and its highlights query compiles and yields at least one capture.
func TestEveryLanguageParsesAndHighlights(t *testing.T) {
	for _, name := range Languages() {
		t.Run(name, func(t *testing.T) {
			src, ok := samples[name]
			require.True(t, ok, "no sample for %s", name)
			tree, err := Parse(context.Background(), Request{Source: []byte(src), Language: name})
			require.NoError(t, err)
			defer tree.Close()
			require.Equal(t, name, tree.Language())
			require.False(t, tree.HasError(), tree.SExpr())

			l, err := Lookup(name)
			require.NoError(t, err)
			require.Equal(t, name, l.Name())
			_, err = l.highlightsQuery()
			require.NoError(t, err)

			spans, err := tree.Highlights(0, 1000)
			require.NoError(t, err)
			require.NotEmpty(t, spans)
		})
	}
}

// Acceptance: every query file shipped belongs to a registered language, so
// none is dead weight and none is silently missing.
func TestQueryFilesMatchTheRegistry(t *testing.T) {
	entries, err := queryFiles.ReadDir("queries")
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".scm"); ok {
			names = append(names, n)
		}
	}
	require.Equal(t, Languages(), names)
}
