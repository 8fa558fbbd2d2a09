//go:build linux

package mcp

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// newShapingHost is newHost with HostConfig.Shape set to shape.
func newShapingHost(t *testing.T, shape func(string, any) (any, error)) (*runtime.Runtime, *Host) {
	t.Helper()
	rt, err := runtime.New(runtime.Options{Executor: workers.Config{PoolSize: 2}})
	require.NoError(t, err)
	h := NewHostWith(rt, HostConfig{Shape: shape})
	remove := rt.AddPoller(h)
	t.Cleanup(func() {
		require.NoError(t, h.Close())
		remove()
		rt.Close()
		requireNoChildren(t)
	})
	return rt, h
}

// type shaped wraps what Shape was given, so a test sees it came back.
type shaped struct {
	method string
	v      any
}

// With HostConfig.Shape set, a request's result is shaped before Poll
// hands the call over (on the call's goroutine, not the main one), the job
// completes with the summary {method, len}, len counting a tool call's
// content, a listing's entries, or -1, and TakeResult gives the shaped
// value once.
func TestHostShapeShapesResultsBeforePollAndSettlesWithASummary(t *testing.T) {
	var shapes atomic.Int32
	rt, h := newShapingHost(t, func(method string, v any) (any, error) {
		shapes.Add(1)
		return shaped{method, v}, nil
	})
	c := connect(t, h, mcptest.ModeBulk)

	id := c.Call("many", mcptest.CountIn{Count: 3}, RequestOptions{})
	eventually(t, "the call to finish", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.out) == 1
	})
	require.EqualValues(t, 1, shapes.Load(), "shaped before the main goroutine polls")
	o := await(t, rt, h, id)
	require.Equal(t, runtime.Complete, o.State, "%v", o.Err)
	v, _ := o.External()
	require.Equal(t, map[string]any{"method": MethodCallTool, "len": int8(3)}, v)
	got, ok := h.TakeResult(id)
	require.True(t, ok)
	sh := got.(shaped)
	require.Equal(t, MethodCallTool, sh.method)
	require.Len(t, sh.v.(map[string]any)["content"], 3)
	_, ok = h.TakeResult(id)
	require.False(t, ok, "taken once")

	id = c.Call("ints", mcptest.CountIn{Count: 2}, RequestOptions{})
	o = await(t, rt, h, id)
	v, _ = o.External()
	// The SDK also sends structured output as one text content.
	require.Equal(t, map[string]any{"method": MethodCallTool, "len": int8(1)}, v)
	got, _ = h.TakeResult(id)
	require.Equal(t, []any{0.0, 1.0}, got.(shaped).v.(map[string]any)["structured"].(map[string]any)["data"])

	id = c.Tools(RequestOptions{})
	o = await(t, rt, h, id)
	v, _ = o.External()
	got, _ = h.TakeResult(id)
	require.Equal(t, MethodListTools, v.(map[string]any)["method"])
	require.EqualValues(t, len(got.(shaped).v.([]any)), v.(map[string]any)["len"])

	id = c.Prompts(RequestOptions{})
	o = await(t, rt, h, id)
	v, _ = o.External()
	require.Equal(t, map[string]any{"method": MethodListPrompts, "len": int8(1)}, v)
	_, ok = h.TakeResult(id)
	require.True(t, ok)
}

// A Shape that fails or panics fails that request with an error wrapping
// ErrShape, code shape_failed, naming the method and the reason; the
// connection goes on serving.
func TestHostShapeFailureFailsTheRequest(t *testing.T) {
	rt, h := newShapingHost(t, func(method string, v any) (any, error) {
		if m, ok := v.(map[string]any); ok && m["text"] == "panic" {
			panic("no form for this")
		}
		if m, ok := v.(map[string]any); ok && m["text"] == "refuse" {
			return nil, errors.New("refused")
		}
		return v, nil
	})
	c := connect(t, h, mcptest.ModeBulk)
	for text, want := range map[string]string{"refuse": "refused", "panic": "panicked: no form for this"} {
		o := await(t, rt, h, c.Call("echo", mcptest.EchoIn{Text: text}, RequestOptions{}))
		require.Equal(t, runtime.Failed, o.State, text)
		require.ErrorIs(t, o.Err, ErrShape, text)
		var je *runtime.JobError
		require.ErrorAs(t, o.Err, &je)
		require.Equal(t, CodeShapeFailed, je.Code, text)
		require.Contains(t, je.Message, want, text)
		require.Contains(t, je.Message, MethodCallTool, text)
	}
	id := c.Call("echo", mcptest.EchoIn{Text: "fine"}, RequestOptions{})
	require.Equal(t, runtime.Complete, await(t, rt, h, id).State)
	got, ok := h.TakeResult(id)
	require.True(t, ok)
	require.Equal(t, "fine", got.(map[string]any)["text"])
}
