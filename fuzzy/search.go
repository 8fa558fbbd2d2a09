package fuzzy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

var (
	// ErrIndexRange is returned for a candidate index outside the store.
	ErrIndexRange = errors.New("fuzzy: index out of range")
	// ErrNilStore is returned by Search when it is given no store.
	ErrNilStore = errors.New("fuzzy: nil store")
	// ErrTooMany is returned by Search on a store of more than math.MaxInt32 candidates.
	ErrTooMany = errors.New("fuzzy: more candidates than a search can index")
)

const (
	// chunkSize is the unit of work a goroutine claims. Work per candidate is bounded (see
	// maxCells); a chunk of paths that nearly all match costs about 0.3 ms (BenchmarkChunk),
	// inside the 1 ms a superseded query may waste.
	chunkSize = 1024
	// cancelEvery is how many candidates pass between two looks at ctx inside a chunk, so a
	// superseded search stops long before its chunk would end.
	cancelEvery = 256
	// cancelWork bounds the work between two looks at ctx when candidates are long: the sum
	// over scored candidates of length times query bytes (alignment cells, about a
	// nanosecond each), so a list of long lines is interrupted as promptly as one of paths.
	// A look costs a few nanoseconds, nothing next to this much scoring.
	cancelWork = 1 << 15
)

// Options tune a Search. The zero Options return every match, best first, with positions,
// using GOMAXPROCS goroutines.
type Options struct {
	// Limit caps the number of ranked matches returned; 0 or less means all of them.
	Limit int
	// Threads is the number of goroutines that score chunks; 0 or less means GOMAXPROCS.
	Threads int
	// NoPositions skips computing Match.Positions.
	NoPositions bool
}

// Match is one ranked candidate.
type Match struct {
	// Index is the candidate's index in the Store.
	Index int
	// Score is the sum of the matched terms' scores; higher is better.
	Score int
	// Positions are the byte offsets of the matched characters in the candidate, ascending
	// (nil with Options.NoPositions or for an empty pattern).
	Positions []int
}

// Result is the outcome of a Search: the ranked top matches and, for Refine, the set of all
// candidates that matched.
type Result struct {
	// Matches are the best matches, best first: higher score, then shorter text (ignoring
	// surrounding whitespace), then lower index. An empty pattern keeps index order.
	Matches []Match
	// Total is the number of candidates that matched.
	Total int

	pattern  Pattern
	store    *Store
	storeLen int
	matched  []int32 // every matching index, ascending
}

// Pattern returns the pattern the result was searched with.
func (r *Result) Pattern() Pattern { return r.pattern }

// Search scores every live candidate of s against p and returns the top matches. The work is
// split into chunks scored by Options.Threads goroutines; all of them have returned when
// Search returns. When ctx is cancelled Search stops within a few hundred candidates per
// goroutine and returns an error wrapping ctx.Err() and its cause.
func Search(ctx context.Context, s *Store, p Pattern, opt Options) (*Result, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: search", ErrNilStore)
	}
	return search(ctx, s, p, nil, s.Len(), opt)
}

// Refine searches for p reusing r: when p narrows r's pattern (Pattern.Narrows; typically
// the user typed more), only r's matches and the candidates added to the store since r are
// scored. Otherwise it is a full Search of r's store.
func (r *Result) Refine(ctx context.Context, p Pattern, opt Options) (*Result, error) {
	if r == nil || r.store == nil {
		return nil, fmt.Errorf("%w: refine", ErrNilStore)
	}
	s := r.store
	if !p.Narrows(r.pattern) {
		return search(ctx, s, p, nil, s.Len(), opt)
	}
	sub := make([]int32, len(r.matched), len(r.matched)+s.Len()-r.storeLen)
	copy(sub, r.matched)
	for i := r.storeLen; i < s.Len(); i++ {
		sub = append(sub, int32(i))
	}
	return search(ctx, s, p, sub, len(sub), opt)
}

type entry struct {
	score  int32
	length int32
	index  int32
}

func (a entry) better(b entry) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.length != b.length {
		return a.length < b.length
	}
	return a.index < b.index
}

func (a entry) compare(b entry) int {
	switch {
	case a.better(b):
		return -1
	case b.better(a):
		return 1
	}
	return 0
}

// topK keeps the best limit entries in a heap whose root is the worst kept; with no limit
// it keeps everything.
type topK struct {
	limit int
	h     []entry
}

func (t *topK) push(e entry) {
	if t.limit <= 0 || len(t.h) < t.limit {
		t.h = append(t.h, e)
		if t.limit > 0 {
			t.up(len(t.h) - 1)
		}
		return
	}
	if !e.better(t.h[0]) {
		return
	}
	t.h[0] = e
	t.down(0)
}

// full reports whether a new entry must beat the worst kept one to enter.
func (t *topK) full() bool { return t.limit > 0 && len(t.h) == t.limit }

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.h[p].better(t.h[i]) {
			return
		}
		t.h[p], t.h[i] = t.h[i], t.h[p]
		i = p
	}
}

func (t *topK) down(i int) {
	n := len(t.h)
	for {
		w := i
		l, r := 2*i+1, 2*i+2
		if l < n && t.h[w].better(t.h[l]) {
			w = l
		}
		if r < n && t.h[w].better(t.h[r]) {
			w = r
		}
		if w == i {
			return
		}
		t.h[w], t.h[i] = t.h[i], t.h[w]
		i = w
	}
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// search scores the candidates sub[0:n], or indices 0..n-1 when sub is nil.
func search(ctx context.Context, s *Store, p Pattern, sub []int32, n int, opt Options) (*Result, error) {
	if s.Len() > math.MaxInt32 {
		return nil, fmt.Errorf("%w: search of %d candidates", ErrTooMany, s.Len())
	}
	if ctx.Err() != nil {
		return nil, cancelled(ctx)
	}
	chunks := (n + chunkSize - 1) / chunkSize
	threads := opt.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = max(1, min(threads, chunks))
	perChunk := make([][]int32, chunks)
	tops := make([]topK, threads)
	var next atomic.Int64
	var stopped atomic.Bool
	// A context that can never be cancelled is not looked at.
	cancellable := ctx.Done() != nil
	empty := p.Empty()
	weight := p.weight()
	// The top-K floor is only applied to the common one-term fuzzy query, whose score is
	// that term's alone.
	prunable := opt.Limit > 0 && len(p.sets) == 1 && len(p.sets[0]) == 1 &&
		p.sets[0][0].kind == termFuzzy && !p.sets[0][0].inv

	work := func(w int) {
		sc := scratchPool.Get().(*scratch)
		defer scratchPool.Put(sc)
		top := &tops[w]
		top.limit = opt.Limit
		var buf []int32
		work := 0
		for !stopped.Load() {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			from, to := c*chunkSize, min((c+1)*chunkSize, n)
			mark := len(buf)
			for k := from; k < to; k++ {
				if cancellable && (k%cancelEvery == 0 || work >= cancelWork) {
					work = 0
					if ctx.Err() != nil {
						stopped.Store(true)
						return
					}
				}
				idx := k
				if sub != nil {
					idx = int(sub[k])
				}
				if s.dead != nil && s.Removed(idx) {
					continue
				}
				if s.masks[idx]&p.mask != p.mask {
					continue
				}
				text := s.bytes(idx)
				work += len(text) * weight
				var e entry
				if !empty {
					e.length = int32(len(text) - leadingSpace(text) - trailingSpace(text))
					sc.floor = 0
					if prunable && top.full() {
						// Later candidates have larger indices, so a tie on score and
						// length with the worst kept entry loses.
						worst := top.h[0]
						sc.floor = int(worst.score)
						if e.length >= worst.length {
							sc.floor++
						}
					}
					score, ok := sc.score(text, &p, false)
					if !ok {
						continue
					}
					if score == notCompetitive {
						buf = append(buf, int32(idx))
						continue
					}
					e.score = int32(score)
				}
				e.index = int32(idx)
				buf = append(buf, int32(idx))
				top.push(e)
			}
			perChunk[c] = buf[mark:len(buf):len(buf)]
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	work(0)
	wg.Wait()
	if stopped.Load() || ctx.Err() != nil {
		return nil, cancelled(ctx)
	}

	total := 0
	for _, m := range perChunk {
		total += len(m)
	}
	matched := make([]int32, 0, total)
	for _, m := range perChunk {
		matched = append(matched, m...)
	}
	var all []entry
	for i := range tops {
		all = append(all, tops[i].h...)
	}
	slices.SortFunc(all, entry.compare)
	if opt.Limit > 0 && len(all) > opt.Limit {
		all = all[:opt.Limit]
	}
	r := &Result{
		Matches:  make([]Match, len(all)),
		Total:    total,
		pattern:  p,
		store:    s,
		storeLen: s.Len(),
		matched:  matched,
	}
	var sc *scratch
	if !opt.NoPositions && !empty {
		sc = scratchPool.Get().(*scratch)
		defer scratchPool.Put(sc)
	}
	for i, e := range all {
		m := Match{Index: int(e.index), Score: int(e.score)}
		if sc != nil {
			sc.floor = 0
			sc.pos = sc.pos[:0]
			sc.score(s.bytes(m.Index), &p, true)
			m.Positions = positionSet(sc.pos)
		}
		r.Matches[i] = m
	}
	return r, nil
}

// cancelled wraps ctx's error and, when it differs, its cause, so errors.Is finds both.
func cancelled(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("fuzzy: search: %w: %w", err, cause)
	}
	return fmt.Errorf("fuzzy: search: %w", err)
}

// positionSet returns a sorted copy of pos without duplicates (terms may overlap).
func positionSet(pos []int) []int {
	out := slices.Clone(pos)
	slices.Sort(out)
	return slices.Compact(out)
}

// score applies every group of p to text: each group needs one alternative to match (an
// inverse alternative matches when its text is absent); the score is the sum over groups of
// the first matching positive alternative's score.
func (sc *scratch) score(text []byte, p *Pattern, withPos bool) (int, bool) {
	total := 0
	for _, set := range p.sets {
		matched := false
		for i := range set {
			t := &set[i]
			mark := len(sc.pos)
			v, ok := sc.term(text, t, withPos && !t.inv)
			if ok {
				if t.inv {
					continue
				}
				total += v
				matched = true
				break
			}
			sc.pos = sc.pos[:mark]
			if t.inv {
				matched = true
			}
		}
		if !matched {
			return 0, false
		}
	}
	return total, true
}

func (sc *scratch) term(text []byte, t *term, withPos bool) (int, bool) {
	switch t.kind {
	case termExact:
		return sc.exactScore(text, t.text, t.cs, false, withPos)
	case termExactBoundary:
		return sc.exactScore(text, t.text, t.cs, true, withPos)
	case termPrefix:
		return sc.prefixScore(text, t.text, t.cs, withPos)
	case termSuffix:
		return sc.suffixScore(text, t.text, t.cs, withPos)
	case termEqual:
		return sc.equalScore(text, t.text, t.cs, withPos)
	default:
		return sc.fuzzyScore(text, t.text, t.cs, withPos)
	}
}
