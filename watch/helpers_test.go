package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// running is a watch under test: what it reported so far, by batch.
type running struct {
	t       *testing.T
	root    string
	counts  *Counts
	mu      sync.Mutex
	batches [][]Event
	ready   chan Stats
	cancel  context.CancelFunc
	done    chan error
}

// start watches root until the test ends, waiting for its first scan.
func start(t *testing.T, root string, opts Options) *running {
	t.Helper()
	r := &running{t: t, root: root, counts: &Counts{}, ready: make(chan Stats, 1), done: make(chan error, 1)}
	opts.Counts = r.counts
	opts.Ready = func(s Stats) { r.ready <- s }
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() {
		r.done <- Watch(ctx, root, opts, func(b []Event) error {
			r.mu.Lock()
			r.batches = append(r.batches, b)
			r.mu.Unlock()
			return nil
		})
	}()
	t.Cleanup(r.stop)
	select {
	case <-r.ready:
	case err := <-r.done:
		t.Fatalf("watch ended before it was ready: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("watch not ready within 30 s")
	}
	return r
}

// stop cancels the watch and waits for Watch to return.
func (r *running) stop() {
	r.cancel()
	select {
	case err := <-r.done:
		require.True(r.t, errors.Is(err, context.Canceled), "Watch returned %v", err)
		r.done <- err
	case <-time.After(10 * time.Second):
		r.t.Fatal("Watch did not return within 10 s of its cancel")
	}
}

// events is every change reported so far, in order.
func (r *running) events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var all []Event
	for _, b := range r.batches {
		all = append(all, b...)
	}
	return all
}

func (r *running) batchCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.batches)
}

// waitFor polls until cond holds of the events so far, or fails after a
// deadline.
func (r *running) waitFor(what string, cond func([]Event) bool) []Event {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		evs := r.events()
		if cond(evs) {
			return evs
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("no %s within 20 s; got %v", what, evs)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// has reports whether evs holds a change of path with op.
func has(evs []Event, path string, op Op) bool {
	for _, e := range evs {
		if e.Path == path && e.Op == op {
			return true
		}
	}
	return false
}

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}
