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

// A tool call is a job: the frame loop pumps the host, ticks the runtime
// and takes the result once it has settled.
func Example() {
	rt, err := runtime.New(runtime.Options{})
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	host := mcp.NewHost(rt)
	defer host.Close()

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
		host.Pump()
		rt.Tick()
		if out, ok := rt.TakeResult(id); ok {
			v, _ := out.External() // an MCP reply, decoded: maps and arrays of any
			fmt.Println(out.State, v.(map[string]any)["text"])
			break
		}
		select {
		case <-host.Ready():
		case <-rt.Ready():
		}
	}
	// Output: complete hello
}
