package fsjob_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pmacs-go/pmacs-go/kinds/fsjob"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// A filesystem job that fails wraps fsops' error, so errors.Is matches the
// standard sentinels and errors.As the standard *os.LinkError; its
// *runtime.JobError carries the errno name as its code, for a script to
// branch on. A rename that completes is reported in the Resources
// of the Tick that settled it, so the editor can retarget open buffers.
func ExampleRename() {
	dir, err := os.MkdirTemp("", "runtime-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			panic(err)
		}
	}

	rt, err := runtime.New(runtime.Options{})
	if err != nil {
		panic(err)
	}
	defer rt.Close()

	settle := func(id runtime.JobID) runtime.Outcome {
		for !rt.IsComplete(id) {
			<-rt.Ready()
			rt.Tick()
		}
		o, _ := rt.TakeResult(id)
		return o
	}
	o := settle(fsjob.Rename(rt, a, b, false, fsjob.Scope{}, runtime.DispatchOptions{}))
	var je *runtime.JobError
	var le *os.LinkError
	if errors.As(o.Err, &je) && errors.As(o.Err, &le) {
		fmt.Println("refused:", o.State, je.Code, errors.Is(o.Err, fs.ErrExist), filepath.Base(le.New))
	}

	id := fsjob.Rename(rt, a, b, true, fsjob.Scope{}, runtime.DispatchOptions{})
	for !rt.IsComplete(id) {
		<-rt.Ready()
		for _, r := range rt.Tick().Resources {
			fmt.Println(r.Op, filepath.Base(r.From), "->", filepath.Base(r.To))
		}
	}
	o, _ = rt.TakeResult(id)
	fmt.Println(o.State, o.Err == nil)
	// Output:
	// refused: failed EEXIST true b.txt
	// rename a.txt -> b.txt
	// complete true
}
