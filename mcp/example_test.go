//go:build linux

package mcp_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/pmacs-go/pmacs-go/mcp"
	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// A tool call is a job: the host is registered with the runtime, whose
// Tick polls it, and the frame loop ticks and takes the result once it has
// settled.
func Example() {
	rt, err := runtime.New(runtime.Options{})
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	host := mcp.NewHost(rt)
	defer host.Close()
	defer rt.AddPoller(host)()

	// This example's server is the test binary itself, in mcptest's
	// serve mode; an editor would name a program such as
	// {"my-mcp-server", "--stdio"}.
	conn, err := host.Connect(context.Background(), mcp.Spec{
		Argv: []string{os.Args[0]},
		Env:  []string{mcptest.Env(mcptest.ModeServe)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	id := conn.Call("echo", map[string]any{"text": "hello"}, mcp.RequestOptions{Timeout: 5 * time.Second})
	for {
		rt.Tick()
		if out, ok := rt.TakeResult(id); ok {
			v, _ := out.External() // an MCP reply, decoded: maps and arrays of any
			fmt.Println(out.State, v.(map[string]any)["text"])
			break
		}
		<-rt.Ready() // the host's replies wake it too
	}
	// Output: complete hello
}
