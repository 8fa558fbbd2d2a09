package luabind_test

import (
	"fmt"
	"os"
	"time"

	"github.com/pmacs-go/pmacs-go/luabind"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// A script awaits jobs as if they were calls; the editor's loop drives it by
// calling Frame whenever the runtime has replies. Frame ticks the runtime and
// resumes the tasks whose jobs settled, on the loop's own goroutine.
func ExampleBinding_Frame() {
	rt, err := runtime.New(runtime.Options{})
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	b, err := luabind.New(rt, luabind.Options{Stdout: os.Stdout, Stderr: os.Stdout})
	if err != nil {
		panic(err)
	}
	defer b.Close()

	fn, err := b.LoadString(`
		local w = pmacs.workers
		local n = w.sum(1000):await()         -- runs on a worker; this task parks
		print("sum", n)
		local ok, err, name = w.fs.stat("/does/not/exist"):await()
		print("stat", ok, name)
		return n * 2
	`, "example.lua")
	if err != nil {
		panic(err)
	}
	task := b.Spawn(fn)
	// A real loop selects on these beside its terminal input. The frame
	// timer runs tasks whose wake-up owes nothing to a worker reply.
	frame := time.NewTicker(16 * time.Millisecond)
	defer frame.Stop()
	for b.Busy() {
		select {
		case <-rt.Ready():
		case <-frame.C:
		}
		b.Frame()
	}
	fmt.Println(task.Err(), task.Results())
	// Output:
	// sum	500500
	// stat	nil	ENOENT
	// <nil> [1001000]
}
