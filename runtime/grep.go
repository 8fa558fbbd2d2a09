package runtime

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/pmacs-go/pmacs-go/grep"
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

// DispatchGrep starts a streaming search in the read lane of the actor that
// owns spec.Root. Items are grep matches; the closing batch's Progress holds
// the number of files searched. Bad input (a missing root, an invalid regex,
// a NUL in the pattern) fails the job with grep's message.
func (rt *Runtime) DispatchGrep(spec grep.Spec, o DispatchOptions) JobID {
	j := rt.newJob(KindGrep, o.Key)
	rt.newStream(j, o.MaxBatch)
	spec.SkipDirs = slices.Clone(spec.SkipDirs)
	return rt.start(j, rt.actorFor(spec.Root), workers.LaneRead, func(ctx context.Context, w *task) reply {
		b := &matchBatcher{ctx: ctx, w: w}
		stats, err := grep.Search(ctx, spec, b.emit)
		b.close()
		if err != nil {
			return terminal(ctx, err, "")
		}
		w.send(&reply{Kind: replyProgress, N: uint64(stats.FilesSearched)})
		return reply{Kind: replyClosed}
	})
}

// matchBatcher gathers matches from grep's fanout goroutines into envelopes
// of up to grepBatch, flushing a partial batch after grepFlushDelay. Credit
// is taken per file batch before it is buffered, so buffered matches count
// against the stream's high-water mark too.
type matchBatcher struct {
	ctx    context.Context
	w      *task
	mu     sync.Mutex
	buf    []grep.Match
	timer  *time.Timer
	closed bool
}

func (b *matchBatcher) emit(ms []grep.Match) error {
	if len(ms) == 0 {
		return nil
	}
	if err := b.w.credit.Acquire(b.ctx, len(ms)); err != nil {
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
		b.w.send(&reply{Kind: replyMatches, Matches: full})
	}
	return nil
}

func (b *matchBatcher) flushTimer() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.timer = nil
	if b.closed || len(b.buf) == 0 {
		return
	}
	// Sending under the lock keeps this batch ahead of a later one that
	// close or emit might send.
	b.w.send(&reply{Kind: replyMatches, Matches: b.buf})
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
		b.w.send(&reply{Kind: replyMatches, Matches: b.buf})
	}
	b.buf = nil
}
