package grepjob_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/kinds/grepjob"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// A grep is a stream: each frame, Tick takes the workers' replies and
// TakeStreamBatches hands out at most one batch per stream. The closing batch
// carries the stream's outcome; the job is gone after it.
func ExampleDispatch() {
	root, err := os.MkdirTemp("", "grepjob-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	for name, text := range map[string]string{
		"a.go": "// TODO: one\n",
		"b.go": "package b\n// TODO: two\n// TODO: three\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			panic(err)
		}
	}

	rt, err := runtime.New(runtime.Options{})
	if err != nil {
		panic(err)
	}
	defer rt.Close()

	// The key makes the search supersede an earlier one dispatched under it.
	id := grepjob.Dispatch(rt, grep.Spec{Root: root, Pattern: "TODO"}, runtime.DispatchOptions{Key: "search"})
	var hits []string
	for done := false; !done; {
		<-rt.Ready()
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			if b.ID != id {
				continue
			}
			for _, m := range grepjob.MatchesOf(b) {
				hits = append(hits, fmt.Sprintf("%s:%d", m.File, m.Line))
			}
			if b.Closed {
				fmt.Println("closed:", b.Outcome.State, "superseded:", b.Superseded)
				done = true
			}
		}
	}
	sort.Strings(hits) // files arrive in the order the workers finish them
	fmt.Println(hits)
	_, _, known := rt.Lookup(id)
	fmt.Println("still pending:", known)
	// Output:
	// closed: complete superseded: false
	// [a.go:1 b.go:2 b.go:3]
	// still pending: false
}

// A list that shows a screenful of a large result dispatches its grep with
// DispatchBlocks: each batch brings a count and blocks of matches that are
// decoded only when read, so the frame that takes 10,000 matches pays for
// the forty it draws.
func ExampleMatchBlock() {
	root, err := os.MkdirTemp("", "grepjob-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	var text strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&text, "row %d: needle\n", i)
	}
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(text.String()), 0o644); err != nil {
		panic(err)
	}

	rt, err := runtime.New(runtime.Options{})
	if err != nil {
		panic(err)
	}
	defer rt.Close()

	id := grepjob.DispatchBlocks(rt, grep.Spec{Root: root, Pattern: "needle"}, runtime.DispatchOptions{})
	var rows []*grepjob.MatchBlock // the list's rows, as blocks
	count := 0
	for done := false; !done; {
		<-rt.Ready()
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			if b.ID != id {
				continue
			}
			count += b.Len()
			rows = append(rows, grepjob.BlocksOf(b)...)
			done = b.Closed
		}
	}
	// Draw the first row: only its match is decoded.
	m := rows[0].At(0)
	fmt.Println(count, "matches; first row:", m.File, m.Line, m.Text)
	// Output:
	// 1000 matches; first row: big.txt 1 row 0: needle
}
