package parsejob_test

import (
	"fmt"

	"github.com/pmacs-go/pmacs-go/kinds/parsejob"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/syntax"
)

// A parse job runs on a worker against a clone of the prior tree, so the main
// goroutine keeps its tree while the reparse runs; the new tree waits in the
// handoff until TakeTree, before TakeResult.
func ExampleDispatch() {
	rt, err := runtime.New(runtime.Options{})
	if err != nil {
		panic(err)
	}
	defer rt.Close()

	parse := func(src string, prior *syntax.Tree) *syntax.Tree {
		id := parsejob.Dispatch(rt, syntax.Request{Source: []byte(src), Language: "lua", Prior: prior},
			runtime.DispatchOptions{Key: "parse:buffer1"})
		for !rt.IsComplete(id) {
			<-rt.Ready()
			rt.Tick()
		}
		tree := parsejob.TakeTree(rt, id)
		o, _ := rt.TakeResult(id)
		res, _ := parsejob.ResultOf(o)
		fmt.Println(o.State, res.Duration > 0)
		return tree
	}
	v1 := parse("local x = 1\n", nil)
	defer v1.Close()
	v2 := parse("local x = f(1)\n", v1) // the edit is computed from the two texts
	defer v2.Close()
	fmt.Println(v1.HasError(), v2.HasError(), string(v1.Source()))
	// Output:
	// complete true
	// complete true
	// false false local x = 1
}
