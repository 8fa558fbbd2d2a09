package runtime_test

import (
	"context"
	"errors"
	"fmt"

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

// hoverKind is a language client's request kind: the runtime knows no kind,
// so a client registers its own once, at init (package lsp's is
// lsp.RequestKind).
var hoverKind = runtime.RegisterKind(runtime.KindSpec{Name: "lsp_request"})

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
	id, _ := rt.RegisterExternal(hoverKind, "hover")
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
	first, firstCtx := rt.RegisterExternal(hoverKind, "hover")
	second, _ := rt.RegisterExternal(hoverKind, "hover")
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
