package mcp

import (
	"context"
	"fmt"
	"io"
	"mime"
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
	// limit bounds a response body, or each event of an event stream;
	// onLimit is told when one passes it.
	limit   int
	onLimit func(error)
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
	body := &abortBody{ReadCloser: resp.Body, done: func() { stop(); cancel() }}
	resp.Body = body
	if t.limit > 0 {
		mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		resp.Body = &limitBody{ReadCloser: body, limit: t.limit, events: mt == "text/event-stream", onLimit: t.onLimit}
	}
	return resp, nil
}

// limitBody fails a response body past limit bytes, or, for an event
// stream, an event past limit bytes (events end at an empty line), and
// tells onLimit once: the SDK would read either whole into memory.
type limitBody struct {
	io.ReadCloser
	limit   int
	events  bool
	n       int // bytes of the body, or of the event being read
	lineLen int // an event stream's bytes since its last newline
	err     error
	onLimit func(error)
}

func (b *limitBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.ReadCloser.Read(p)
	over := false
	if b.events {
		for _, c := range p[:n] {
			switch c {
			case '\n':
				if b.lineLen == 0 {
					b.n = 0 // an empty line ends the event
				}
				b.lineLen = 0
				continue
			case '\r':
			default:
				b.lineLen++
			}
			b.n++
			if b.n > b.limit {
				over = true
				break
			}
		}
	} else {
		b.n += n
		over = b.n > b.limit
	}
	if over {
		what := "response body"
		if b.events {
			what = "server-sent event"
		}
		b.err = fmt.Errorf("%w: a %s of more than %d bytes (Spec.MaxMessage)", ErrMessageTooLarge, what, b.limit)
		if b.onLimit != nil {
			b.onLimit(b.err)
		}
		return 0, b.err
	}
	return n, err
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
// requests all end when the returned cancel is called, and whose response
// bodies are bounded by limit (see limitBody).
func abortableClient(hc *http.Client, limit int, onLimit func(error)) (*http.Client, context.CancelFunc) {
	if hc == nil {
		hc = http.DefaultClient
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	ctx, cancel := context.WithCancel(context.Background())
	cp := *hc
	cp.Transport = &abortTransport{base: base, ctx: ctx, limit: limit, onLimit: onLimit}
	return &cp, cancel
}
