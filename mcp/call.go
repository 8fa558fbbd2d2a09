package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// RequestKind is the kind of the jobs a Conn makes (tool calls, listings,
// reads). The runtime knows no kind; this package registers its own.
var RequestKind = runtime.RegisterKind(runtime.KindSpec{Name: "mcp_request"})

// RequestOptions tunes one request (Call, Tools, Resources, ReadResource,
// Prompts); lsp.RequestOptions has the same fields.
type RequestOptions struct {
	// Key supersedes: the request previously made under the same key is
	// cancelled (notifications/cancelled) when this one is made.
	Key string
	// Timeout, when positive, fails the request with CodeTimeout (and
	// sends notifications/cancelled) if the server has not answered by
	// then.
	Timeout time.Duration
}

// progressPrefix marks the progress tokens this package sends, so a token
// maps back to its job without a table.
const progressPrefix = "pmacs-"

// Call calls the tool name with args (anything that marshals to a JSON
// object; nil for none) and returns its job, of kind RequestKind. The job
// completes with the map ToolResult describes, or fails: with CodeToolError
// and the tool's text when the tool reports an error, CodeServerExited when
// the server dies, CodeTimeout, CodeClosed, or the JSON-RPC error's name.
// Cancelling the job (or superseding it) sends notifications/cancelled to
// the server and settles it Cancelled. Main goroutine only.
func (c *Conn) Call(name string, args any, o RequestOptions) runtime.JobID {
	return c.start(MethodCallTool, o, func(ctx context.Context, id runtime.JobID) (any, error) {
		p := &sdk.CallToolParams{Name: name, Arguments: args}
		p.SetProgressToken(progressPrefix + strconv.FormatUint(uint64(id), 10))
		res, err := c.cs.CallTool(ctx, p)
		if err != nil {
			return nil, err
		}
		if res.IsError {
			return nil, &toolError{name: name, text: joinText(res.Content)}
		}
		return ToolResult(res), nil
	})
}

// Tools lists the server's tools (every page); the job's value is a slice
// of maps with name, title, description and input_schema. Main goroutine
// only.
func (c *Conn) Tools(o RequestOptions) runtime.JobID {
	return c.start(MethodListTools, o, func(ctx context.Context, _ runtime.JobID) (any, error) {
		var out []any
		for t, err := range c.cs.Tools(ctx, nil) {
			if err != nil {
				return nil, err
			}
			out = append(out, toolMap(t))
		}
		return orEmpty(out), nil
	})
}

// Resources lists the server's resources; the job's value is a slice of
// maps with uri, name, title, description and mime_type. Main goroutine
// only.
func (c *Conn) Resources(o RequestOptions) runtime.JobID {
	return c.start(MethodListResources, o, func(ctx context.Context, _ runtime.JobID) (any, error) {
		var out []any
		for r, err := range c.cs.Resources(ctx, nil) {
			if err != nil {
				return nil, err
			}
			out = append(out, omitEmpty(map[string]any{"uri": r.URI, "name": r.Name, "title": r.Title,
				"description": r.Description, "mime_type": r.MIMEType}))
		}
		return orEmpty(out), nil
	})
}

// ReadResource reads the resource uri; the job's value is a map with
// contents (uri, mime_type, text or blob each) and text, the contents' text
// joined. Main goroutine only.
func (c *Conn) ReadResource(uri string, o RequestOptions) runtime.JobID {
	return c.start(MethodReadResource, o, func(ctx context.Context, _ runtime.JobID) (any, error) {
		res, err := c.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			return nil, err
		}
		contents := make([]any, 0, len(res.Contents))
		var text []string
		for _, rc := range res.Contents {
			m := omitEmpty(map[string]any{"uri": rc.URI, "mime_type": rc.MIMEType, "text": rc.Text})
			if rc.Blob != nil {
				m["blob"] = string(rc.Blob)
			}
			if rc.Text != "" {
				text = append(text, rc.Text)
			}
			contents = append(contents, m)
		}
		return map[string]any{"contents": contents, "text": strings.Join(text, "\n")}, nil
	})
}

// Prompts lists the server's prompts; the job's value is a slice of maps
// with name, title, description and arguments (name, description,
// required). Main goroutine only.
func (c *Conn) Prompts(o RequestOptions) runtime.JobID {
	return c.start(MethodListPrompts, o, func(ctx context.Context, _ runtime.JobID) (any, error) {
		var out []any
		for p, err := range c.cs.Prompts(ctx, nil) {
			if err != nil {
				return nil, err
			}
			args := make([]any, 0, len(p.Arguments))
			for _, a := range p.Arguments {
				args = append(args, omitEmpty(map[string]any{"name": a.Name, "description": a.Description, "required": a.Required}))
			}
			m := omitEmpty(map[string]any{"name": p.Name, "title": p.Title, "description": p.Description})
			m["arguments"] = args
			out = append(out, m)
		}
		return orEmpty(out), nil
	})
}

// Progress returns the latest progress notification of a pending call, and
// false when none has arrived or the call has finished. Safe from any
// goroutine.
func (c *Conn) Progress(id runtime.JobID) (Progress, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl := c.calls[id]; cl != nil && cl.seen {
		return cl.progress, true
	}
	return Progress{}, false
}

func (c *Conn) onProgress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	tok, ok := req.Params.ProgressToken.(string)
	if !ok || !strings.HasPrefix(tok, progressPrefix) {
		return
	}
	n, err := strconv.ParseUint(tok[len(progressPrefix):], 10, 64)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// A notification that arrives after its call finished is dropped:
	// the entry is gone with the call, so nothing accumulates.
	if cl := c.calls[runtime.JobID(n)]; cl != nil {
		cl.seen = true
		cl.progress = Progress{Progress: req.Params.Progress, Total: req.Params.Total,
			Message: req.Params.Message, Count: cl.progress.Count + 1}
		c.host.noteProgress(runtime.JobID(n), cl.progress.String())
	}
}

// start registers the job and runs fn on a goroutine of its own, with a
// context that the job's cancellation, the timeout, Close and the server's
// death all end. fn's value is made ready for the main goroutine there too
// (Host.completed). method is the MCP method fn calls.
func (c *Conn) start(method string, o RequestOptions, fn func(context.Context, runtime.JobID) (any, error)) runtime.JobID {
	id, jctx := c.host.rt.RegisterExternal(RequestKind, o.Key)
	ctx, cancel := context.WithCancelCause(jctx)
	c.mu.Lock()
	if err := c.unusable(); err != nil {
		c.mu.Unlock()
		cancel(nil)
		c.host.settle(failure(id, err))
		return id
	}
	c.calls[id] = &call{cancel: cancel}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		runCtx, stop := ctx, context.CancelFunc(func() {})
		if o.Timeout > 0 {
			runCtx, stop = context.WithTimeoutCause(ctx, o.Timeout, ErrTimeout)
		}
		var v any
		var err error
		select {
		case <-c.ready:
			if err = c.connErr; err == nil {
				v, err = fn(runCtx, id)
			}
		case <-runCtx.Done():
			err = runCtx.Err()
		}
		stop()
		cause := context.Cause(runCtx)
		c.mu.Lock()
		delete(c.calls, id)
		c.mu.Unlock()
		cancel(nil)
		switch {
		case err == nil:
			c.host.settle(c.host.completed(id, method, v))
		case jctx.Err() != nil:
			c.host.settle(settlement{id: id, state: runtime.Cancelled})
		case cause != nil:
			if errors.Is(cause, ErrTimeout) {
				cause = fmt.Errorf("%w after %v", ErrTimeout, o.Timeout)
			}
			c.host.settle(failure(id, cause))
		default:
			c.host.settle(failure(id, c.explain(err)))
		}
	}()
	return id
}

// unusable is why no call may start; c.mu held.
func (c *Conn) unusable() error {
	if c.closed {
		return ErrClosed
	}
	// A message over the limit ends the connection; the server's death
	// that follows only hides why.
	if c.tooLarge != nil {
		return c.tooLarge
	}
	// A failed initialize is the first cause: the server is killed after
	// it, and its exit would only hide why.
	select {
	case <-c.ready:
		if c.connErr != nil {
			return c.connErr
		}
	default:
	}
	return c.exitErr
}

// connectionLost reports an error that says only that the connection to
// the server went away: the SDK saw it close, or a write found the pipe
// closed (a call sent just as the server died).
func connectionLost(err error) bool {
	return errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, os.ErrClosed)
}

// explain turns a call's error into the server's death when the SDK only
// saw its connection close.
func (c *Conn) explain(err error) error {
	// A failed handshake wraps the SDK's connection-closed error too, but
	// it is its own reason.
	if c.proc != nil && connectionLost(err) && !errors.As(err, new(*ConnectError)) {
		select {
		case <-c.proc.Done():
		case <-time.After(100 * time.Millisecond):
		}
		c.mu.Lock()
		xerr := c.exitErr
		c.mu.Unlock()
		if xerr != nil {
			return xerr
		}
	}
	return err
}

func failure(id runtime.JobID, err error) settlement {
	s := settlement{id: id, state: runtime.Failed, err: err, code: CodeProtocol}
	var te *toolError
	var xe *ServerExitedError
	var je *jsonrpc.Error
	switch {
	case errors.Is(err, ErrMessageTooLarge):
		s.code = CodeMessageTooLarge
	case errors.Is(err, ErrShape):
		s.code = CodeShapeFailed
	case errors.As(err, &te):
		s.code = CodeToolError
	case errors.As(err, new(*ConnectError)):
		s.code = CodeConnectFailed
	case errors.As(err, &xe):
		s.code = CodeServerExited
	case errors.Is(err, ErrClosed):
		s.code = CodeClosed
	case errors.Is(err, ErrTimeout):
		s.code = CodeTimeout
	case errors.As(err, &je):
		s.code = jsonrpcCodeName(je.Code)
	}
	return s
}

type toolError struct{ name, text string }

func (e *toolError) Error() string {
	return fmt.Sprintf("mcp: tool %q reported an error: %s", e.name, e.text)
}

func jsonrpcCodeName(code int64) string {
	switch code {
	case -32700:
		return "ParseError"
	case -32600:
		return "InvalidRequest"
	case -32601:
		return "MethodNotFound"
	case -32602:
		return "InvalidParams"
	case -32603:
		return "InternalError"
	case -32002:
		return "ResourceNotFound"
	}
	return CodeProtocol
}
