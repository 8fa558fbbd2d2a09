package syntax_test

import (
	"context"
	"fmt"

	"github.com/pmacs-go/pmacs-go/syntax"
)

// An editor parses a buffer once, then reparses each new version with the
// previous tree and the edit that produced it, so only the changed part is
// parsed again. The result is the tree a fresh parse would give.
func ExampleParse_incremental() {
	ctx := context.Background()
	v1 := []byte("local x = 1\n")
	tree, err := syntax.Parse(ctx, syntax.Request{Source: v1, Language: "lua"})
	if err != nil {
		panic(err)
	}
	defer tree.Close()
	fmt.Println(tree.RootType(), tree.HasError())

	// Replace "1" (byte 10) with "f(2)".
	v2 := []byte("local x = f(2)\n")
	edit := syntax.Edit{
		StartByte: 10, OldEndByte: 11, NewEndByte: 14,
		StartPoint: syntax.Point{Row: 0, Column: 10}, OldEndPoint: syntax.Point{Row: 0, Column: 11},
		NewEndPoint: syntax.Point{Row: 0, Column: 14},
	}
	next, err := syntax.Parse(ctx, syntax.Request{Source: v2, Language: "lua", Prior: tree, Edits: []syntax.Edit{edit}})
	if err != nil {
		panic(err)
	}
	defer next.Close()

	fresh, err := syntax.Parse(ctx, syntax.Request{Source: v2, Language: "lua"})
	if err != nil {
		panic(err)
	}
	defer fresh.Close()
	fmt.Println(next.SExpr() == fresh.SExpr(), next.HasError())

	// Without Edits, Parse finds the changed span from the two texts itself.
	v3 := []byte("local y = f(2)\n")
	auto, err := syntax.Parse(ctx, syntax.Request{Source: v3, Language: "lua", Prior: next})
	if err != nil {
		panic(err)
	}
	defer auto.Close()
	fmt.Println(string(auto.Source()) == string(v3), auto.HasError())
	// Output:
	// program false
	// true false
	// true false
}

// Highlights returns the capture spans of a range of rows; an editor paints
// each span with the colour of its group.
func ExampleTree_Highlights() {
	tree, err := syntax.Parse(context.Background(), syntax.Request{Source: []byte("return true\n"), Language: "lua"})
	if err != nil {
		panic(err)
	}
	defer tree.Close()
	spans, err := tree.Highlights(0, 1)
	if err != nil {
		panic(err)
	}
	for _, s := range spans {
		fmt.Printf("%d-%d %s\n", s.StartByte, s.EndByte, s.Group)
	}
	// Output:
	// 0-6 keyword
	// 7-11 boolean
}
