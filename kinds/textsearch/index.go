package textsearch

import (
	"errors"
	"sync/atomic"
)

// IndexBlock is how many rows one count of an Index covers.
const IndexBlock = 1024

// Index is what a text search leaves its owner besides the stream: the
// number of matches in each block of IndexBlock rows, and the search's
// matcher over its snapshot. With it the owner counts every match, finds
// the index of any one and the match next to any position, and lists a
// row's matches, exactly and however many there are, in memory that
// grows with the rows (4 bytes a block), never with the matches: the
// stream may stop delivering at MaxResults.
//
// A job fills it (Spec.Index) on its worker; the owner may use it only
// once Done reports true, which it does when the whole text was searched
// (never for a search cancelled or failed). One index serves one search.
type Index struct {
	claimed atomic.Bool
	done    atomic.Bool
	match   textMatcher
	lines   Lines
	blocks  []uint32
	total   uint64
	// prefix[i] is the matches in the blocks before i (built by the
	// owner on first use, after Done).
	prefix []uint64
}

// errIndexUsed is why a second search cannot fill an index.
var errIndexUsed = errors.New("the index was already filled by another search")

// NewIndex returns an empty index for one search.
func NewIndex() *Index { return &Index{} }

// Done reports whether the index holds the whole text's matches.
func (x *Index) Done() bool { return x.done.Load() }

// Total returns the number of matches (after Done).
func (x *Index) Total() int { return int(x.total) }

// Rows returns the number of rows of the text searched (after Done).
func (x *Index) Rows() int { return x.lines.Len() }

// Row calls fn with each match of row, in order (after Done).
func (x *Index) Row(row int, fn func(start, end int)) {
	if row < 0 || row >= x.lines.Len() {
		return
	}
	x.match(x.lines.Row(row), fn)
}

// Before returns how many matches start before (row, col) (after Done).
func (x *Index) Before(row, col int) int {
	if row < 0 {
		return 0
	}
	if row >= x.lines.Len() {
		return int(x.total)
	}
	x.buildPrefix()
	b := row / IndexBlock
	n := x.prefix[b]
	count := func(int, int) { n++ }
	for _, line := range x.lines.Rows(b*IndexBlock, row) {
		x.match(line, count)
	}
	x.match(x.lines.Row(row), func(s, _ int) {
		if s < col {
			n++
		}
	})
	return int(n)
}

func (x *Index) buildPrefix() {
	if x.prefix != nil {
		return
	}
	x.prefix = make([]uint64, len(x.blocks)+1)
	for i, c := range x.blocks {
		x.prefix[i+1] = x.prefix[i] + uint64(c)
	}
}

// Next returns the first match starting after (row, col) (at or after it
// when inclusive), or going backwards the last one starting before it;
// ok is false when there is none that way (after Done). A block without a
// match is skipped by its count, so a step over a million rows without a
// match looks at their blocks only.
func (x *Index) Next(row, col int, forward, inclusive bool) (mrow, start, end int, ok bool) {
	n := x.lines.Len()
	if forward {
		if row < 0 {
			row, col, inclusive = 0, 0, true
		}
		for r := row; r < n; r++ {
			if x.blocks[r/IndexBlock] == 0 {
				r = (r/IndexBlock+1)*IndexBlock - 1
				continue
			}
			x.match(x.lines.Row(r), func(s, e int) {
				if ok || (r == row && (s < col || (s == col && !inclusive))) {
					return
				}
				mrow, start, end, ok = r, s, e, true
			})
			if ok {
				return mrow, start, end, true
			}
		}
		return 0, 0, 0, false
	}
	if row >= n {
		row, col = n-1, int(^uint(0)>>1)
	}
	for r := row; r >= 0; r-- {
		if x.blocks[r/IndexBlock] == 0 {
			r = r / IndexBlock * IndexBlock
			continue
		}
		x.match(x.lines.Row(r), func(s, e int) {
			if r == row && s >= col {
				return
			}
			mrow, start, end, ok = r, s, e, true
		})
		if ok {
			return mrow, start, end, true
		}
	}
	return 0, 0, 0, false
}

// claim reserves x for one search: a second one fails.
func (x *Index) claim() error {
	if !x.claimed.CompareAndSwap(false, true) {
		return errIndexUsed
	}
	return nil
}

// start readies x on the worker, before the scan counts into it.
func (x *Index) start(match textMatcher, lines Lines) {
	x.match, x.lines = match, lines
	x.blocks = make([]uint32, (lines.Len()+IndexBlock-1)/IndexBlock)
}

// finish publishes the counts: Done turns true only after every write.
func (x *Index) finish(total uint64) {
	x.total = total
	x.done.Store(true)
}
