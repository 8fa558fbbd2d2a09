package diffjob_test

import (
	"fmt"

	"github.com/pmacs-go/pmacs-go/kinds/diffjob"
	"github.com/pmacs-go/pmacs-go/kinds/textsearch"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// A diff of a file's text with the rows an editor holds: the rows are lent
// (no copy), compared on a worker, and the job completes with the hunks.
func ExampleDispatch() {
	rt, err := runtime.New(runtime.Options{})
	if err != nil {
		panic(err)
	}
	defer rt.Close()

	rows := textsearch.NewSnapshot([]string{"package main", "", "func main() {", "\tprintln(1)", "}"})
	id := diffjob.Dispatch(rt, diffjob.Spec{
		A: diffjob.String("package main\n\nfunc main() {\n}\n"),
		B: diffjob.Lines(rows),
	}, runtime.DispatchOptions{})
	for !rt.IsComplete(id) {
		<-rt.Ready()
		rt.Tick()
	}
	out, _ := rt.TakeResult(id)
	hunks, _ := diffjob.HunksOf(out)
	for _, h := range hunks {
		fmt.Printf("@@ -%d,%d +%d,%d @@\n", h.OldStart, h.OldCount, h.NewStart, h.NewCount)
	}
	// Output:
	// @@ -3,0 +4,1 @@
}
