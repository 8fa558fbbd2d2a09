package editor

import (
	"slices"

	"github.com/pmacs-go/pmacs-go/kinds/textsearch"
)

// textMatch is one in-buffer search match: a row and a byte range in it.
// A search keeps every match of the text (a 60 MB file can hold millions),
// so they are int32s: 12 bytes a match. A row or a line of 2 GiB or more
// is beyond what the editor loads.
type textMatch struct{ row, start, end int32 }

func cmpMatch(a textMatch, p pos) int {
	switch {
	case int(a.row) != p.Row:
		return int(a.row) - p.Row
	default:
		return int(a.start) - p.Col
	}
}

// searchHits holds a buffer's search matches as they stream in from the
// text search job: the window's rows first (win), then the rest of the
// text from the top (rest). Each part arrives in text order, so both stay
// sorted by appending alone and a lookup searches the two.
type searchHits struct {
	win, rest []textMatch
	// inRest says the job has moved on from the window's rows.
	inRest bool
	// winEnd is the first row after the window's part: a match below it
	// (or above the window) belongs to rest.
	winFirst, winEnd int
	cur              *textMatch // the match the cursor was moved to
	// index, once done, holds the whole text's matches, however many:
	// the stream stops delivering at its cap (100,000), so past that the
	// parts above are only the first of them.
	index *textsearch.Index
	// shownWhole says the window was redrawn since the index was done.
	shownWhole bool
}

func (m textMatch) pos() pos { return pos{int(m.row), int(m.start)} }

// whole reports whether the index answers for every match.
func (h *searchHits) whole() bool { return h.index != nil && h.index.Done() }

func (h *searchHits) len() int {
	if h.whole() {
		return h.index.Total()
	}
	return len(h.win) + len(h.rest)
}

// before returns how many matches start before p.
func (h *searchHits) before(p pos) int {
	if h.whole() {
		return h.index.Before(p.Row, p.Col)
	}
	return countBefore(h.win, p) + countBefore(h.rest, p)
}

// add appends a match in arrival order.
func (h *searchHits) add(m textMatch) {
	if !h.inRest && (int(m.row) < h.winFirst || int(m.row) >= h.winEnd) {
		h.inRest = true
	}
	if h.inRest {
		h.rest = append(h.rest, m)
		return
	}
	h.win = append(h.win, m)
}

// row appends row's matches to out.
func (h *searchHits) row(row int, out []textMatch) []textMatch {
	if h.whole() {
		h.index.Row(row, func(s, e int) { out = append(out, textMatch{int32(row), int32(s), int32(e)}) })
		return out
	}
	for _, part := range [2][]textMatch{h.win, h.rest} {
		i, _ := slices.BinarySearchFunc(part, pos{row, 0}, cmpMatch)
		for ; i < len(part) && int(part[i].row) == row; i++ {
			out = append(out, part[i])
		}
	}
	return out
}

// next returns the first match starting after p (at or after it when
// inclusive), or, going backwards, the last one starting before p; ok is
// false when there is none that way.
func (h *searchHits) next(p pos, forward, inclusive bool) (m textMatch, ok bool) {
	if h.whole() {
		row, s, e, ok := h.index.Next(p.Row, p.Col, forward, inclusive)
		return textMatch{int32(row), int32(s), int32(e)}, ok
	}
	for _, part := range [2][]textMatch{h.win, h.rest} {
		i, found := slices.BinarySearchFunc(part, p, cmpMatch)
		var c textMatch
		if forward {
			if found && !inclusive {
				i++
			}
			if i >= len(part) {
				continue
			}
			c = part[i]
			if !ok || cmpMatch(c, m.pos()) < 0 {
				m, ok = c, true
			}
			continue
		}
		if i == 0 {
			continue
		}
		c = part[i-1]
		if !ok || cmpMatch(c, m.pos()) > 0 {
			m, ok = c, true
		}
	}
	return m, ok
}

// first and last return the text's first and last matches.
func (h *searchHits) first() (textMatch, bool) { return h.next(pos{}, true, true) }

func (h *searchHits) last() (textMatch, bool) {
	return h.next(pos{Row: int(^uint(0) >> 2)}, false, false)
}

// snapshot returns the buffer's text as a snapshot for a search job,
// the same one while the text is unchanged.
func (b *buffer) snapshot() *textsearch.Snapshot {
	if b.snap == nil {
		b.snap = textsearch.NewSnapshotOf(b.lines.freeze())
	}
	return b.snap
}

// ownLines is called before anything changes the rows. The snapshot is a
// frozen copy (rowStore.freeze) that the change never reaches; it is
// retired, so no later search reads a text that is no longer the
// buffer's. The matches found are of the old text and go.
func (b *buffer) ownLines() {
	if b.snap != nil {
		b.snap.Retire()
		b.snap = nil
	}
	b.hits = nil
}

// countBefore returns how many of part's matches start before p.
func countBefore(part []textMatch, p pos) int {
	i, _ := slices.BinarySearchFunc(part, p, cmpMatch)
	return i
}
