package grepjob

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

const (
	// grepBatch is how many matches a grep packs into one envelope before
	// sending without waiting for the flush timer.
	grepBatch = 256
	// grepFlushDelay bounds how long a match waits in the producer's
	// batch: well under a frame, so a rare match shows at once.
	grepFlushDelay = 2 * time.Millisecond
)

// searchTree is the search a grep job runs: grep.Search, swapped only by
// tests that need a search to stop at a known point.
var searchTree = grep.Search

// grepProgressEvery is how often a running grep reports how many files it
// has searched: once a default frame. A variable so a test can make a small
// search report several times.
var grepProgressEvery = 16 * time.Millisecond

// Dispatch starts a streaming search in the stream lane of the actor that
// owns spec.Root: it starts after the mutations dispatched before it and
// holds no gate, so a mutation dispatched while it runs (or waits for its
// consumer) does not wait for it. Items are Matches (MatchesOf). While it
// runs, StreamProgress (and each batch's Progress) says how many files it
// has searched, updated about once a frame; the closing batch's Progress is
// the final count. Skip counts travel the same way (StreamSkipped,
// SkippedOf): what the search left out so far, by reason, final in the
// closing batch. Bad input (a missing root, an invalid regex, a NUL in the
// pattern) fails the job with grep's message. The caller's spec is not
// written: Progress and Skipped are the job's own.
func Dispatch(rt *runtime.Runtime, spec grep.Spec, o runtime.DispatchOptions) runtime.JobID {
	return rt.Start(job(spec, nil), o)
}

// DispatchBlocks is Dispatch for a consumer that shows a few of many
// matches (a list drawn a screen at a time): its items are Blocks
// (BlocksOf), each match checked when its batch arrives but decoded only
// when read, so its frames pay to decode only what they show.
func DispatchBlocks(rt *runtime.Runtime, spec grep.Spec, o runtime.DispatchOptions) runtime.JobID {
	return rt.Start(job(spec, blocksCodec{}), o)
}

func job(spec grep.Spec, items runtime.ItemsCodec) runtime.Job {
	spec.SkipDirs = slices.Clone(spec.SkipDirs)
	return runtime.Job{Kind: Kind, Path: spec.Root, Lane: workers.LaneStream, Stream: true, Items: items,
		Run: func(ctx context.Context, w *runtime.Task) (any, error) {
			return nil, run(ctx, w, spec)
		}}
}

func run(ctx context.Context, w *runtime.Task, spec grep.Spec) error {
	b := &matchBatcher{ctx: ctx, w: w}
	var searched atomic.Int64
	var skipped grep.Skipped
	spec.Progress, spec.Skipped = &searched, &skipped
	spec.ReuseBatch = true // emit copies the matches into its own envelope
	// A search job runs beside the loop that asked for it: the loop keeps
	// first claim on the cores.
	spec.Background = true
	stopProgress := reportProgress(w, &searched, &skipped)
	// grep re-panics a fanout goroutine's panic here, on the worker,
	// whose isolation fails the job: the reporter and the flush timer
	// must stop on that path too, or they outlive the job.
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			stopProgress()
			b.close()
		}
	}
	defer stop()
	stats, err := searchTree(ctx, spec, b.safeEmit)
	stop()
	if err != nil {
		return err
	}
	w.Progress(uint64(stats.FilesSearched), stats.Skipped)
	return nil
}

// matchBatcher gathers matches from grep's fanout goroutines into envelopes
// of up to grepBatch, flushing a partial batch after grepFlushDelay. Credit
// is taken per file batch before it is buffered, so buffered matches count
// against the stream's high-water mark too.
type matchBatcher struct {
	ctx    context.Context
	w      *runtime.Task
	mu     sync.Mutex
	buf    []grep.Match
	timer  *time.Timer
	closed bool
}

func (b *matchBatcher) emit(ms []grep.Match) error {
	if len(ms) == 0 {
		return nil
	}
	if err := b.w.Acquire(b.ctx, len(ms)); err != nil {
		return err
	}
	b.mu.Lock()
	b.buf = append(b.buf, ms...)
	var full []grep.Match
	if len(b.buf) >= grepBatch {
		full, b.buf = b.buf, nil
	} else if b.timer == nil {
		b.timer = time.AfterFunc(grepFlushDelay, b.flushTimer)
	}
	b.mu.Unlock()
	if full != nil {
		b.w.SendAcquired(Matches(full))
	}
	return nil
}

func (b *matchBatcher) flushTimer() {
	b.mu.Lock()
	defer b.mu.Unlock()
	// Recovered under the lock, so the failure is sent before close can
	// send the job's terminal reply.
	defer b.w.Recover("the grep flush timer")
	b.timer = nil
	if b.closed || len(b.buf) == 0 {
		return
	}
	if grepFlushHook != nil {
		grepFlushHook()
	}
	// Sending under the lock keeps this batch ahead of a later one that
	// close or emit might send.
	b.w.SendAcquired(Matches(b.buf))
	b.buf = nil
}

// close flushes what is left. After it returns nothing more is sent, so the
// terminal reply that follows is the stream's last envelope.
func (b *matchBatcher) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if len(b.buf) > 0 && b.ctx.Err() == nil {
		b.w.SendAcquired(Matches(b.buf))
	}
	b.buf = nil
}

// reportProgress sends the count every grepProgressEvery while it changes,
// from a goroutine of its own (the search's goroutines are busy searching).
// The returned func stops it and returns once it has sent its last reply,
// so nothing of it follows the job's terminal reply.
func reportProgress(w *runtime.Task, count *atomic.Int64, skipped *grep.Skipped) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer w.Recover("the grep progress reporter")
		t := time.NewTicker(grepProgressEvery)
		defer t.Stop()
		var sent int64
		var sentSkipped grep.SkipCounts
		for {
			select {
			case <-done:
				return
			case <-t.C:
				n, sk := count.Load(), skipped.Load()
				if n != sent || sk != sentSkipped {
					sent, sentSkipped = n, sk
					if grepProgressHook != nil {
						grepProgressHook()
					}
					w.Progress(uint64(n), sk)
				}
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// Test hooks: when set, each is called where a panic would hurt most, on
// the goroutine named. Tests set them before dispatching and reset them
// after the runtime is closed.
var (
	grepFlushHook    func() // the flush timer, with a batch to send
	grepProgressHook func() // the progress reporter, with a count to send
	grepEmitHook     func() // the match callback, on a grep fanout goroutine
)

// errPanicked is what the match callback returns to grep after recovering
// a panic, so the search stops; the job's outcome carries the panic itself.
var errPanicked = errors.New("grepjob: a job goroutine panicked")

// safeEmit is the match callback grep's fanout goroutines call: a panic in
// it fails the job instead of the process, and stops the search.
func (b *matchBatcher) safeEmit(ms []grep.Match) (err error) {
	defer func() {
		if p := recover(); p != nil {
			b.w.FailPanic("the grep match callback", p)
			err = errPanicked
		}
	}()
	if grepEmitHook != nil {
		grepEmitHook()
	}
	return b.emit(ms)
}
