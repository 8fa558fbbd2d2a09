// Package mcptest is an MCP server built on the official go-sdk's server API,
// for testing MCP clients against the real protocol: tools that answer, that
// report progress, that wait until cancelled, that crash the server, that
// return large results or errors, one resource and one prompt. Main also runs
// programs that are not well-behaved servers (garbage output, silence, a
// server that ignores the end of its input and SIGTERM), which is how a client
// proves its liveness guarantees.
//
// Client tests usually run their own test binary as the server: TestMain
// calls RunIfServer first, and the test starts os.Args[0] with Env(mode).
// The mcptestserver command runs the same server as a standalone program.
package mcptest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The modes Main runs.
const (
	// ModeServe serves MCP on stdin/stdout and exits when stdin ends.
	ModeServe = "serve"
	// ModeGarbage prints lines that are not JSON-RPC and then waits for
	// stdin to end.
	ModeGarbage = "garbage"
	// ModeSilent reads stdin and prints nothing.
	ModeSilent = "silent"
	// ModeStubborn serves MCP but, once stdin ends, ignores SIGTERM and
	// never exits, with a child process of its own in its group.
	ModeStubborn = "stubborn"
	// ModeBulk serves MCP with the tools of NewBulkServer.
	ModeBulk = "bulk"
)

// ModeEnv is the environment variable that makes RunIfServer run a server.
const ModeEnv = "PMACS_MCPTEST_MODE"

// Env returns the environment entry that selects mode for RunIfServer.
func Env(mode string) string { return ModeEnv + "=" + mode }

// RunIfServer runs Main and exits the process when ModeEnv is set, and
// returns otherwise. Call it first in TestMain.
func RunIfServer() {
	if mode := os.Getenv(ModeEnv); mode != "" {
		os.Exit(Main(mode))
	}
}

// Main runs mode over the process's stdin and stdout and returns the exit
// status.
func Main(mode string) int {
	ctx := context.Background()
	switch mode {
	case ModeServe:
		if err := NewServer().Run(ctx, &sdk.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
			fmt.Fprintln(os.Stderr, "mcptest:", err)
		}
		return 0
	case ModeBulk:
		if err := NewBulkServer().Run(ctx, &sdk.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
			fmt.Fprintln(os.Stderr, "mcptest:", err)
		}
		return 0
	case ModeGarbage:
		fmt.Println("hello, I am not an MCP server")
		fmt.Println("{this is not json either")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case ModeSilent:
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case ModeStubborn:
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
		child := exec.Command("sleep", "300")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "mcptest: child:", err)
		}
		_ = NewServer().Run(ctx, &sdk.StdioTransport{})
		fmt.Fprintln(os.Stderr, "mcptest: input closed, staying")
		select {}
	}
	fmt.Fprintf(os.Stderr, "mcptest: unknown mode %q\n", mode)
	return 2
}

// EchoIn is the echo tool's input.
type EchoIn struct {
	Text string `json:"text"`
}

// AddIn is the add tool's input.
type AddIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

// AddOut is the add tool's structured output.
type AddOut struct {
	Sum int `json:"sum"`
}

// ProgressIn is the progress tool's input.
type ProgressIn struct {
	Steps int `json:"steps"`
	// Hold makes the tool wait for cancellation after its last step.
	Hold bool `json:"hold,omitempty"`
}

// SlowIn is the slow tool's input.
type SlowIn struct {
	// Marker is a file the tool creates once it observes its cancellation.
	Marker string `json:"marker,omitempty"`
	// Seconds bounds the wait; 0 means five minutes.
	Seconds float64 `json:"seconds,omitempty"`
}

// BigIn is the big tool's input.
type BigIn struct {
	Bytes int `json:"bytes"`
}

// CountIn is the input of the many and ints tools.
type CountIn struct {
	Count int `json:"count"`
}

// IntsOut is the ints tool's structured output: the integers 0..Count-1.
type IntsOut struct {
	Data []int `json:"data"`
}

// NewServer returns the test server with its tools (echo, add, progress,
// slow, crash, big, fail, roots), the resource test://hello and the prompt
// greet.
func NewServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "returns its text"},
		func(_ context.Context, _ *sdk.CallToolRequest, in EchoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "adds two integers"},
		func(_ context.Context, _ *sdk.CallToolRequest, in AddIn) (*sdk.CallToolResult, AddOut, error) {
			return nil, AddOut{Sum: in.A + in.B}, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "progress", Description: "reports steps of progress"},
		func(ctx context.Context, req *sdk.CallToolRequest, in ProgressIn) (*sdk.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			for i := 1; i <= in.Steps; i++ {
				if tok != nil {
					_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
						ProgressToken: tok, Progress: float64(i), Total: float64(in.Steps),
						Message: fmt.Sprintf("step %d", i),
					})
				}
			}
			if in.Hold {
				<-ctx.Done()
				return nil, nil, ctx.Err()
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "waits until cancelled"},
		func(ctx context.Context, _ *sdk.CallToolRequest, in SlowIn) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "mcptest: slow: started")
			wait := 5 * time.Minute
			if in.Seconds > 0 {
				wait = time.Duration(in.Seconds * float64(time.Second))
			}
			select {
			case <-ctx.Done():
				fmt.Fprintln(os.Stderr, "mcptest: slow: cancelled")
			case <-time.After(wait):
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "slept"}}}, nil, nil
			}
			if in.Marker != "" {
				_ = os.WriteFile(in.Marker, []byte("cancelled\n"), 0o600)
			}
			return nil, nil, ctx.Err()
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "kills the server"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "mcptest: crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "returns that many bytes of text"},
		func(_ context.Context, _ *sdk.CallToolRequest, in BigIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("x", in.Bytes)}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "always reports a tool error"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return nil, nil, errors.New("the tool failed on purpose")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "roots", Description: "lists the client's roots, one URI a line"},
		func(_ context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			// Asked as an input request: the SDK sends roots/list itself
			// to a client on a protocol version before multi round trips.
			res, ok := req.Params.InputResponses["roots"].(*sdk.ListRootsResult)
			if !ok {
				return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"roots": &sdk.ListRootsParams{}}}, nil, nil
			}
			uris := make([]string, 0, len(res.Roots))
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Join(uris, "\n")}}}, nil, nil
		})
	s.AddResource(&sdk.Resource{URI: "test://hello", Name: "hello", MIMEType: "text/plain"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{
				{URI: req.Params.URI, MIMEType: "text/plain", Text: "hello, resource"},
			}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "greet", Description: "greets someone",
		Arguments: []*sdk.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
				{Role: "user", Content: &sdk.TextContent{Text: "Hello, " + req.Params.Arguments["name"]}},
			}}, nil
		})
	return s
}

// NewBulkServer is NewServer with two tools for large results: many, which
// returns count text contents, and ints, which returns the integers
// 0..count-1 as structured content.
func NewBulkServer() *sdk.Server {
	s := NewServer()
	sdk.AddTool(s, &sdk.Tool{Name: "many", Description: "returns that many text contents, item1, item2, ..."},
		func(_ context.Context, _ *sdk.CallToolRequest, in CountIn) (*sdk.CallToolResult, any, error) {
			cs := make([]sdk.Content, in.Count)
			for i := range cs {
				cs[i] = &sdk.TextContent{Text: "item" + strconv.Itoa(i+1)}
			}
			return &sdk.CallToolResult{Content: cs}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "ints", Description: "returns the integers 0..count-1 as structured content"},
		func(_ context.Context, _ *sdk.CallToolRequest, in CountIn) (*sdk.CallToolResult, IntsOut, error) {
			out := IntsOut{Data: make([]int, in.Count)}
			for i := range out.Data {
				out.Data[i] = i
			}
			return nil, out, nil
		})
	return s
}
