package grep

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/pmacs-go/pmacs-go/walk"
)

// search is the state shared by the fanout goroutines of one Search call.
type search struct {
	plan    *plan
	emit    func([]Match) error
	ctx     context.Context
	ctxDone <-chan struct{} // ctx.Done(), polled by the workers

	stop    atomic.Bool  // set on cancel, emit error or MaxResults: every loop polls it
	failed  atomic.Bool  // set on cancel or emit error: held matches are dropped
	emitted atomic.Int64 // matches handed to emit, for MaxResults

	skipped *Skipped // the Spec's, or the search's own

	mu  sync.Mutex
	err error // first error: emit's or the context's
}

// errStopped is what a visit returns to end the walk once the search has stopped; Search
// never returns it.
var errStopped = errors.New("grep: search stopped")

// Search walks spec.Root and calls emit with the matches of one file at a time, in line order
// (see the package doc for the concurrency contract). It returns the statistics of the work
// done, and a wrapped ErrBadRoot / ErrBadPattern for bad input, the context's error if ctx was
// cancelled, or emit's error. Every goroutine it starts has returned when it returns, or when
// it panics with the value a fanout goroutine (or emit) panicked with.
func Search(ctx context.Context, spec Spec, emit func([]Match) error) (Stats, error) {
	p, err := prepare(spec)
	if err != nil {
		return Stats{}, err
	}
	if err := ctx.Err(); err != nil {
		return Stats{}, fmt.Errorf("grep: search of %q: %w", spec.Root, err)
	}
	if p.matcher == nil {
		return Stats{}, nil
	}
	s := &search{plan: p, emit: emit, ctx: ctx, ctxDone: ctx.Done(), skipped: spec.Skipped}
	if s.skipped == nil {
		s.skipped = new(Skipped)
	}
	workers := make([]*worker, p.fanout)
	for i := range workers {
		workers[i] = newWorker(s)
	}
	opts := walk.Options{Hidden: spec.Hidden, NoIgnore: spec.NoIgnore, SkipDirs: p.skipDirs, Fanout: p.fanout, Skipped: &s.skipped.Skipped, Background: spec.Background}
	// The walk owns the goroutines: it reads directories and hands out batches of files, and
	// repeats a panic (or Goexit) of a visit, that is of the search or of emit, on this
	// goroutine once every fanout goroutine has returned.
	werr := walk.Walk(ctx, p.spec.Root, opts, func(i int, d *walk.Dir, names []string) error {
		if names == nil && d.Rel() == "" && d.Err() != nil {
			// The walk goes on past an unreadable directory, but a root
			// that cannot be read is bad input, as for rg: an empty
			// result would read as "no matches".
			cause := d.Err()
			var pe *fs.PathError
			if errors.As(cause, &pe) {
				cause = pe.Err // the path is already in the message
			}
			return fmt.Errorf("grep: %w %q: cannot read it: %w", ErrBadRoot, spec.Root, cause)
		}
		w := workers[i]
		if w.stopped() {
			return errStopped
		}
		for _, name := range names {
			if w.stopped() {
				return errStopped
			}
			w.searchFile(d, name)
		}
		if w.s.stop.Load() {
			return errStopped // end the walk now, not at the next visit
		}
		return nil
	})
	var total Stats
	for _, w := range workers {
		total.add(w.stats)
	}
	total.Skipped = s.skipped.Load()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.err != nil:
		return total, s.err
	case werr == nil || werr == errStopped:
		return total, nil
	case errors.Is(werr, ErrBadRoot):
		return total, werr
	case ctx.Err() != nil:
		return total, s.ctxErr() // the walk saw the cancel before a search did
	default:
		return total, fmt.Errorf("grep: search of %q: %w", spec.Root, werr)
	}
}

func (s *search) ctxErr() error {
	return fmt.Errorf("grep: search of %q: %w", s.plan.spec.Root, s.ctx.Err())
}

// fail records the first error and stops every goroutine.
func (s *search) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.failed.Store(true)
	s.halt()
}

// halt stops the search: every worker sees it at its next check and the walk ends at the
// next visit.
func (s *search) halt() {
	s.stop.Store(true)
}
