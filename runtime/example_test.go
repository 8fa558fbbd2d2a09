package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// settle runs the editor loop's core until id has settled: wait for the
// runtime's ready signal, then Tick. A real loop selects on Ready beside its
// terminal input and timers instead of blocking on it.
func settle(rt *runtime.Runtime, id runtime.JobID) runtime.Outcome {
	for !rt.IsComplete(id) {
		<-rt.Ready()
		rt.Tick()
	}
	o, _ := rt.TakeResult(id)
	return o
}

// A grep is a stream: each frame, Tick takes the workers' replies and
// TakeStreamBatches hands out at most one batch per stream. The closing batch
// carries the stream's outcome; the job is gone after it.
func ExampleRuntime_DispatchGrep() {
	root, err := os.MkdirTemp("", "runtime-example")
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
	id := rt.DispatchGrep(grep.Spec{Root: root, Pattern: "TODO"}, runtime.DispatchOptions{Key: "search"})
	var hits []string
	for done := false; !done; {
		<-rt.Ready()
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			if b.ID != id {
				continue
			}
			for _, m := range b.Matches {
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
// MatchBlocks: each batch brings a count and blocks of matches that are
// decoded only when read, so the frame that takes 10,000 matches pays for
// the forty it draws.
func ExampleMatchBlock() {
	root, err := os.MkdirTemp("", "runtime-example")
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

	id := rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle"}, runtime.DispatchOptions{MatchBlocks: true})
	var rows []*runtime.MatchBlock // the list's rows, as blocks
	count := 0
	for done := false; !done; {
		<-rt.Ready()
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			if b.ID != id {
				continue
			}
			count += b.Len()
			rows = append(rows, b.Blocks...)
			done = b.Closed
		}
	}
	// Draw the first row: only its match is decoded.
	m := rows[0].At(0)
	fmt.Println(count, "matches; first row:", m.File, m.Line, m.Text)
	// Output:
	// 1000 matches; first row: big.txt 1 row 0: needle
}

// An external job is one that something outside the worker pool settles: a
// language server's reply, say. No worker waits for it. The goroutine that
// reads the reply hands it to the main goroutine, which completes the job;
// the job's context ends if it is cancelled or superseded first.
func ExampleRuntime_RegisterExternal() {
	rt, err := runtime.New(runtime.Options{})
	if err != nil {
		panic(err)
	}
	defer rt.Close()

	replies := make(chan map[string]any)
	id, _ := rt.RegisterExternal(runtime.KindLSPRequest, "hover")
	go func() { replies <- map[string]any{"contents": "func main()"} }() // the server's reader

	if err := rt.CompleteExternalOK(id, <-replies); err != nil {
		panic(err)
	}
	o := settle(rt, id)
	v, _ := o.External()
	fmt.Println(o.State, v.(map[string]any)["contents"])

	// A second request under the same key supersedes the first: its context
	// ends, and its requester stops waiting for the server and settles it
	// Cancelled (no worker does that for an external job).
	first, firstCtx := rt.RegisterExternal(runtime.KindLSPRequest, "hover")
	second, _ := rt.RegisterExternal(runtime.KindLSPRequest, "hover")
	<-firstCtx.Done()
	fmt.Println(firstCtx.Err() == context.Canceled, context.Cause(firstCtx) == runtime.ErrSuperseded)
	rt.CompleteExternalCancelled(first)
	errExited := errors.New("server exited")
	rt.CompleteExternalFailed(second, errExited)
	o = settle(rt, second)
	fmt.Println(o.State, o.Err, errors.Is(o.Err, errExited))
	o = settle(rt, first)
	fmt.Println(o.State, errors.Is(o.Err, context.Canceled), errors.Is(o.Err, runtime.ErrSuperseded))
	// Output:
	// complete func main()
	// true true
	// failed server exited true
	// cancelled true true
}
