package grep

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// fileBatch is how many files of one directory make one task: small enough to balance the
// goroutines near the end of a search, large enough to keep queue traffic negligible.
const fileBatch = 8

// dirNode is a directory reached by the walk.
type dirNode struct {
	abs string       // path to open
	rel string       // relative to the root, '/'-separated; "" for the root
	ign *ignoreLevel // ignore chain in force inside this directory
}

// task is a directory to read (files == nil) or a batch of its files to search.
type task struct {
	dir   *dirNode
	files []string
}

// search is the state shared by the fanout goroutines of one Search call.
type search struct {
	plan    *plan
	emit    func([]Match) error
	ctx     context.Context
	ctxDone <-chan struct{} // ctx.Done(), polled by the workers

	stop    atomic.Bool  // set on cancel, emit error or MaxResults: every loop polls it
	failed  atomic.Bool  // set on cancel or emit error: held matches are dropped
	emitted atomic.Int64 // matches handed to emit, for MaxResults

	mu         sync.Mutex
	cond       sync.Cond
	tasks      []task    // LIFO: depth first keeps the frontier small
	pending    int       // tasks queued or running
	err        error     // first error: emit's or the context's
	abort      abortKind // how the first fanout goroutine that did not return normally ended
	panicValue any       // what it panicked with, for abortPanic
}

// abortKind says how a fanout goroutine ended other than by returning.
type abortKind uint8

const (
	abortNone   abortKind = iota
	abortPanic            // it panicked: Search panics with the same value
	abortGoexit           // emit called runtime.Goexit: so does Search
)

// errAborted stops the other goroutines after a panic or Goexit; Search never returns it.
var errAborted = errors.New("grep: a search goroutine panicked or exited")

// guard runs deferred in every fanout goroutine with what recover returned and whether the
// goroutine's work returned. It keeps a panic from killing the process: it records the first
// panic (or Goexit) and stops the search, and Search repeats it on the caller's goroutine
// once every goroutine has ended.
func (s *search) guard(v any, returned bool) {
	if returned {
		return
	}
	kind := abortPanic
	if v == nil { // since Go 1.21 a panic never recovers nil: this is runtime.Goexit
		kind = abortGoexit
	}
	s.mu.Lock()
	if s.abort == abortNone {
		s.abort, s.panicValue = kind, v
	}
	s.mu.Unlock()
	s.fail(errAborted)
}

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
	s := &search{plan: p, emit: emit, ctx: ctx, ctxDone: ctx.Done()}
	s.cond.L = &s.mu
	root := &dirNode{abs: filepath.Clean(spec.Root)}
	if !spec.NoIgnore {
		root.ign = ancestorLevels(spec.Root)
	}
	s.tasks = append(s.tasks, task{dir: root})
	s.pending = 1

	stats := make([]Stats, p.fanout)
	var wg sync.WaitGroup
	for i := range p.fanout {
		wg.Go(func() {
			returned := false
			defer func() { s.guard(recover(), returned) }()
			w := newWorker(s)
			w.run()
			stats[i] = w.stats
			returned = true
		})
	}
	wg.Wait()
	// A fanout goroutine that panicked (in the search or in emit) or called runtime.Goexit
	// (in emit) has stopped the others; the caller now gets the same end as if the work had
	// run on its own goroutine, where a recover or a worker's panic isolation can handle it.
	switch s.abort {
	case abortPanic:
		panic(s.panicValue)
	case abortGoexit:
		runtime.Goexit()
	}
	var total Stats
	for _, st := range stats {
		total.add(st)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return total, s.err
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

// halt stops the search and wakes idle goroutines so that they see it.
func (s *search) halt() {
	s.stop.Store(true)
	s.mu.Lock()
	s.cond.Broadcast()
	s.mu.Unlock()
}

// next blocks until a task is available, or returns false once the search is over.
func (s *search) next() (task, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.tasks) == 0 && s.pending > 0 && !s.stop.Load() {
		s.cond.Wait()
	}
	if s.stop.Load() || len(s.tasks) == 0 {
		return task{}, false
	}
	t := s.tasks[len(s.tasks)-1]
	s.tasks[len(s.tasks)-1] = task{}
	s.tasks = s.tasks[:len(s.tasks)-1]
	return t, true
}

// done retires one task and queues the tasks it produced.
func (s *search) done(produced []task) {
	s.mu.Lock()
	s.tasks = append(s.tasks, produced...)
	s.pending += len(produced) - 1
	if s.pending == 0 || len(produced) > 1 {
		s.cond.Broadcast()
	} else if len(produced) == 1 {
		s.cond.Signal()
	}
	s.mu.Unlock()
}
