// A root's first walk, which outlives the job that started it: its
// goroutine, what it hands over, and how a job waits for it.

package findjob

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/pmacs-go/pmacs-go/fuzzy"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/walk"
)

// errWalkAbandoned ends a first walk that no job took from for
// walkIdleMax while it had walkPendingMax of paths waiting.
var errWalkAbandoned = errors.New("the walk waited for a query too long")

// walkLife bounds the first walks of roots, which outlive the job that
// started them (see fileCache.bg): Close stops them and waits for them.
type walkLife struct {
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// start runs fn on a goroutine of its own unless the runtime is closing.
func (l *walkLife) start(fn func(ctx context.Context)) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.wg.Go(func() { fn(l.ctx) })
	return true
}

// bgWalk is a root's first listing. It runs on a goroutine of its own, not
// under the job that started it, so that a query superseded while the tree
// is still being listed (the user typing into a picker that just opened)
// stops at once without throwing the listing away: the next query's job
// takes the files listed so far and waits for the rest. The walk hands its
// chunks over under mu; only the job holding the cache's lock moves them
// into the store.
type bgWalk struct {
	mu    sync.Mutex
	files []string
	dirs  []walk.DirInfo
	// pending is the bytes of paths in files and dirs, and peak the most
	// there ever were (for tests).
	pending, peak int
	done          bool
	err           error
	wake          chan struct{} // to the job: a token after every chunk and at the end
	taken         chan struct{} // to the walk: a token when a job took what was pending
}

// walkAll lists the whole root, on a background walk (started here unless
// one is running already), moving its chunks into the store and sending a
// ranked snapshot about every findSnapshotEvery until it ends. Cancelling
// ctx stops this job within one chunk; the walk goes on for the next job.
func (c *fileCache) walkAll(ctx context.Context, w *runtime.Task, pat fuzzy.Pattern, limit int) error {
	if c.bg == nil {
		if err := c.startWalk(); err != nil {
			return err
		}
	}
	bg := c.bg
	var last time.Time
	var prev *fuzzy.Result
	for {
		bg.mu.Lock()
		files, dirs, done, werr := bg.files, bg.dirs, bg.done, bg.err
		bg.files, bg.dirs, bg.pending = nil, nil, 0
		bg.mu.Unlock()
		bg.tookAll()
		c.addChunk("", walk.Chunk{Files: files, Dirs: dirs})
		if done {
			c.bg = nil
			if errors.Is(werr, errWalkAbandoned) {
				// Given up while no job took its listing: walk afresh.
				if err := c.startWalk(); err != nil {
					return err
				}
				bg, last, prev = c.bg, time.Time{}, nil
				continue
			}
			if werr != nil {
				return werr
			}
			c.complete = true
			return nil
		}
		if len(files) > 0 && time.Since(last) >= findSnapshotEvery {
			// Refining with the same pattern scores the previous matches
			// and the files added since, not the whole list again.
			var res *fuzzy.Result
			var err error
			if prev != nil {
				res, err = prev.Refine(ctx, pat, fuzzy.Options{Limit: limit})
			} else {
				res, err = fuzzy.Search(ctx, c.store, pat, fuzzy.Options{Limit: limit})
			}
			if err != nil {
				return err
			}
			prev = res
			if err := w.Send(ctx, toRanking(c.store, res, false)); err != nil {
				return err
			}
			last = time.Now()
		}
		if err := waitWake(ctx, w, bg.wake); err != nil {
			return err
		}
	}
}

// startWalk empties the cache and starts the root's first walk.
func (c *fileCache) startWalk() error {
	c.store = &fuzzy.Store{}
	c.index = make(map[string]int)
	c.dirs = make(map[string]time.Time)
	c.last = nil
	c.checkedAt = time.Now()
	bg := &bgWalk{wake: make(chan struct{}, 1), taken: make(chan struct{}, 1)}
	root, opts := c.key.root, c.walkOptions()
	started := c.life.start(func(life context.Context) {
		err := listRecovered(life, root, opts, func(ch walk.Chunk) error {
			n := 0
			for _, f := range ch.Files {
				n += len(f)
			}
			for _, d := range ch.Dirs {
				n += len(d.Rel)
			}
			bg.mu.Lock()
			bg.files = append(bg.files, ch.Files...)
			bg.dirs = append(bg.dirs, ch.Dirs...)
			bg.pending += n
			bg.peak = max(bg.peak, bg.pending)
			full := bg.pending >= walkPendingMax
			bg.mu.Unlock()
			bg.signal()
			if full {
				return bg.waitTaken(life)
			}
			return nil
		})
		bg.mu.Lock()
		bg.done, bg.err = true, err
		if errors.Is(err, errWalkAbandoned) {
			bg.files, bg.dirs, bg.pending = nil, nil, 0
		}
		bg.mu.Unlock()
		bg.signal()
	})
	if !started {
		return errors.New("runtime is closed")
	}
	c.bg = bg
	c.walks++
	return nil
}

func (bg *bgWalk) signal() {
	select {
	case bg.wake <- struct{}{}:
	default:
	}
}

// tookAll tells a waiting walk that its listing was taken.
func (bg *bgWalk) tookAll() {
	select {
	case bg.taken <- struct{}{}:
	default:
	}
}

// waitTaken waits, on the walk's goroutine, until a job has taken what is
// pending, the runtime closes, or walkIdleMax has passed
// (errWalkAbandoned).
func (bg *bgWalk) waitTaken(life context.Context) error {
	idle := time.NewTimer(walkIdleMax)
	defer idle.Stop()
	for {
		bg.mu.Lock()
		full := bg.pending >= walkPendingMax
		bg.mu.Unlock()
		if !full {
			return nil
		}
		select {
		case <-bg.taken:
		case <-life.Done():
			return life.Err()
		case <-idle.C:
			return errWalkAbandoned
		}
	}
}

// waitWake waits, parked, for the walk's next chunk or the job's cancel.
func waitWake(ctx context.Context, w *runtime.Task, wake chan struct{}) error {
	select {
	case <-wake:
		return nil
	default:
	}
	w.Park(func() {
		select {
		case <-wake:
		case <-ctx.Done():
		}
	})
	return ctx.Err()
}

// listRecovered is walk.List with a panic in the walk turned into an error:
// it runs on a goroutine of the runtime's own, where a panic would end the
// process.
func listRecovered(ctx context.Context, root string, opts walk.Options, emit func(walk.Chunk) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the walk panicked: %v", p)
		}
	}()
	return walk.List(ctx, root, opts, emit)
}
