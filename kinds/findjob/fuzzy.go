// Fuzzy ranking of a list (inline or a kept source), and what find_files
// and fuzzy share: ranking against the previous result of a key, and the
// ranking the jobs complete with.

package findjob

import (
	"context"
	"fmt"
	"slices"

	"github.com/pmacs-go/pmacs-go/fuzzy"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// refineEntry is the previous result under a supersede key, kept so that a
// query extending it searches only its matches.
type refineEntry struct {
	store  *fuzzy.Store
	result *fuzzy.Result
	use    uint64
}

// fuzzySource is a list kept by FuzzySource; its store is built by the first
// job that needs it.
type fuzzySource struct {
	items   []string
	lastUse uint64 // main goroutine only

	lock  chan struct{}
	store *fuzzy.Store
	last  map[string]*refineEntry
	uses  uint64
}

// FuzzySource keeps items on the worker side and returns the id a fuzzy job
// names them by, so that narrowing queries do not resend the list. The
// slice is copied. At most 64 sources are kept: making another evicts the
// least recently used one.
func NewSource(rt *runtime.Runtime, items []string) SourceID {
	f := stateOf(rt)
	if f.sources == nil {
		f.sources = make(map[SourceID]*fuzzySource)
	}
	f.nextSource++
	f.cacheUse++
	f.sources[f.nextSource] = &fuzzySource{items: slices.Clone(items), lastUse: f.cacheUse, lock: make(chan struct{}, 1)}
	if len(f.sources) > maxFuzzySources {
		var old SourceID
		var oldUse uint64
		for id, s := range f.sources {
			if old == 0 || s.lastUse < oldUse {
				old, oldUse = id, s.lastUse
			}
		}
		delete(f.sources, old)
	}
	return f.nextSource
}

// FreeFuzzySource drops a source; it reports whether the id was known. A job
// already running on it finishes.
func FreeSource(rt *runtime.Runtime, id SourceID) bool {
	f := stateOf(rt)
	_, ok := f.sources[id]
	delete(f.sources, id)
	return ok
}

// DispatchFuzzy ranks spec.Items, or the list kept under spec.Source, against
// spec.Query on a worker. It completes with a Ranking whose matches carry
// their item's index. A source job under a supersede key refines the
// previous result when the query extends it. An unknown source fails the
// job with ErrUnknownSource's message.
func Fuzzy(rt *runtime.Runtime, spec FuzzySpec, o runtime.DispatchOptions) runtime.JobID {
	limit := findLimit(spec.Limit)
	pat := fuzzy.ParsePattern(spec.Query)
	f := stateOf(rt)
	var src *fuzzySource
	if spec.Items == nil {
		src = f.sources[spec.Source]
		if src == nil {
			err := fmt.Errorf("%w %d", ErrUnknownSource, spec.Source)
			return rt.Start(runtime.Job{Kind: FuzzyKind, Actor: runtime.BuiltinActor, Lane: workers.LaneRead,
				Run: func(context.Context, *runtime.Task) (any, error) {
					return nil, &runtime.JobError{Message: err.Error(), Code: "ENOENT", Err: err}
				}}, o)
		}
		f.cacheUse++
		src.lastUse = f.cacheUse
	} else {
		// Strings are immutable, so the clone shares their bytes.
		src = &fuzzySource{items: slices.Clone(spec.Items), lock: make(chan struct{}, 1)}
	}
	key := o.Key
	if spec.Items != nil {
		key = "" // a one-off list has no previous result
	}
	return rt.Start(runtime.Job{Kind: FuzzyKind, Actor: runtime.BuiltinActor, Lane: workers.LaneRead,
		Run: func(ctx context.Context, w *runtime.Task) (any, error) {
			if err := lockCache(ctx, w, src.lock); err != nil {
				return nil, err
			}
			defer func() { <-src.lock }()
			if src.store == nil {
				src.store = fuzzy.NewStore(src.items)
			}
			res, err := searchKeyed(ctx, src.store, &src.last, &src.uses, key, pat, limit, nil)
			if err != nil {
				return nil, err
			}
			return *toRanking(src.store, res, true), nil
		}}, o)
}

func findLimit(n int) int {
	if n <= 0 {
		return DefaultLimit
	}
	return min(n, MaxLimit)
}

// firstSlice is how many candidates a large store's first ranking covers
// (see searchKeyed): about 2 ms of scoring on one core for paths that nearly
// all match, so the first snapshot shows within a frame while the whole list
// is ranked. A variable for tests.
var firstSlice = 1 << 16

// searchKeyed ranks store against pat, refining the previous result under
// key when there is one for the same store. With early set and a store of
// more than 2*firstSlice candidates, it first ranks the candidates below
// firstSlice the same way and hands that ranking to early, so a picker shows
// results within a frame even when the whole ranking takes longer.
func searchKeyed(ctx context.Context, store *fuzzy.Store, last *map[string]*refineEntry, uses *uint64, key string, pat fuzzy.Pattern, limit int, early func(*fuzzy.Result) error) (*fuzzy.Result, error) {
	var prev *fuzzy.Result
	if e := (*last)[key]; key != "" && e != nil && e.store == store {
		prev = e.result
	}
	rank := func(opt fuzzy.Options) (*fuzzy.Result, error) {
		if prev != nil {
			return prev.Refine(ctx, pat, opt)
		}
		return fuzzy.Search(ctx, store, pat, opt)
	}
	if early != nil && store.Len() > 2*firstSlice {
		res, err := rank(fuzzy.Options{Limit: limit, First: firstSlice})
		if err != nil {
			return nil, err
		}
		if err := early(res); err != nil {
			return nil, err
		}
	}
	res, err := rank(fuzzy.Options{Limit: limit})
	if err != nil || key == "" {
		return res, err
	}
	if *last == nil {
		*last = make(map[string]*refineEntry)
	}
	*uses++
	(*last)[key] = &refineEntry{store: store, result: res, use: *uses}
	if len(*last) > maxKeyResults {
		oldKey, oldUse := "", ^uint64(0)
		for k, e := range *last {
			if e.use < oldUse {
				oldKey, oldUse = k, e.use
			}
		}
		delete(*last, oldKey)
	}
	return res, nil
}

func toRanking(store *fuzzy.Store, res *fuzzy.Result, withIndex bool) *Ranking {
	r := &Ranking{Total: res.Total, Candidates: store.Live(), Matches: make([]RankedMatch, len(res.Matches))}
	for i, m := range res.Matches {
		idx := -1
		if withIndex {
			idx = m.Index
		}
		r.Matches[i] = RankedMatch{Text: store.Item(m.Index), Index: idx, Score: m.Score, Positions: m.Positions}
	}
	return r
}
