package mcp

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// abortTransport ties every HTTP request of a connection to one context, so
// Close can abort what the SDK still has in flight (an SSE stream, the
// session's DELETE waiting on a server that waits on its handlers) instead
// of waiting for it.
type abortTransport struct {
	base http.RoundTripper
	ctx  context.Context
}

func (t *abortTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(t.ctx, cancel)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		stop()
		cancel()
		return nil, err
	}
	// The request's context must live as long as its body is read, and its
	// registration on t.ctx must not outlive the body.
	resp.Body = &abortBody{ReadCloser: resp.Body, done: func() { stop(); cancel() }}
	return resp, nil
}

type abortBody struct {
	io.ReadCloser
	once sync.Once
	done func()
}

func (b *abortBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
}

// abortableClient returns a copy of hc (nil means http.DefaultClient) whose
// requests all end when the returned cancel is called.
func abortableClient(hc *http.Client) (*http.Client, context.CancelFunc) {
	if hc == nil {
		hc = http.DefaultClient
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	ctx, cancel := context.WithCancel(context.Background())
	cp := *hc
	cp.Transport = &abortTransport{base: base, ctx: ctx}
	return &cp, cancel
}
