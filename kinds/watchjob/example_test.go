package watchjob_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pmacs-go/pmacs-go/kinds/watchjob"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// A watch is a stream that ends only when cancelled: each frame, Tick takes
// the watcher's replies and TakeStreamBatches hands out its changes. The
// first progress says the tree is watched.
func ExampleDispatch() {
	root, err := os.MkdirTemp("", "watchjob-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	rt, err := runtime.New(runtime.Options{})
	if err != nil {
		panic(err)
	}
	defer rt.Close()

	id := watchjob.Dispatch(rt, watchjob.Spec{Root: root}, runtime.DispatchOptions{})
	made := false
	for done := false; !done; {
		<-rt.Ready()
		rt.Tick()
		if n, _ := rt.StreamProgress(id); n > 0 && !made {
			made = true
			if err := os.WriteFile(filepath.Join(root, "notes.txt"), nil, 0o644); err != nil {
				panic(err)
			}
		}
		for _, b := range rt.TakeStreamBatches() {
			if b.ID != id {
				continue
			}
			for _, c := range watchjob.ChangesOf(b) {
				fmt.Println(c.Op, filepath.Base(c.Path))
				rt.Cancel(id)
			}
			if b.Closed {
				fmt.Println(b.Outcome.State)
				done = true
			}
		}
	}
	// Output:
	// create notes.txt
	// cancelled
}
