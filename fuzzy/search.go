package fuzzy

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unicode/utf8"
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
	// First, when positive, limits the search to the candidates with an index below it: a
	// quick first ranking of a large store to show while the whole one is computed. The
	// result refines like any other (Refine scores the candidates from First on as added).
	First int
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
	// For a single fuzzy term, parallel to matched: an upper bound of each match's score
	// (exact when it was scored) and where its leftmost match ends.
	bounds, ends []int32
	// floor is the worst kept score when Matches holds the limit, else the least int32.
	floor int32
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
	return search(ctx, s, p, nil, 0, opt, nil)
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
		return search(ctx, s, p, nil, 0, opt, nil)
	}
	return search(ctx, s, p, r.matched, r.storeLen, opt, r.extends(&p))
}

// extends returns what r knows of its matches when p is r's single fuzzy term with bytes
// appended (or the same term), so that Refine can bound scores instead of aligning every
// match.
func (r *Result) extends(p *Pattern) *prior {
	if r.bounds == nil {
		return nil
	}
	old, cur := r.pattern.single(), p.single()
	if old == nil || cur == nil || old.cs != cur.cs || !bytes.HasPrefix(cur.text, old.text) {
		return nil
	}
	seeds := make([]int32, len(r.Matches))
	for i, m := range r.Matches {
		seeds[i] = int32(m.Index)
	}
	return &prior{bounds: r.bounds, ends: r.ends, old: old.text, extra: cur.text[len(old.text):], floor: r.floor, seeds: seeds}
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

// maxGain bounds what one more pattern byte adds to a fuzzy score: a match and the largest
// bonus a character can earn (its own or its run's first character's). The first byte's
// bonus counts twice, but an appended byte is never the first.
const maxGain = scoreMatch + bonusBoundaryWhite

// seedSample is how many times the limit of previous matches, evenly spread, are scored
// before a refinement to guess the new floor (see search), and minStep the least spacing
// of that sample.
const (
	seedSample = 16
	minStep    = 64
)

// minRise is how much the top-K's floor rises, at the least, in practice when a byte is
// appended to the query: a match after a gap, with no bonus.
const minRise = scoreMatch + scoreGapStart

// unbounded is the bound of a candidate whose score cannot be bounded from the previous
// one (a text scored by the greedy pass, whose score is not an alignment's).
const unbounded = math.MaxInt32

// prior is what a refinement by appended bytes knows of each previous match: an upper
// bound of its score and where its leftmost match ended, parallel to sub[:len(bounds)].
type prior struct {
	bounds, ends []int32
	old          []byte  // the previous term, located again where ends is negative
	extra        []byte  // the bytes appended to the previous term
	floor        int32   // the previous result's worst kept score (see Result.floor)
	seeds        []int32 // the previous result's top matches
}

// m1 reports whether t is one lower-case ASCII letter or digit, whose presence the mask
// shows exactly.
func m1(t *term) bool {
	if len(t.text) != 1 || t.cs {
		return false
	}
	b := t.text[0]
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9'
}

// whiteMask holds the mask bits of whitespace bytes (and of the few others sharing them).
var whiteMask = maskTable[' '] | maskTable['\t'] | maskTable['\n'] | maskTable['\v'] | maskTable['\f'] | maskTable['\r']

// letterBound bounds the score of the one-letter term c in text, which holds it: the
// largest bonus is at the start or after whitespace; elsewhere a delimiter's is the most.
// (A non-ASCII text may hold other whitespace.)
func letterBound(text []byte, c byte, mask uint64) int32 {
	if lowerTable[text[0]] == c || mask&(whiteMask|nonASCIIMask) != 0 {
		return scoreMatch + bonusBoundaryWhite*bonusFirstCharMultiplier
	}
	return scoreMatch + bonusBoundaryDelimiter*bonusFirstCharMultiplier
}

// single returns p's one term when p is a single positive fuzzy term, the query that can
// be pruned by score bounds.
func (p *Pattern) single() *term {
	if len(p.sets) == 1 && len(p.sets[0]) == 1 && p.sets[0][0].kind == termFuzzy && !p.sets[0][0].inv {
		return &p.sets[0][0]
	}
	return nil
}

// The states of a match's bound.
const (
	// boundLoose is the previous bound plus maxGain: boundGain may tighten it.
	boundLoose uint8 = iota
	// boundTight cannot be tightened but is not the score.
	boundTight
	// boundScored is the exact score, and the match was pushed to a top-K.
	boundScored
	// boundOut is a bound too low to enter the top-K: the seeds (the previous top
	// matches and a sample, scored first) already hold limit entries it cannot beat.
	boundOut
)

// search scores the candidates sub and then every index from added on (all of them when
// sub is nil and added 0).
//
// A single fuzzy term with a limit goes in two phases when pr is set (the query extends
// the previous one): first every candidate is checked for a match, cheaply, past where
// its previous match ended, and given a bound (its previous bound plus what the appended
// bytes can add, tightened from the text when it may reach the new floor); then only the
// candidates whose bound can still enter the top-K are aligned, highest bounds and
// shortest texts first (alignBounded). Before the first phase the previous top matches
// and a sample of the others are aligned: they set a floor that a bound must beat to
// matter at all, and a guess of the new floor. Most matches of a narrowing query are far
// below the top-K, so most are never aligned, nor even bounded from their text.
func search(ctx context.Context, s *Store, p Pattern, sub []int32, added int, opt Options, pr *prior) (*Result, error) {
	if s.Len() > math.MaxInt32 {
		return nil, fmt.Errorf("%w: search of %d candidates", ErrTooMany, s.Len())
	}
	if ctx.Err() != nil {
		return nil, cancelled(ctx)
	}
	upto := s.Len()
	if opt.First > 0 && opt.First < upto {
		upto = opt.First
		// sub is ascending, and the prior's arrays parallel its head.
		sub = sub[:sort.Search(len(sub), func(i int) bool { return int(sub[i]) >= upto })]
	}
	n := len(sub) + max(0, upto-added)
	chunks := (n + chunkSize - 1) / chunkSize
	threads := opt.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = max(1, min(threads, chunks))
	// Each chunk writes its matches at its own offset, packed down once all are done.
	counts := make([]int, chunks)
	matched := make([]int32, n)
	var bounds, ends []int32
	var state []uint8
	tops := make([]topK, threads)
	for i := range tops {
		tops[i].limit = opt.Limit
	}
	var next atomic.Int64
	var stopped atomic.Bool
	// A context that can never be cancelled is not looked at.
	cancellable := ctx.Done() != nil
	empty := p.Empty()
	weight := p.weight()
	one := p.single()
	if one == nil || len(one.text) > 1000 {
		pr = nil
	}
	// The top-K floor is only applied to the common one-term fuzzy query, whose score is
	// that term's alone.
	prunable := opt.Limit > 0 && one != nil
	// A first keystroke, one ASCII letter or digit, is found by the presence mask alone;
	// its matches get a bound from their first byte and are scored only if it can reach the
	// top-K.
	var letter byte
	if prunable && pr == nil && m1(one) {
		letter = one.text[0]
	}
	var m int
	if one != nil {
		m = len(one.text)
		bounds = make([]int32, n)
		ends = make([]int32, n)
		state = make([]uint8, n)
	}

	// The previous top matches are scored first: most still rank high, so the worst of
	// them, once limit are kept, is a floor that a bound must beat to be worth anything.
	// With them, a sample spread over the previous matches: its best few are a guess of
	// the new floor (the limit-th of all), which decides which bounds are tightened
	// while the scan has the text in the cache. A wrong guess costs time, never results.
	var seeds []entry
	var seedWorst, guess entry
	seeded, guessed := false, false
	if pr != nil && opt.Limit > 0 {
		sc := scratchPool.Get().(*scratch)
		var sample []entry
		try := func(idx int) (entry, bool) {
			if idx >= upto || s.dead != nil && s.Removed(idx) || s.masks[idx]&p.mask != p.mask || s.masks[idx]&nonASCIIMask != 0 {
				return entry{}, false
			}
			text := s.bytes(idx)
			if len(text)*m > maxCells {
				return entry{}, false
			}
			score, ok := sc.score(text, s.masks[idx], &p, false)
			return entry{score: int32(score), length: trimmedLen(text, s.masks[idx]), index: int32(idx)}, ok
		}
		top := slices.Clone(pr.seeds)
		slices.Sort(top)
		for _, i := range top {
			if e, ok := try(int(i)); ok {
				seeds = append(seeds, e)
			}
		}
		// At most one in minStep, so that a small list is not scored twice over.
		if step := max(minStep, len(sub)/(seedSample*opt.Limit)); step <= len(sub) {
			for i := step / 2; i < len(sub); i += step {
				if _, dup := slices.BinarySearch(top, sub[i]); dup {
					continue
				}
				if e, ok := try(int(sub[i])); ok {
					seeds = append(seeds, e)
					sample = append(sample, e)
				}
			}
			slices.SortFunc(sample, entry.compare)
			// The sample's r-th best stands for the (r*step)-th of all; aim at four
			// times the limit, so that a guess that is a little high rarely misses.
			if r := (4*opt.Limit + step - 1) / step; r <= len(sample) {
				guess, guessed = sample[r-1], true
			}
		}
		scratchPool.Put(sc)
		if len(seeds) >= opt.Limit {
			all := slices.Clone(seeds)
			slices.SortFunc(all, entry.compare)
			seedWorst, seeded = all[opt.Limit-1], true
		}
	}

	work := func(w int) {
		sc := scratchPool.Get().(*scratch)
		defer scratchPool.Put(sc)
		top := &tops[w]
		work := 0
		for !stopped.Load() {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			from, to := c*chunkSize, min((c+1)*chunkSize, n)
			out := from
			for k := from; k < to; k++ {
				if cancellable && (k%cancelEvery == 0 || work >= cancelWork) {
					work = 0
					if ctx.Err() != nil {
						stopped.Store(true)
						return
					}
				}
				idx := added + k - len(sub)
				if k < len(sub) {
					idx = int(sub[k])
				}
				if s.dead != nil && s.Removed(idx) {
					continue
				}
				if s.masks[idx]&p.mask != p.mask {
					continue
				}
				text := s.bytes(idx)
				if pr != nil && k < len(pr.bounds) && s.masks[idx]&nonASCIIMask == 0 {
					end := int(pr.ends[k])
					b := pr.bounds[k]
					ok := true
					g := textGain(text, s.masks[idx], one)
					long := len(text)*m > maxCells || b == unbounded
					// cannot reports whether a bound of nb cannot enter the top-K.
					cannot := func(nb int32) bool {
						return seeded && (nb < seedWorst.score || nb == seedWorst.score && !(entry{score: nb, length: s.length(idx), index: int32(idx)}).better(seedWorst))
					}
					// The alignment may also restart among the new bytes (see boundGain).
					nb := max(b+g*int32(len(pr.extra)), maxGain*int32(len(pr.extra)))
					fused := !long && len(pr.extra) == 1 && !cannot(nb) &&
						(guessed && (nb > guess.score || nb == guess.score && (entry{score: nb, length: s.length(idx), index: int32(idx)}).better(guess)) || !guessed && nb >= pr.floor+minRise)
					if end < 0 {
						// Not located yet (see letterBound): the previous term first.
						for _, c := range pr.old {
							if end = nextFold(text, c, end+1, one.cs); end < 0 {
								break
							}
						}
					}
					work += len(text) - end
					st := boundTight
					switch {
					case long:
						b = unbounded
					case cannot(nb):
						// It cannot enter: only whether it matches, and where.
						b = nb
						st = boundOut
					case fused:
						// A bound that may reach the new floor is tightened in the same
						// pass that finds the new byte, while the text is in the cache;
						// a later tightening costs a cache miss.
						var gain int
						if end, gain = extendGain(text, one.text, one.cs, end); end < 0 {
							continue
						}
						b = max(b+int32(min(gain, int(g))), maxGain)
						matched[out], bounds[out], ends[out], state[out] = int32(idx), b, int32(end), st
						out++
						continue
					case len(pr.extra) == 1:
						b = nb
						st = boundLoose
					default:
						b = nb
					}
					for _, c := range pr.extra {
						if end = nextFold(text, c, end+1, one.cs); end < 0 {
							ok = false
							break
						}
					}
					if !ok {
						continue
					}
					matched[out], bounds[out], ends[out], state[out] = int32(idx), b, int32(end), st
					out++
					continue
				}
				if letter != 0 {
					// The mask showed the letter is there: only a bound now.
					matched[out], bounds[out], ends[out], state[out] = int32(idx), letterBound(text, letter, s.masks[idx]), -1, boundTight
					out++
					continue
				}
				work += len(text) * weight
				var e entry
				e.index = int32(idx)
				if !empty {
					e.length = trimmedLen(text, s.masks[idx])
					score, ok := sc.score(text, s.masks[idx], &p, false)
					if !ok {
						continue
					}
					matched[out] = int32(idx)
					if one != nil {
						b := int32(score)
						if len(text)*m > maxCells {
							b = unbounded
						}
						bounds[out], ends[out], state[out] = b, int32(sc.end), boundScored
					}
					out++
					e.score = int32(score)
				} else {
					matched[out] = int32(idx)
					out++
				}
				top.push(e)
			}
			counts[c] = out - from
		}
	}
	run := func(fn func(w int)) {
		var wg sync.WaitGroup
		for w := 1; w < threads; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fn(w)
			}()
		}
		fn(0)
		wg.Wait()
	}
	run(work)
	if stopped.Load() || ctx.Err() != nil {
		return nil, cancelled(ctx)
	}

	total := 0
	for c, k := range counts {
		from := c * chunkSize
		copy(matched[total:], matched[from:from+k])
		if one != nil {
			copy(bounds[total:], bounds[from:from+k])
			copy(ends[total:], ends[from:from+k])
			copy(state[total:], state[from:from+k])
		}
		total += k
	}
	matched = slices.Clip(matched[:total])
	if one != nil {
		bounds, ends, state = bounds[:total:total], ends[:total:total], state[:total:total]
	}
	// The seeds were scored already: their exact scores replace the bounds, and they are
	// kept as scored.
	for _, e := range seeds {
		if j, ok := slices.BinarySearch(matched, e.index); ok {
			bounds[j], state[j] = e.score, boundScored
			tops[0].push(e)
		}
	}
	if pr != nil || letter != 0 {
		if err := alignBounded(ctx, s, &p, matched, bounds, ends, state, tops, opt.Limit, run); err != nil {
			return nil, err
		}
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
		storeLen: upto,
		matched:  matched,
		bounds:   bounds,
		ends:     ends,
		floor:    math.MinInt32,
	}
	if opt.Limit > 0 && len(all) == opt.Limit {
		r.floor = all[len(all)-1].score
	}
	var sc *scratch
	if !opt.NoPositions && !empty {
		sc = scratchPool.Get().(*scratch)
		defer scratchPool.Put(sc)
	}
	for i, e := range all {
		m := Match{Index: int(e.index), Score: int(e.score)}
		if sc != nil {
			sc.pos = sc.pos[:0]
			sc.score(s.bytes(m.Index), s.masks[m.Index], &p, true)
			m.Positions = positionSet(sc.pos)
		}
		r.Matches[i] = m
	}
	return r, nil
}

// alignChunk is how many matches a goroutine claims at once when every match is aligned,
// alignBatch how many of one bound's matches are tightened and aligned between two looks
// at the top-K's worst entry at first (then twice as many each time, up to maxBatch), and
// alignLook how many pass between two looks at the context.
const (
	alignChunk = 4096
	alignBatch = 256
	maxBatch   = 8192
	alignLook  = 32
)

// lenBins is how many text lengths get their own bin when a bound's matches are put in
// order of length; longer texts share the last bin and are sorted there.
const lenBins = 1 << 12

// alignBounded scores the matches whose bound is not yet their exact score and that can
// still enter the top-K, pushing them to tops. It walks the matches from the highest bound
// down and, among equal bounds, from the shortest text (the tie-break after the score), in
// batches spread over the goroutines: a loose bound is tightened first (boundGain), and a
// match whose bound drops waits for its new bound's turn; a tight one is aligned. The walk
// stops at the first match that could not beat the worst kept entry even if it scored its
// bound: every match after it ranks below the top-K. Paths tie a lot (on a second letter
// a third of a million may share the best bound), so walking ties shortest first tightens
// and aligns only the few that can still enter. bounds[j] becomes the exact score of each
// match scored.
func alignBounded(ctx context.Context, s *Store, p *Pattern, matched, bounds, ends []int32, state []uint8, tops []topK, limit int, run func(func(int))) error {
	n := len(matched)
	if n == 0 {
		return nil
	}
	t := p.single()
	cancellable := ctx.Done() != nil
	var stopped atomic.Bool
	look := func(k int) bool {
		if cancellable && k%alignLook == 0 && ctx.Err() != nil {
			stopped.Store(true)
		}
		return stopped.Load()
	}
	tighten := func(j int) {
		state[j] = boundTight
		if bounds[j] == unbounded {
			return
		}
		idx := int(matched[j])
		text := s.bytes(idx)
		g := textGain(text, s.masks[idx], t)
		bounds[j] = max(bounds[j]+int32(min(boundGain(text, t.text, t.cs, int(ends[j])), int(g)))-g, maxGain)
	}
	align := func(sc *scratch, top *topK, j int) {
		idx := int(matched[j])
		text := s.bytes(idx)
		score, _ := sc.score(text, s.masks[idx], p, false)
		bounds[j], state[j] = int32(score), boundScored
		if ends[j] < 0 {
			ends[j] = int32(sc.end)
		}
		top.push(entry{score: int32(score), length: trimmedLen(text, s.masks[idx]), index: int32(idx)})
	}
	// alignAll aligns every match not yet scored.
	alignAll := func() error {
		chunks := (n + alignChunk - 1) / alignChunk
		var next atomic.Int64
		run(func(w int) {
			sc := scratchPool.Get().(*scratch)
			defer scratchPool.Put(sc)
			for !stopped.Load() {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				for j := c * alignChunk; j < min(n, (c+1)*alignChunk); j++ {
					if look(j) {
						return
					}
					if state[j] < boundScored {
						align(sc, &tops[w], j)
					}
				}
			}
		})
		if stopped.Load() {
			return cancelled(ctx)
		}
		return nil
	}
	// With no limit, or no more matches than it, every match is kept.
	if limit <= 0 || n <= limit {
		return alignAll()
	}
	lo, hi := int32(math.MaxInt32), int32(math.MinInt32)
	var long []int32
	for j := range n {
		if state[j] >= boundScored {
			continue
		}
		if b := bounds[j]; b == unbounded {
			long = append(long, int32(j))
		} else {
			lo, hi = min(lo, b), max(hi, b)
		}
	}
	if hi >= lo && int64(hi)-int64(lo) >= 1<<20 {
		return alignAll()
	}
	// One heap, top, holds the kept entries between batches; each goroutine pushes a
	// batch's entries to its own tops[w], merged into top after the batch.
	top := &topK{limit: limit}
	for i := range tops {
		for _, e := range tops[i].h {
			top.push(e)
		}
		tops[i].h = tops[i].h[:0]
	}
	// beats reports whether a match of bound b could still enter top.
	beats := func(b, length int32, idx int32) bool {
		return !top.full() || entry{score: b, length: length, index: idx}.better(top.h[0])
	}
	sc0 := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc0)
	for k, j := range long {
		if look(k) {
			return cancelled(ctx)
		}
		align(sc0, top, int(j))
	}
	if hi < lo {
		tops[0] = *top
		return nil
	}
	// The matches by bound, in index order within a bound (matched is ascending).
	span := int(hi-lo) + 1
	off := make([]int32, span+1)
	for j := range n {
		if state[j] < boundScored && bounds[j] != unbounded {
			off[bounds[j]-lo+1]++
		}
	}
	for i := 1; i <= span; i++ {
		off[i] += off[i-1]
	}
	order := make([]int32, off[span])
	fill := slices.Clone(off[:span])
	for j := range n {
		if state[j] < boundScored && bounds[j] != unbounded {
			b := bounds[j] - lo
			order[fill[b]] = int32(j)
			fill[b]++
		}
	}
	// dropped[b] holds the matches whose bound a tightening lowered to lo+b.
	dropped := make([][]int32, span)
	// below holds the matches a tightening lowered under lo, looked at last.
	var below []int32
	deferred := make([][]int32, len(tops))
	var items, buf []int32
	var keys, sorted []uint64
	var bins, bins2, ls []int32
	for b := hi; b >= lo; b-- {
		if top.full() && b < top.h[0].score {
			break
		}
		i := b - lo
		items = order[off[i]:off[i+1]]
		if len(dropped[i]) > 0 {
			items = append(append(buf[:0], items...), dropped[i]...)
			buf = items
		}
		dropped[i] = nil
		if len(items) == 0 {
			continue
		}
		// The shortest come first (found by a count of lengths), 2*limit of them or
		// more, then more until the bucket is settled.
		ls = ls[:0]
		if cap(bins) < lenBins {
			bins = make([]int32, lenBins)
		}
		cnt := bins[:lenBins]
		clear(cnt)
		for _, j := range items {
			l := s.length(int(matched[j]))
			ls = append(ls, l)
			cnt[min(l, lenBins-1)]++
		}
		// Each round takes the next lengths, four times as many matches as the last.
		for from, want := int32(0), int32(2*limit); from < lenBins && beats(b, from, -1); want *= 4 {
			cut, acc := from, cnt[from]
			for cut < lenBins-1 && acc < want {
				cut++
				acc += cnt[cut]
			}
			// Keys are length<<32 | j for the matches that could still enter.
			keys = keys[:0]
			for x, j := range items {
				if l := ls[x]; min(l, lenBins-1) >= from && min(l, lenBins-1) <= cut && beats(b, l, matched[j]) {
					keys = append(keys, uint64(l)<<32|uint64(j))
				}
			}
			from = cut + 1
			sorted = sortByLength(keys, sorted, &bins2)
			// Batches grow: the first few settle the worst kept entry, and past them
			// most of what is left must be aligned anyway.
			for pos, size := 0, alignBatch; pos < len(sorted); size = min(2*size, maxBatch) {
				// Within a length the order is not the index's (dropped matches come last),
				// so the walk stops at a longer text than the worst kept.
				if !beats(b, int32(sorted[pos]>>32), -1) {
					break
				}
				batch := sorted[pos:min(len(sorted), pos+size)]
				pos += len(batch)
				work := func(w, from, to int) {
					sc := scratchPool.Get().(*scratch)
					defer scratchPool.Put(sc)
					for k := from; k < to; k++ {
						if look(k) {
							return
						}
						key := batch[k]
						j := int(uint32(key))
						if state[j] == boundLoose {
							tighten(j)
							if bounds[j] < b {
								deferred[w] = append(deferred[w], int32(j))
								continue
							}
						}
						if beats(b, int32(key>>32), matched[j]) {
							align(sc, &tops[w], j)
						}
					}
				}
				if len(batch) < alignBatch || len(tops) == 1 {
					work(0, 0, len(batch))
				} else {
					per := (len(batch) + len(tops) - 1) / len(tops)
					run(func(w int) { work(w, min(len(batch), w*per), min(len(batch), (w+1)*per)) })
				}
				if stopped.Load() {
					return cancelled(ctx)
				}
				for w := range tops {
					for _, e := range tops[w].h {
						top.push(e)
					}
					tops[w].h = tops[w].h[:0]
					for _, j := range deferred[w] {
						if nb := bounds[j]; nb >= lo {
							dropped[nb-lo] = append(dropped[nb-lo], j)
						} else {
							below = append(below, j)
						}
					}
					deferred[w] = deferred[w][:0]
				}
			}
		}
	}
	for k, j := range below {
		if look(k) {
			return cancelled(ctx)
		}
		idx := matched[j]
		if beats(bounds[j], s.length(int(idx)), idx) {
			align(sc0, top, int(j))
		}
	}
	tops[0] = *top
	return nil
}

// sortByLength returns keys (length<<32 | j) sorted, in out's memory: by a count of
// lengths when there are many (lengths are small), so a bound shared by a third of a
// million matches is put in order in two passes.
func sortByLength(keys, out []uint64, bins *[]int32) []uint64 {
	if len(keys) < 4096 {
		out = append(out[:0], keys...)
		slices.Sort(out)
		return out
	}
	if cap(*bins) < lenBins+1 {
		*bins = make([]int32, lenBins+1)
	}
	cnt := (*bins)[:lenBins+1]
	clear(cnt)
	for _, k := range keys {
		cnt[min(k>>32, lenBins-1)+1]++
	}
	for i := 1; i <= lenBins; i++ {
		cnt[i] += cnt[i-1]
	}
	out = slices.Grow(out[:0], len(keys))[:len(keys)]
	for _, k := range keys {
		b := min(k>>32, lenBins-1)
		out[cnt[b]] = k
		cnt[b]++
	}
	// The last bin mixes lengths; the scatter kept each bin in j order.
	slices.Sort(out[cnt[lenBins-2]:])
	return out
}

// textGain bounds what one byte appended to t adds to its score in text, an ASCII text
// whose presence mask is mask: a match and the largest bonus. That bonus is 10 only after
// whitespace or in a run that starts at the text's first byte (so the first byte is t's
// first byte); otherwise a delimiter's 9 is the most.
func textGain(text []byte, mask uint64, t *term) int32 {
	if mask&whiteMask != 0 || len(text) == 0 {
		return maxGain
	}
	c := text[0]
	if !t.cs {
		c = lowerTable[c]
	}
	if c == t.text[0] {
		return maxGain
	}
	return maxGain - 1
}

// length is candidate i's trimmedLen, without reading a plain ASCII text: its mask shows
// there is no whitespace to trim and no multi-byte character.
func (s *Store) length(i int) int32 {
	if s.masks[i]&(whiteMask|nonASCIIMask) == 0 {
		start := 0
		if i > 0 {
			start = s.ends[i-1]
		}
		return int32(s.ends[i] - start)
	}
	return trimmedLen(s.bytes(i), s.masks[i])
}

// trimmedLen is a text's length in characters without surrounding whitespace, the
// tie-break (fzf counts characters, so a text with multi-byte characters is shorter than
// its bytes). mask is the text's presence mask, whose top bits show bytes >= 0x80.
func trimmedLen(text []byte, mask uint64) int32 {
	if len(text) > 0 && (isSpace(text[0]) || isSpace(text[len(text)-1])) {
		lead := leadingSpace(text)
		text = text[lead : lead+max(0, len(text)-lead-trailingSpace(text))]
	}
	if mask&nonASCIIMask != 0 {
		return int32(utf8.RuneCount(text))
	}
	return int32(len(text))
}

// nonASCIIMask holds the mask bits of bytes >= 0x80.
const nonASCIIMask = 0xff << 56

// boundGain bounds what pat's last byte adds to the best score of pat[:m-1] (m >= 2) in
// text, where the leftmost match of pat ends at e. The last byte sits at some occurrence k
// >= e, after an occurrence j of pat[m-2]: right after it, it can earn a match and the
// largest bonus of the run it may continue; otherwise it earns a match and its own bonus,
// less the gap from the latest such j. pat[:m-1] scores at most its best wherever it ends.
// A gap that costs more than pat[:m-1] scored restarts the alignment at the last byte,
// which then scores at most maxGain: a bound is the larger of the two.
func boundGain(text, pat []byte, cs bool, e int) int {
	m := len(pat)
	c, pc := pat[m-1], pat[m-2]
	fold := &lowerTable
	if cs {
		fold = &identityTable
	}
	at := func(i int) byte { return fold[text[i]] }
	j := e - 1
	for j > 0 && at(j) != pc {
		j--
	}
	best := math.MinInt
	for k := e; k < len(text); k++ {
		b := at(k)
		if b == c {
			if k == j+1 {
				// A run's characters earn the largest of their own bonus, the
				// consecutive minimum and the bonus of where the run starts: at most
				// the largest bonus among the pattern bytes right before k.
				bo := max(bonusAt(text, k), bonusConsecutive)
				for r, i := k-1, m-2; r >= 0 && i >= 0 && at(r) == pat[i]; r, i = r-1, i-1 {
					bo = max(bo, bonusAt(text, r))
				}
				best = max(best, scoreMatch+int(bo))
				if best >= maxGain {
					return best
				}
				if b == pc {
					j = k
				}
				continue
			}
			g := scoreMatch + int(bonusTable[byteClass[text[k-1]]][byteClass[text[k]]]) + scoreGapStart + scoreGapExtension*(k-j-2)
			best = max(best, g)
		}
		if b == pc {
			j = k
		}
	}
	return best
}

// extendGain finds pat's last byte in text past e0, where the leftmost match of pat[:m-1]
// (m >= 2) ends, and bounds what that byte adds to the best score of pat[:m-1], as
// boundGain does, in the same pass: it returns where the leftmost match of pat ends, or
// -1 when pat does not match, and the bound.
func extendGain(text, pat []byte, cs bool, e0 int) (int, int) {
	m := len(pat)
	c, pc := pat[m-1], pat[m-2]
	fold := &lowerTable
	if cs {
		fold = &identityTable
	}
	e, j := -1, e0
	best := math.MinInt
	// Only the bytes c and pc matter: skip to each.
	for k := nextOf(text, e0+1, c, pc, cs); k >= 0; k = nextOf(text, k+1, c, pc, cs) {
		b := fold[text[k]]
		if b == c {
			if e < 0 {
				e = k
			}
			if k == j+1 {
				bo := max(bonusAt(text, k), bonusConsecutive)
				for r, i := k-1, m-2; r >= 0 && i >= 0 && fold[text[r]] == pat[i]; r, i = r-1, i-1 {
					bo = max(bo, bonusAt(text, r))
				}
				best = max(best, scoreMatch+int(bo))
				if best >= maxGain {
					return e, best
				}
				if b == pc {
					j = k
				}
				continue
			}
			g := scoreMatch + int(bonusTable[byteClass[text[k-1]]][byteClass[text[k]]]) + scoreGapStart + scoreGapExtension*(k-j-2)
			best = max(best, g)
		}
		if b == pc {
			j = k
		}
	}
	return e, best
}

// nextFold returns the first index at or after from holding b (folded unless cs), or -1.
func nextFold(text []byte, b byte, from int, cs bool) int {
	return nextOf(text, from, b, b, cs)
}

// Word-at-a-time search: lo8 and hi8 are the lowest and highest bit of every byte.
const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// foldWord is what a text word is ORed with before comparing it with b: 0x20 in every
// byte when the search ignores case and b is a lower-case letter, which then equals both
// its cases (and nothing else).
func foldWord(b byte, cs bool) uint64 {
	if !cs && b >= 'a' && b <= 'z' {
		return 0x20 * lo8
	}
	return 0
}

// nextOf returns the first index at or after from holding a or b (folded unless cs), or
// -1. Paths are scanned eight bytes at a time: a byte equal to the one sought becomes a
// zero byte, and the lowest zero byte of a word is found exactly by the borrow trick.
func nextOf(text []byte, from int, a, b byte, cs bool) int {
	fa, fb := foldWord(a, cs), foldWord(b, cs)
	pa, pb := uint64(a)*lo8, uint64(b)*lo8
	i := from
	// A recoded text's lower-case character codes fold from other codes than their
	// 0x20 twins: those are looked for byte by byte.
	if !cs && (upperCode(a) != 0 || upperCode(b) != 0) {
		goto bytewise
	}
	for ; i+8 <= len(text); i += 8 {
		w := binary.LittleEndian.Uint64(text[i:])
		xa, xb := (w|fa)^pa, (w|fb)^pb
		if z := ((xa-lo8)&^xa | (xb-lo8)&^xb) & hi8; z != 0 {
			return i + bits.TrailingZeros64(z)/8
		}
	}
bytewise:
	fold := &lowerTable
	if cs {
		fold = &identityTable
	}
	for ; i < len(text); i++ {
		if c := fold[text[i]]; c == a || c == b {
			return i
		}
	}
	return -1
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

// score applies every group of p to text, whose presence mask is mask: each group needs
// one alternative to match (an inverse alternative matches when its text is absent); the
// score is the sum over groups of the first matching positive alternative's score. A text
// with non-ASCII characters is scored recoded one byte per character (see recode).
func (sc *scratch) score(text []byte, mask uint64, p *Pattern, withPos bool) (int, bool) {
	total := 0
	wide := mask&nonASCIIMask != 0
	var done [2]bool
	for _, set := range p.sets {
		matched := false
		for i := range set {
			t := &set[i]
			mark := len(sc.pos)
			tt := text
			if wide {
				k := 0
				if t.norm {
					k = 1
				}
				if !done[k] {
					sc.recode(text, p, t.norm)
					done[k] = true
				}
				tt = sc.recoded[k]
			}
			v, ok := sc.term(tt, t, withPos && !t.inv)
			if ok {
				if t.inv {
					continue
				}
				if wide {
					offs := sc.offs[0]
					if t.norm {
						offs = sc.offs[1]
					}
					for j := mark; j < len(sc.pos); j++ {
						sc.pos[j] = offs[sc.pos[j]]
					}
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
