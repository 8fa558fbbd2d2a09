package grepjob

import (
	"strings"

	"github.com/pmacs-go/pmacs-go/bus/wire"
	"github.com/pmacs-go/pmacs-go/grep"
)

// decodeMatchesFast decodes a batch of matches straight from its bytes,
// when they are exactly what this package's encoder writes: the batch's
// array, compact unsigned integers and str-coded strings. A live grep
// hands the main goroutine every match it finds, and the general decoder
// spends most of its ~290 ns a match on the msgpack decoder's calls, not on
// the match. For anything else (another kind, another encoding of the
// same values, a malformed or truncated payload) it reports false and the
// general decoder decides, with its errors; FuzzMatchesFastPath holds the
// two to the same result wherever this one accepts.
//
// The batch's line texts share one string, made in one allocation: a
// string each was a third of the cost. So a match kept (by a Lua table,
// say) keeps its batch's texts, at most a batch payload's bytes, not the
// payload itself: file names, numbers and headers are not in it.
func decodeMatchesFast(p []byte) (Matches, bool) {
	w, n, ok := matchesHeader(p)
	if !ok {
		return nil, false
	}
	out := make([]grep.Match, 0, n)
	var file string // the last file named: a batch names each file many times in a row
	var slab [][2]uint32
	// Where each text lies in the payload: the texts are copied into one
	// string of the right size once they are all found.
	at := make([][2]int, 0, n)
	size := 0
	var wm wireMatch
	for range n {
		if !match(&w, &wm) {
			return nil, false
		}
		if string(wm.file) != file { // compared without allocating
			file = string(wm.file)
		}
		m := grep.Match{File: file, Line: wm.line, MatchStart: wm.start, MatchEnd: wm.end}
		at = append(at, [2]int{wm.textAt, wm.textAt + len(wm.text)})
		size += len(wm.text)
		if k := wm.spans; k > 0 {
			// The spans of a batch share a few allocations, cut with a
			// full slice expression so that no match can append into the
			// next (as decodeMatches does).
			if cap(slab)-len(slab) < k {
				slab = make([][2]uint32, 0, max(k, 2*min(n, 1024)))
			}
			m.Spans = slab[len(slab) : len(slab)+k : len(slab)+k]
			slab = slab[:len(slab)+k]
			readSpans(&w, &wm, m.Spans)
		}
		out = append(out, m)
	}
	if w.Left() != 0 {
		return nil, false
	}
	var sb strings.Builder
	sb.Grow(size)
	for _, a := range at {
		sb.Write(p[a[0]:a[1]])
	}
	all, from := sb.String(), 0
	for i, a := range at {
		to := from + a[1] - a[0]
		out[i].Text = all[from:to]
		from = to
	}
	return out, true
}

// matchesHeader reads the head of a batch of matches in the form the
// encoder writes: how many matches follow, and a reader at the first of
// them.
func matchesHeader(p []byte) (w wire.Bytes, n int, ok bool) {
	w = wire.Bytes{P: p}
	n, ok = w.ArrayLen()
	if !ok || n > w.Left()/minMatchBytes {
		return w, 0, false
	}
	return w, n, true
}

// wireMatch is one match's fields where they lie in a payload.
type wireMatch struct {
	file, text       []byte
	textAt           int // where text starts in the payload
	line, start, end uint32
	spans            int // span pairs, starting at spansAt
	spansAt          int
}

// match reads one match in the form the encoder writes, checking every
// field, its spans too; readSpans then reads them.
func match(w *wire.Bytes, m *wireMatch) bool {
	if c, ok := w.Byte(); !ok || c != 0x96 {
		return false
	}
	file, ok := w.Str()
	if !ok {
		return false
	}
	line, ok1 := w.Uint32()
	text, ok2 := w.Str()
	textAt := w.I - len(text)
	start, ok3 := w.Uint32()
	end, ok4 := w.Uint32()
	flat, ok5 := w.ArrayLen()
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || flat%2 != 0 || flat > w.Left() {
		return false
	}
	*m = wireMatch{file: file, text: text, textAt: textAt, line: line, start: start, end: end, spans: flat / 2, spansAt: w.I}
	for range flat {
		if _, ok := w.Uint32(); !ok {
			return false
		}
	}
	return true
}

// readSpans reads the spans of m, which match has checked, into dst
// (m.spans long).
func readSpans(w *wire.Bytes, m *wireMatch, dst [][2]uint32) {
	r := wire.Bytes{P: w.P, I: m.spansAt}
	for i := range dst {
		s, _ := r.Uint32()
		e, _ := r.Uint32()
		dst[i] = [2]uint32{s, e}
	}
}
