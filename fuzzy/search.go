package fuzzy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
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
	return &prior{bounds: r.bounds, ends: r.ends, old: old.text, extra: cur.text[len(old.text):], floor: r.floor}
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

// unbounded is the bound of a candidate whose score cannot be bounded from the previous
// one (a text scored by the greedy pass, whose score is not an alignment's).
const unbounded = math.MaxInt32

// prior is what a refinement by appended bytes knows of each previous match: an upper
// bound of its score and where its leftmost match ended, parallel to sub[:len(bounds)].
type prior struct {
	bounds, ends []int32
	old          []byte // the previous term, located again where ends is negative
	extra        []byte // the bytes appended to the previous term
	floor        int32  // the previous result's worst kept score (see Result.floor)
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
)

// floorFor is the least score e (with its length and index set) needs to enter t.
func floorFor(t *topK, e entry) int {
	if !t.full() {
		return 0
	}
	worst := t.h[0]
	f := int(worst.score)
	if e.length > worst.length || e.length == worst.length && e.index > worst.index {
		f++
	}
	return f
}

// search scores the candidates sub and then every index from added on (all of them when
// sub is nil and added 0).
//
// A single fuzzy term with a limit goes in two phases when pr is set (the query extends
// the previous one): first every candidate is checked for a match, cheaply, past where
// its previous match ended, and given a bound (its previous bound plus maxGain per
// appended byte); then only the candidates whose bound can reach the top-K are aligned,
// highest bounds first. Most matches of a narrowing query are far below the top-K, so
// most are never aligned.
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
					ok := true
					if end < 0 {
						// Not located yet (see letterBound): the previous term first.
						end = -1
						for _, b := range pr.old {
							if end = nextFold(text, b, end+1, one.cs); end < 0 {
								break
							}
						}
					}
					work += len(text) - end
					for _, b := range pr.extra {
						if end = nextFold(text, b, end+1, one.cs); end < 0 {
							ok = false
							break
						}
					}
					if !ok {
						continue
					}
					b := pr.bounds[k]
					st := boundTight
					if len(pr.extra) == 1 {
						st = boundLoose
					}
					if len(text)*m > maxCells || b == unbounded {
						b = unbounded
					} else {
						b += int32(maxGain * len(pr.extra))
					}
					if st == boundLoose && b >= pr.floor+maxGain-1 {
						// The top-K's floor rises by nearly maxGain a keystroke, so a bound
						// this high is likely to reach it and be tightened: do it now,
						// while the text is in the cache.
						b += int32(boundGain(text, one.text, one.cs, end) - maxGain)
						st = boundTight
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

// alignChunk is how many matches a goroutine claims at once in alignBounded, and
// alignLook how many pass between two looks at the context.
const (
	alignChunk = 4096
	alignLook  = 32
)

// alignBounded scores the matches whose bound is not yet their exact score and that can
// still enter the top-K, pushing them to tops: first those with the highest bounds, at
// least limit of them, which sets a floor; then those whose bound reaches that floor. The
// rest provably score below every kept match. Before that, loose bounds among the highest
// are tightened (boundGain) until the limit-th highest bound is a tight one, so that few
// are aligned. bounds[j] becomes the exact score of each match scored.
func alignBounded(ctx context.Context, s *Store, p *Pattern, matched, bounds, ends []int32, state []uint8, tops []topK, limit int, run func(func(int))) error {
	n := len(matched)
	if n == 0 {
		return nil
	}
	t := p.single()
	cancellable := ctx.Done() != nil
	var stopped atomic.Bool
	chunks := (n + alignChunk - 1) / alignChunk
	tighten := func(j int) {
		if state[j] != boundLoose {
			return
		}
		state[j] = boundTight
		if bounds[j] == unbounded {
			return
		}
		bounds[j] += int32(boundGain(s.bytes(int(matched[j])), t.text, t.cs, int(ends[j])) - maxGain)
	}
	// each runs fn on every match index j, in chunks spread over the goroutines.
	each := func(fn func(sc *scratch, top *topK, j int)) {
		var next atomic.Int64
		run(func(w int) {
			sc := scratchPool.Get().(*scratch)
			defer scratchPool.Put(sc)
			top := &tops[w]
			for !stopped.Load() {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				for j := c * alignChunk; j < min(n, (c+1)*alignChunk); j++ {
					// An alignment is at most maxCells cells (about 0.1 ms), so a look
					// every alignLook of them keeps a cancel prompt.
					if cancellable && j%alignLook == 0 && ctx.Err() != nil {
						stopped.Store(true)
						return
					}
					fn(sc, top, j)
				}
			}
		})
	}
	// The highest threshold that at least limit bounds reach; with no limit or too few
	// matches, every match is scored.
	lo := int32(math.MinInt32)
	for limit > 0 && n > limit {
		lo = kthLargest(bounds, limit)
		var loose atomic.Int64
		each(func(_ *scratch, _ *topK, j int) {
			if state[j] == boundLoose && bounds[j] >= lo {
				tighten(j)
				loose.Add(1)
			}
		})
		if stopped.Load() {
			return cancelled(ctx)
		}
		if loose.Load() == 0 {
			break
		}
	}
	// pass scores the matches whose bound lies in [from, to].
	pass := func(from, to int32) {
		each(func(sc *scratch, top *topK, j int) {
			if state[j] == boundScored || bounds[j] < from || bounds[j] > to {
				return
			}
			tighten(j)
			b := bounds[j]
			if b < from {
				return
			}
			idx := int(matched[j])
			text := s.bytes(idx)
			e := entry{index: int32(idx), length: trimmedLen(text, s.masks[idx])}
			if int(b) < floorFor(top, e) && b != unbounded {
				return
			}
			score, _ := sc.score(text, s.masks[idx], p, false)
			bounds[j], state[j] = int32(score), boundScored
			if ends[j] < 0 {
				ends[j] = int32(sc.end)
			}
			e.score = int32(score)
			top.push(e)
		})
	}
	pass(lo, unbounded)
	if stopped.Load() || ctx.Err() != nil {
		return cancelled(ctx)
	}
	if lo == math.MinInt32 {
		return nil
	}
	// The worst of the merged top-K: a match whose bound is below it cannot enter.
	var all []entry
	for i := range tops {
		all = append(all, tops[i].h...)
	}
	floor := int32(math.MinInt32)
	if len(all) >= limit {
		slices.SortFunc(all, entry.compare)
		floor = all[limit-1].score
	}
	if floor < lo {
		pass(floor, lo-1)
	}
	if stopped.Load() || ctx.Err() != nil {
		return cancelled(ctx)
	}
	return nil
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
// largest bonus of the run it may continue; otherwise it earns a match and its own bonus, less the gap from
// the latest such j. pat[:m-1] scores at most its best wherever it ends.
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

// kthLargest returns the k-th largest of v (k >= 1, len(v) >= k), counting the small
// range scores take rather than sorting.
func kthLargest(v []int32, k int) int32 {
	hi, lo := int32(math.MinInt32), int32(math.MaxInt32)
	for _, b := range v {
		if b == unbounded {
			continue
		}
		hi, lo = max(hi, b), min(lo, b)
	}
	unb := 0
	for _, b := range v {
		if b == unbounded {
			unb++
		}
	}
	if unb >= k || hi < lo {
		return unbounded
	}
	if int64(hi)-int64(lo) > 1<<20 {
		s := slices.Clone(v)
		slices.Sort(s)
		return s[len(s)-k]
	}
	count := make([]int, int(hi-lo)+1)
	for _, b := range v {
		if b != unbounded {
			count[b-lo]++
		}
	}
	seen := unb
	for i := len(count) - 1; i >= 0; i-- {
		seen += count[i]
		if seen >= k {
			return lo + int32(i)
		}
	}
	return lo
}

// nextFold returns the first index at or after from holding b (folded unless cs), or -1.
func nextFold(text []byte, b byte, from int, cs bool) int {
	if cs {
		for i := from; i < len(text); i++ {
			if text[i] == b {
				return i
			}
		}
		return -1
	}
	for i := from; i < len(text); i++ {
		if lowerTable[text[i]] == b {
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
