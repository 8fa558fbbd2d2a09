package syntax

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const fencedDoc = "# Notes\n\nSome *text*.\n\n```lua\nlocal x = 1\nprint(x)\n```\n\n> ```lua\n> local y = 2\n> ```\n\n```cobol\nDISPLAY 'X'.\n```\n"

func injectionsOf(tree *Tree, lang string) []Injection {
	var out []Injection
	for _, inj := range tree.Injections() {
		if inj.Language == lang {
			out = append(out, inj)
		}
	}
	return out
}

// Acceptance: a markdown fence tagged lua is parsed with the lua grammar; the
// result holds the root tree plus the injected trees with their byte ranges,
// and injected positions are document positions. A fence inside a block
// quote parses without the "> " markers; an unknown tag is left alone.
func TestMarkdownFenceBodiesParseWithTheTaggedGrammar(t *testing.T) {
	tree := mustParse(t, "markdown", fencedDoc)
	require.Equal(t, "document", tree.RootType())

	lua := injectionsOf(tree, "lua")
	require.Len(t, lua, 2)
	body := "local x = 1\nprint(x)\n"
	start := strings.Index(fencedDoc, body)
	require.Equal(t, uint32(start), lua[0].StartByte)
	require.Equal(t, uint32(start+len(body)), lua[0].EndByte)
	require.Equal(t, "program", lua[0].Tree.RootType())
	require.False(t, lua[0].Tree.HasError(), lua[0].Tree.SExpr())
	require.Contains(t, lua[0].Tree.SExpr(), "function_call")
	// The body starts on row 5 of the document, column 0.
	root := lua[0].Tree.ts.RootNode()
	require.Equal(t, uint32(5), root.NamedChild(0).StartPoint().Row)
	require.Equal(t, uint32(start), root.NamedChild(0).StartByte())

	require.False(t, lua[1].Tree.HasError(), "quoted fence: %s", lua[1].Tree.SExpr())
	require.Contains(t, lua[1].Tree.SExpr(), "variable_declaration")

	require.NotEmpty(t, injectionsOf(tree, markdownInline), "inline content uses the inline grammar")
	require.Contains(t, injectionsOf(tree, markdownInline)[1].Tree.SExpr(), "emphasis")
	for i := 1; i < len(tree.Injections()); i++ {
		require.Less(t, tree.Injections()[i-1].StartByte, tree.Injections()[i].StartByte, "document order")
	}
}

// Acceptance: a caller's alias map replaces the default one: its tags are
// injected, others are not, and an empty map turns fences off (the inline
// grammar still applies).
func TestInjectionAliasesComeFromTheRequest(t *testing.T) {
	doc := "```moon\nlocal a = 1\n```\n\n```lua\nlocal b = 2\n```\n"
	tree, err := Parse(context.Background(), Request{Source: []byte(doc), Language: "markdown",
		Injections: map[string]string{"moon": "lua"}})
	require.NoError(t, err)
	defer tree.Close()
	lua := injectionsOf(tree, "lua")
	require.Len(t, lua, 1)
	require.Equal(t, uint32(strings.Index(doc, "local a")), lua[0].StartByte)

	tree2, err := Parse(context.Background(), Request{Source: []byte(fencedDoc), Language: "markdown",
		Injections: map[string]string{}})
	require.NoError(t, err)
	defer tree2.Close()
	require.Empty(t, injectionsOf(tree2, "lua"))
	require.NotEmpty(t, injectionsOf(tree2, markdownInline))

	// Default map: tags are matched case-insensitively and common aliases work.
	tree3 := mustParse(t, "markdown", "```Python\nx = 1\n```\n\n```sh\necho hi\n```\n")
	require.Len(t, injectionsOf(tree3, "python"), 1)
	require.Len(t, injectionsOf(tree3, "bash"), 1)
}

// Acceptance: an incremental reparse of markdown rebuilds the injections to
// match a fresh parse, and Clone copies the injected trees.
func TestMarkdownReparseAndCloneKeepInjections(t *testing.T) {
	prior := mustParse(t, "markdown", fencedDoc)
	next := strings.Replace(fencedDoc, "print(x)", "print(x, 'more')\nlocal z = {", 1)
	tree, err := Parse(context.Background(), Request{Source: []byte(next), Language: "markdown", Prior: prior})
	require.NoError(t, err)
	defer tree.Close()
	fresh := mustParse(t, "markdown", next)
	require.Equal(t, fresh.SExpr(), tree.SExpr())
	require.Equal(t, len(fresh.Injections()), len(tree.Injections()))
	for i, inj := range fresh.Injections() {
		got := tree.Injections()[i]
		require.Equal(t, inj.Language, got.Language)
		require.Equal(t, inj.StartByte, got.StartByte)
		require.Equal(t, inj.Tree.SExpr(), got.Tree.SExpr())
	}
	require.True(t, tree.HasError(), "the unclosed lua table is an error in an injected tree")

	clone := tree.Clone()
	defer clone.Close()
	require.Len(t, clone.Injections(), len(tree.Injections()))
	require.NotSame(t, tree.Injections()[0].Tree, clone.Injections()[0].Tree)
}
