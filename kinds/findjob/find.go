// Package findjob is the file finder's kinds: find_files ranks the files
// under a root against a fuzzy query, streaming ranked snapshots while the
// root is walked, and fuzzy ranks a list (sent with the job, or kept on the
// worker side as a source so narrowing queries do not resend it).
//
// find_files keeps each root's file list (a fuzzy.Store) and fuzzy keeps
// each source's list between jobs, in this kind's state per runtime. The
// main goroutine only creates these entries and posts the renames, removes
// and mkdirs Tick reports to a cache's inbox under a short lock; the lists
// themselves belong to the one job holding the entry's lock, which a job
// waits for parked and gives up when cancelled. So the main goroutine never
// waits for a walk or a ranking.
//
// Both are bounded in what they hold while no job takes it: a cache keeps
// at most 1,024 reported operations (past that it drops them and lists its
// root afresh at the next query), and a root's first walk, which outlives
// the job that started it, stops once 16 MiB of paths wait for the next
// job, and gives up after 30 s without one (that job then walks afresh).
package findjob

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/pmacs-go/pmacs-go/fuzzy"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// The kinds: a file finder that streams ranked snapshots while it walks,
// and a fuzzy ranking of a list.
var (
	FindKind = runtime.RegisterKind(runtime.KindSpec{Name: "find_files", Items: snapshotCodec{},
		Value: rankingCodec{}, Snapshots: true, Summary: rankingSummary})
	FuzzyKind = runtime.RegisterKind(runtime.KindSpec{Name: "fuzzy", Value: rankingCodec{}, Summary: rankingSummary})
)

// stateOf returns rt's finder state, made on first use.
func stateOf(rt *runtime.Runtime) *finderState {
	return runtime.StateOf(rt, FindKind, func() *finderState { return &finderState{} })
}

// Held counts the fuzzy sources kept (the runtime's Stats.Held includes
// them).
func (f *finderState) Held() int { return len(f.sources) }

// DefaultLimit is the number of ranked matches a find_files or fuzzy job
// returns when its spec names none.
const DefaultLimit = 200

// MaxLimit caps a spec's Limit, so a snapshot stays a few frames' worth
// of work to build and convert.
const MaxLimit = 100_000

// findSnapshotEvery is how often a walking find_files sends a ranked snapshot:
// about twice a default frame, so results show while the walk runs without
// re-ranking the growing list after every chunk.
var findSnapshotEvery = 8 * time.Millisecond

// findStatEvery is how long a cache trusts its directories' mtimes after
// comparing them: a burst of keystrokes stats the tree once, not once per
// key (about 2 ms for GOROOT/src's 1,300 directories on two cores). A rename
// or remove through an fs job is applied at the next query regardless, and
// while a watch follows the cache's root its changes are (cache.go: only
// what the watch leaves out is still polled).
var findStatEvery = 250 * time.Millisecond

// maxFindCaches and maxFuzzySources bound what the finder keeps on the worker
// side; the least recently used entry goes first.
const (
	maxFindCaches   = 8
	maxFuzzySources = 64
	maxKeyResults   = 16 // previous results kept per cache or source, for refinement
	// maxFindInbox bounds the renames and removes a cache keeps for its
	// next query: past it they are dropped and the next query lists the
	// root afresh, so a cache no query uses does not grow with every
	// operation under its root.
	maxFindInbox = 1024
)

// A root's first walk outlives the job that started it (see bgWalk), and
// what it lists waits for the next query's job. walkPendingMax bounds the
// bytes of paths waiting so: past it the walk waits for a job to take them,
// and after walkIdleMax without one it gives up (errWalkAbandoned), its
// listing dropped; the next query walks afresh. Variables for tests.
var (
	walkPendingMax = 16 << 20
	walkIdleMax    = 30 * time.Second
)

// Spec is a find_files request.
type Spec struct {
	Root     string // directory whose files are ranked
	Query    string // fuzzy's extended syntax; "" lists files in walk order
	Limit    int    // matches per snapshot and in the final ranking; 0 means DefaultLimit
	Hidden   bool   // list hidden files (walk.Options.Hidden)
	NoIgnore bool   // ignore .gitignore and friends (walk.Options.NoIgnore)
}

// FuzzySpec is a fuzzy request: Items, or Source for a list sent once with
// FuzzySource.
type FuzzySpec struct {
	Items  []string
	Source SourceID
	Query  string
	Limit  int // 0 means DefaultLimit
}

// SourceID names a list kept on the worker side by FuzzySource.
type SourceID uint64

// ErrUnknownSource fails a fuzzy job whose source was never made, was freed
// or was evicted to keep the table within its cap.
var ErrUnknownSource = errors.New("findjob: unknown fuzzy source")

// finderState is the runtime's side of the finder: the file caches by root
// and options, and the fuzzy sources. The maps are touched only on the main
// goroutine; what they point to is shared with workers under each entry's
// own lock.
type finderState struct {
	life       *walkLife
	caches     map[cacheKey]*fileCache
	cacheUse   uint64
	sources    map[SourceID]*fuzzySource
	nextSource SourceID
	// trees are the trees jobs follow (watches whose first scan is over and
	// that have not lost track), from runtime.TreeNote: a cache made for
	// one of their roots relies on them from the start.
	trees map[runtime.JobID]runtime.TreeNote
}

// Close stops the walks in flight and waits for them; the runtime's Close
// calls it once the worker pool has stopped.
func (f *finderState) Close() {
	l := f.life
	if l == nil {
		return
	}
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.cancel()
	l.wg.Wait()
}

// DispatchFindFiles ranks the files under spec.Root against spec.Query in the
// stream lane of the actor owning the root. The job's items are ranked
// snapshots (StreamBatch.Ranking), sent while a walk runs; it completes with
// the final Ranking as its value (also sent as the last snapshot). The list
// is cached per root and options: a later job re-lists only the directories
// whose modification time changed or that a rename or remove reported by Tick
// touched. Under a supersede key, a query that extends the previous one
// (fuzzy.Pattern.Narrows) ranks only the previous matches.
func Find(rt *runtime.Runtime, spec Spec, o runtime.DispatchOptions) runtime.JobID {
	root, err := filepath.Abs(spec.Root)
	if err != nil || spec.Root == "" {
		if err == nil {
			err = errors.New("empty root")
		}
		err = fmt.Errorf("find_files: root %q: %w", spec.Root, err)
		return rt.Start(runtime.Job{Kind: FindKind, Lane: workers.LaneStream, Stream: true,
			Run: func(context.Context, *runtime.Task) (any, error) {
				return nil, &runtime.JobError{Message: err.Error(), Code: "EINVAL", Err: err}
			}}, o)
	}
	c := stateOf(rt).fileCache(cacheKey{root: root, hidden: spec.Hidden, noIgnore: spec.NoIgnore})
	limit := findLimit(spec.Limit)
	pat := fuzzy.ParsePattern(spec.Query)
	key := o.Key
	return rt.Start(runtime.Job{Kind: FindKind, Path: root, Lane: workers.LaneStream, Stream: true,
		Run: func(ctx context.Context, w *runtime.Task) (any, error) {
			if err := lockCache(ctx, w, c.lock); err != nil {
				return nil, err
			}
			defer func() { <-c.lock }()
			r, err := c.find(ctx, w, pat, limit, key)
			if err != nil {
				return nil, err
			}
			return *r, nil
		}}, o)
}

// noteResource posts a completed rename or remove to every cache whose root
// holds one of its paths. Called by Tick on the main goroutine; it only
// appends under the inbox's short lock, never waits for a job.
func (f *finderState) NoteResource(op runtime.ResourceOp) {
	if len(f.caches) == 0 {
		return
	}
	abs := func(p string) string {
		if p == "" {
			return ""
		}
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return filepath.Clean(p)
	}
	op.From, op.To = abs(op.From), abs(op.To)
	for _, c := range f.caches {
		if under(c.key.root, op.From) || under(c.key.root, op.To) {
			c.inboxMu.Lock()
			if len(c.inbox) >= maxFindInbox {
				c.inbox, c.overflow = nil, true
			}
			if !c.overflow {
				c.inbox = append(c.inbox, op)
			}
			c.inboxMu.Unlock()
		}
	}
}
