package fuzzy_test

import (
	"context"
	"fmt"

	"github.com/pmacs-go/pmacs-go/fuzzy"
)

func ExampleSearch() {
	store := fuzzy.NewStore([]string{
		"runtime/runtime.go",
		"runtime/supersede.go",
		"workers/executor.go",
		"docs/DESIGN.md",
	})
	res, err := fuzzy.Search(context.Background(), store, fuzzy.ParsePattern("rtsup"), fuzzy.Options{Limit: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range res.Matches {
		fmt.Println(store.Item(m.Index), m.Positions)
	}
	// Output:
	// runtime/supersede.go [0 3 8 9 10]
}

func ExampleResult_Refine() {
	store := fuzzy.NewStore([]string{"bus/bus.go", "bus/bus_test.go", "grep/search.go", "luabind/stream_iter.go"})
	ctx := context.Background()
	res, err := fuzzy.Search(ctx, store, fuzzy.ParsePattern("s"), fuzzy.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The user typed two more characters: only the previous matches are scored again.
	for _, q := range []string{"st", "st !test"} {
		res, err = res.Refine(ctx, fuzzy.ParsePattern(q), fuzzy.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q:", q)
		for _, m := range res.Matches {
			fmt.Printf(" %s", store.Item(m.Index))
		}
		fmt.Println()
	}
	// Output:
	// "st": luabind/stream_iter.go bus/bus_test.go
	// "st !test": luabind/stream_iter.go
}

func ExampleParsePattern() {
	store := fuzzy.NewStore([]string{"cmd/main.go", "cmd/main_test.go", "main.c", "src/Main.java"})
	for _, q := range []string{"main", "Main", "'main .go$ !test", "^cmd | .c$"} {
		res, err := fuzzy.Search(context.Background(), store, fuzzy.ParsePattern(q), fuzzy.Options{NoPositions: true})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-18q", q)
		for _, m := range res.Matches {
			fmt.Printf(" %s", store.Item(m.Index))
		}
		fmt.Println()
	}
	// Output:
	// "main"             main.c cmd/main.go src/Main.java cmd/main_test.go
	// "Main"             src/Main.java
	// "'main .go$ !test" cmd/main.go
	// "^cmd | .c$"       cmd/main.go cmd/main_test.go main.c
}

func ExampleStore() {
	var store fuzzy.Store
	store.AddLines([]byte("README.md\ngo.mod\ngo.sum\n"))
	i := store.Add("docs/guide.md")
	if err := store.Remove(1); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(store.Len(), store.Live(), store.Item(i), store.Removed(1))
	// Output:
	// 4 3 docs/guide.md true
}
