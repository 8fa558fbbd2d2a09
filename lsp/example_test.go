package lsp

import (
	"fmt"
	"os"
	"time"

	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// A frame loop driving one hover request. The client is registered with
// the runtime, whose Tick polls it, so the loop only ticks and waits on the
// runtime. An editor would start Config{Argv: []string{"gopls"}, Dir:
// root}; the example runs the test suite's fake server instead so its
// output is fixed.
func ExampleClient_Request() {
	rt, err := runtime.New(runtime.Options{})
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	c, err := Start(rt, Config{
		Argv: []string{os.Args[0]},
		Env:  []string{fakeServerEnv + "=1", "GORACE=atexit_sleep_ms=0"},
	})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	defer rt.AddPoller(c)()

	// Made before initialize is answered: it waits for it.
	job := c.Request(protocol.MethodTextDocumentHover, map[string]any{
		"textDocument": map[string]any{"uri": "file:///src/main.go"},
		"position":     map[string]any{"line": 4, "character": 5},
	}, RequestOptions{Key: "hover", Timeout: 10 * time.Second})

	for !rt.IsComplete(job) {
		select {
		case <-rt.Ready(): // the client's messages wake it too
		case <-time.After(16 * time.Millisecond): // the frame deadline
		}
		rt.Tick() // polls the client, and the jobs it settled settle here
	}
	outcome, _ := rt.TakeResult(job)
	res, _ := c.TakeResult(job)
	fmt.Println(outcome.State, res.Value.(*protocol.Hover).Contents.(*protocol.MarkupContent).Value)
	// Output: complete fake hover
}

// A file watcher's glob, compiled once and matched against the paths of
// the changes a host saw.
func ExampleCompileGlob() {
	g, err := CompileGlob("**/*.{go,mod}")
	if err != nil {
		panic(err)
	}
	for _, p := range []string{"/src/m/a.go", "/src/m/go.mod", "/src/m/go.sum"} {
		fmt.Println(p, g.Match(p))
	}
	// Output:
	// /src/m/a.go true
	// /src/m/go.mod true
	// /src/m/go.sum false
}
