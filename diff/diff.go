// Package diff computes line diffs as git does: the hunks of two texts'
// lines, numbered as the @@ headers of `git diff -U0` print them, from the
// same steps git's xdiff takes (common ends trimmed, lines without a match
// on the other side set aside, Myers's O(ND) search from both ends with
// git's bound on the cost of each split, then the changes slid into place
// with git's indent heuristic). For the texts people edit, the hunks are
// the ones `git diff -U0` prints; see Lines for where they may part.
//
// The package knows nothing of jobs: a diff runs on the caller's goroutine
// and checks its context between steps of the search.
package diff

import (
	"context"
	"strings"
)

// Hunk is one change. Starts are 1-based line numbers as `git diff -U0`
// prints them: for a side whose Count is 0 (a pure insertion or deletion)
// the Start is the line after which the change sits, 0 for the top.
type Hunk struct {
	OldStart, OldCount int
	NewStart, NewCount int
}

// DefaultMaxWork is the work (diagonal steps and snake steps) a diff does
// when Options names no bound: under a second on a loaded two-core machine
// (two unrelated 20,000-line texts take 12 million steps, 0.4 s; a
// keystroke's change in such a file, a few thousand), far past what two
// versions of a source file need.
const DefaultMaxWork = 30_000_000

// Options tune a diff; the zero value is git's defaults.
type Options struct {
	// MaxWork bounds the search's steps (0: DefaultMaxWork). Past it, each
	// part of the texts not yet searched becomes one change covering the
	// whole of it, so a diff of two unrelated huge texts ends in bounded
	// time with a correct, if coarse, answer.
	MaxWork int
	// Rows says the lines come without their line breaks (an editor's
	// rows): each counts as ending with one, so two texts that differ only
	// in their line breaks, or in the last line's, are equal.
	Rows bool
	// NoIndentHeuristic leaves a change that can slide at its lowest
	// place, as `git diff --no-indent-heuristic` does.
	NoIndentHeuristic bool
}

// SplitLines splits s into lines, each keeping its "\n" (git compares
// lines so: a last line without one differs from the same line with one).
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// Lines returns the hunks that turn the lines a into the lines b, in
// order. Lines compare byte for byte (SplitLines keeps their newlines).
//
// The search is git's except in two places, both reached only by costly
// diffs: git's shortcut that takes a long common run as a split once a
// split's cost passes 256 is not taken (the search goes on to git's
// furthest-reaching split at the same bound), and Options.MaxWork turns
// what is left into whole changes. The error is the context's, if it ends
// first.
func Lines(ctx context.Context, a, b []string, o Options) ([]Hunk, error) {
	if o.MaxWork <= 0 {
		o.MaxWork = DefaultMaxWork
	}
	a, b = trimCommonTail(a, b, o.Rows)
	d := newDiffer(ctx, a, b, o)
	if err := d.run(); err != nil {
		return nil, err
	}
	return d.hunks(), nil
}

// tailBlock is the unit in which git drops the common tail of two texts
// before a diff without context lines (xdiff-interface.c's
// trim_common_tail).
const tailBlock = 1024

// trimCommonTail drops the lines of the texts' common tail git drops for
// `git diff -U0`: the largest multiple of 1 KiB of common trailing bytes,
// less the line that straddles the cut. Which lines remain changes where
// the indent heuristic puts a change near the end of what remains (the end
// of the text scores differently), so the hunks follow git only with it.
func trimCommonTail(a, b []string, rows bool) ([]string, []string) {
	nl := 0
	if rows {
		nl = 1
	}
	size := func(l string) int { return len(l) + nl }
	sizeA, sizeB := 0, 0
	for _, l := range a {
		sizeA += size(l)
	}
	for _, l := range b {
		sizeB += size(l)
	}
	smaller := min(sizeA, sizeB)
	// common counts the trailing bytes the texts share, up to smaller.
	common := 0
	for i, j := len(a)-1, len(b)-1; i >= 0 && j >= 0 && common < smaller; i, j = i-1, j-1 {
		la, lb := a[i], b[j]
		if la == lb {
			common += size(la)
			continue
		}
		k := 0
		for k < len(la) && k < len(lb) && la[len(la)-1-k] == lb[len(lb)-1-k] {
			k++
		}
		common += nl + k // both lines end with the break
		break
	}
	common = min(common, smaller)
	trimmed := common / tailBlock * tailBlock
	if trimmed == 0 {
		return a, b
	}
	// Keep whole lines up to the cut, and the line the cut falls in (git
	// backs up to the first newline at or after the cut).
	cut := sizeA - trimmed
	kept, off := 0, 0
	for kept < len(a) && off < cut {
		off += size(a[kept])
		kept++
	}
	if off == cut && kept < len(a) {
		kept++
	}
	if !rows && !strings.HasSuffix(a[kept-1], "\n") {
		return a, b // no newline in the tail: git keeps it all
	}
	drop := len(a) - kept
	return a[:kept], b[:len(b)-drop]
}

// side is one text: its lines, their classes (equal lines, equal
// classes), and which lines the diff marks changed.
type side struct {
	lines []string
	ha    []int32
	// chg is indexed by line+1: chg[0] and chg[n+1] are sentinels that
	// stay false, as xdiff's rchg is.
	chg []bool
	// dstart and dend bound the lines left after the common ends are
	// trimmed ([dstart, dend], dend may be dstart-1).
	dstart, dend int
	// rindex maps the lines the search sees to the text's lines.
	rindex []int
	// rha are the classes of those lines.
	rha []int32
}

func (s *side) changed(i int) bool { return s.chg[i+1] }
func (s *side) mark(i int, v bool) { s.chg[i+1] = v }
func (s *side) n() int             { return len(s.lines) }

type differ struct {
	ctx    context.Context
	o      Options
	s1, s2 side
	// kv holds the forward and backward furthest-reaching x of each
	// diagonal, offset so diagonals from -(n2+1) to n1+1 fit.
	kvf, kvb []int
	koff     int
	mxcost   int
	work     int
	err      error
}

func newDiffer(ctx context.Context, a, b []string, o Options) *differ {
	d := &differ{ctx: ctx, o: o}
	d.s1 = side{lines: a, ha: make([]int32, len(a)), chg: make([]bool, len(a)+2)}
	d.s2 = side{lines: b, ha: make([]int32, len(b)), chg: make([]bool, len(b)+2)}
	return d
}

// bogosqrt is xdiff's integer square root approximation; its bounds are
// defined by it, so it is kept rather than math.Sqrt.
func bogosqrt(n int) int {
	i := 1
	for ; n > 0; n >>= 2 {
		i <<= 1
	}
	return i
}

const (
	maxEqLimit    = 1024 // XDL_MAX_EQLIMIT
	simscanWindow = 100  // XDL_SIMSCAN_WINDOW
	kpdisRun      = 4    // XDL_KPDIS_RUN
	maxCostMin    = 256  // XDL_MAX_COST_MIN
)

const (
	discard = iota
	keep
	investigate
)

func (d *differ) run() error {
	s1, s2 := &d.s1, &d.s2
	// Classes, and how often each occurs on each side.
	ids := make(map[string]int32, len(s1.lines)+len(s2.lines))
	var cnt1, cnt2 []int
	class := func(l string) int32 {
		id, ok := ids[l]
		if !ok {
			id = int32(len(ids))
			ids[l] = id
			cnt1 = append(cnt1, 0)
			cnt2 = append(cnt2, 0)
		}
		return id
	}
	for i, l := range s1.lines {
		s1.ha[i] = class(l)
		cnt1[s1.ha[i]]++
	}
	for i, l := range s2.lines {
		s2.ha[i] = class(l)
		cnt2[s2.ha[i]]++
	}
	if err := d.ctx.Err(); err != nil {
		return err
	}

	// The common ends.
	n1, n2 := s1.n(), s2.n()
	lim := min(n1, n2)
	i := 0
	for i < lim && s1.ha[i] == s2.ha[i] {
		i++
	}
	s1.dstart, s2.dstart = i, i
	j := 0
	for j < lim-i && s1.ha[n1-1-j] == s2.ha[n2-1-j] {
		j++
	}
	s1.dend, s2.dend = n1-1-j, n2-1-j

	// Lines with no match on the other side are changed whatever the
	// search finds; lines with very many matches are set aside too when
	// they sit among those.
	prune := func(s *side, other []int, n int) {
		mlim := min(bogosqrt(n), maxEqLimit)
		act := make([]byte, n+1)
		for i := s.dstart; i <= s.dend; i++ {
			switch nm := other[s.ha[i]]; {
			case nm == 0:
				act[i] = discard
			case nm >= mlim:
				act[i] = investigate
			default:
				act[i] = keep
			}
		}
		for i := s.dstart; i <= s.dend; i++ {
			if act[i] == keep || act[i] == investigate && !cleanMmatch(act, i, s.dstart, s.dend) {
				s.rindex = append(s.rindex, i)
				s.rha = append(s.rha, s.ha[i])
			} else {
				s.mark(i, true)
			}
		}
	}
	prune(s1, cnt2, n1)
	prune(s2, cnt1, n2)

	r1, r2 := len(s1.rindex), len(s2.rindex)
	ndiags := r1 + r2 + 3
	d.kvf = make([]int, 2*ndiags+2)
	d.kvb = make([]int, 2*ndiags+2)
	d.koff = r2 + 1
	d.mxcost = max(bogosqrt(ndiags), maxCostMin)
	d.compare(0, r1, 0, r2)
	if d.err != nil {
		return d.err
	}
	d.compact(s1, s2)
	d.compact(s2, s1)
	return d.ctx.Err()
}

// cleanMmatch says whether line i, which has many matches, sits in a run
// of lines without a match (and so is set aside with them): xdiff's
// xdl_clean_mmatch.
func cleanMmatch(act []byte, i, s, e int) bool {
	if i-s > simscanWindow {
		s = i - simscanWindow
	}
	if e-i > simscanWindow {
		e = i + simscanWindow
	}
	rdis0, rpdis0 := 0, 1
	for r := 1; i-r >= s; r++ {
		if act[i-r] == discard {
			rdis0++
		} else if act[i-r] == investigate {
			rpdis0++
		} else {
			break
		}
	}
	if rdis0 == 0 {
		return false
	}
	rdis1, rpdis1 := 0, 1
	for r := 1; i+r <= e; r++ {
		if act[i+r] == discard {
			rdis1++
		} else if act[i+r] == investigate {
			rpdis1++
		} else {
			break
		}
	}
	if rdis1 == 0 {
		return false
	}
	rdis1 += rdis0
	rpdis1 += rpdis0
	return rpdis1*kpdisRun < rpdis1+rdis1
}

// compare marks the changed lines of the box [off1, lim1) x [off2, lim2)
// of the searched lines: xdiff's xdl_recs_cmp, divide and conquer around
// the split each search finds.
func (d *differ) compare(off1, lim1, off2, lim2 int) {
	ha1, ha2 := d.s1.rha, d.s2.rha
	for off1 < lim1 && off2 < lim2 && ha1[off1] == ha2[off2] {
		off1++
		off2++
	}
	for off1 < lim1 && off2 < lim2 && ha1[lim1-1] == ha2[lim2-1] {
		lim1--
		lim2--
	}
	switch {
	case off1 == lim1:
		for ; off2 < lim2; off2++ {
			d.s2.mark(d.s2.rindex[off2], true)
		}
	case off2 == lim2:
		for ; off1 < lim1; off1++ {
			d.s1.mark(d.s1.rindex[off1], true)
		}
	case d.err != nil || d.work > d.o.MaxWork:
		// Out of budget (or cancelled): the box is one change.
		for ; off1 < lim1; off1++ {
			d.s1.mark(d.s1.rindex[off1], true)
		}
		for ; off2 < lim2; off2++ {
			d.s2.mark(d.s2.rindex[off2], true)
		}
	default:
		i1, i2 := d.split(off1, lim1, off2, lim2)
		d.compare(off1, i1, off2, i2)
		d.compare(i1, lim1, i2, lim2)
	}
}

// split finds where the box's shortest edit script crosses its middle
// diagonal, searching from both corners at once (Myers's middle snake,
// as xdiff's xdl_split walks it, so ties break as git's do); past git's
// cost bound it takes the furthest-reaching point instead.
func (d *differ) split(off1, lim1, off2, lim2 int) (int, int) {
	ha1, ha2 := d.s1.rha, d.s2.rha
	o := d.koff
	kvdf := func(k int) *int { return &d.kvf[k+o] }
	kvdb := func(k int) *int { return &d.kvb[k+o] }
	dmin, dmax := off1-lim2, lim1-off2
	fmid, bmid := off1-off2, lim1-lim2
	odd := (fmid-bmid)&1 != 0
	fmin, fmax := fmid, fmid
	bmin, bmax := bmid, bmid
	*kvdf(fmid) = off1
	*kvdb(bmid) = lim1
	const lineMax = int(^uint(0) >> 1)
	for ec := 1; ; ec++ {
		if ec&63 == 0 {
			if err := d.ctx.Err(); err != nil {
				d.err = err
			}
		}
		if d.err != nil || d.work > d.o.MaxWork {
			// Give up on a split: return one that makes progress so
			// the recursion ends with whole changes (compare's budget
			// case).
			return lim1, lim2
		}
		if fmin > dmin {
			fmin--
			*kvdf(fmin - 1) = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			*kvdf(fmax + 1) = -1
		} else {
			fmax--
		}
		d.work += (fmax-fmin)/2 + 1
		for k := fmax; k >= fmin; k -= 2 {
			var i1 int
			if *kvdf(k - 1) >= *kvdf(k + 1) {
				i1 = *kvdf(k - 1) + 1
			} else {
				i1 = *kvdf(k + 1)
			}
			i2 := i1 - k
			s := i1
			for i1 < lim1 && i2 < lim2 && ha1[i1] == ha2[i2] {
				i1++
				i2++
			}
			d.work += i1 - s
			*kvdf(k) = i1
			if odd && bmin <= k && k <= bmax && *kvdb(k) <= i1 {
				return i1, i2
			}
		}
		if bmin > dmin {
			bmin--
			*kvdb(bmin - 1) = lineMax
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			*kvdb(bmax + 1) = lineMax
		} else {
			bmax--
		}
		d.work += (bmax-bmin)/2 + 1
		for k := bmax; k >= bmin; k -= 2 {
			var i1 int
			if *kvdb(k - 1) < *kvdb(k + 1) {
				i1 = *kvdb(k - 1)
			} else {
				i1 = *kvdb(k + 1) - 1
			}
			i2 := i1 - k
			s := i1
			for i1 > off1 && i2 > off2 && ha1[i1-1] == ha2[i2-1] {
				i1--
				i2--
			}
			d.work += s - i1
			*kvdb(k) = i1
			if !odd && fmin <= k && k <= fmax && i1 <= *kvdf(k) {
				return i1, i2
			}
		}
		if ec >= d.mxcost {
			fbest, fbest1 := -1, -1
			for k := fmax; k >= fmin; k -= 2 {
				i1 := min(*kvdf(k), lim1)
				i2 := i1 - k
				if lim2 < i2 {
					i1, i2 = lim2+k, lim2
				}
				if fbest < i1+i2 {
					fbest, fbest1 = i1+i2, i1
				}
			}
			bbest, bbest1 := lineMax, lineMax
			for k := bmax; k >= bmin; k -= 2 {
				i1 := max(off1, *kvdb(k))
				i2 := i1 - k
				if i2 < off2 {
					i1, i2 = off2+k, off2
				}
				if i1+i2 < bbest {
					bbest, bbest1 = i1+i2, i1
				}
			}
			if (lim1+lim2)-bbest < fbest-(off1+off2) {
				return fbest1, fbest - fbest1
			}
			return bbest1, bbest - bbest1
		}
	}
}

// hunks reads the changes off the marks, in order.
func (d *differ) hunks() []Hunk {
	s1, s2 := &d.s1, &d.s2
	var hs []Hunk
	i1, i2 := 0, 0
	for i1 < s1.n() || i2 < s2.n() {
		if !s1.changed(i1) && !s2.changed(i2) {
			if i1 >= s1.n() || i2 >= s2.n() {
				break // unreachable while the marks agree
			}
			i1++
			i2++
			continue
		}
		l1, l2 := i1, i2
		for i1 < s1.n() && s1.changed(i1) {
			i1++
		}
		for i2 < s2.n() && s2.changed(i2) {
			i2++
		}
		h := Hunk{OldStart: l1, OldCount: i1 - l1, NewStart: l2, NewCount: i2 - l2}
		if h.OldCount > 0 {
			h.OldStart++
		}
		if h.NewCount > 0 {
			h.NewStart++
		}
		hs = append(hs, h)
	}
	return hs
}
