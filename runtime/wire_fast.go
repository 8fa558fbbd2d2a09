package runtime

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/pmacs-go/pmacs-go/grep"
)

// decodeMatchesFast decodes a grep batch reply straight from its bytes,
// when they are exactly what this package's encoder writes: the reply
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
func decodeMatchesFast(p []byte, r *reply) bool {
	w, job, n, ok := matchesHeader(p)
	if !ok {
		return false
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
		if !w.match(&wm) {
			return false
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
			w.readSpans(&wm, m.Spans)
		}
		out = append(out, m)
	}
	if w.left() != 0 {
		return false
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
	*r = reply{Job: job, Kind: replyMatches, Matches: out}
	return true
}

// matchesHeader reads the head of a grep batch reply in the form the
// encoder writes: the job and how many matches follow, and a reader at the
// first of them.
func matchesHeader(p []byte) (w wireBytes, job JobID, n int, ok bool) {
	w = wireBytes{p: p}
	if c, ok := w.byte(); !ok || c != 0x93 {
		return w, 0, 0, false
	}
	id, ok := w.uint()
	if !ok {
		return w, 0, 0, false
	}
	if kind, ok := w.uint(); !ok || kind != uint64(replyMatches) {
		return w, 0, 0, false
	}
	n, ok = w.arrayLen()
	if !ok || n > w.left()/minMatchBytes {
		return w, 0, 0, false
	}
	return w, JobID(id), n, true
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
func (w *wireBytes) match(m *wireMatch) bool {
	if c, ok := w.byte(); !ok || c != 0x96 {
		return false
	}
	file, ok := w.str()
	if !ok {
		return false
	}
	line, ok1 := w.uint32()
	text, ok2 := w.str()
	textAt := w.i - len(text)
	start, ok3 := w.uint32()
	end, ok4 := w.uint32()
	flat, ok5 := w.arrayLen()
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || flat%2 != 0 || flat > w.left() {
		return false
	}
	*m = wireMatch{file: file, text: text, textAt: textAt, line: line, start: start, end: end, spans: flat / 2, spansAt: w.i}
	for range flat {
		if _, ok := w.uint32(); !ok {
			return false
		}
	}
	return true
}

// readSpans reads the spans of m, which match has checked, into dst
// (m.spans long).
func (w *wireBytes) readSpans(m *wireMatch, dst [][2]uint32) {
	r := wireBytes{p: w.p, i: m.spansAt}
	for i := range dst {
		s, _ := r.uint32()
		e, _ := r.uint32()
		dst[i] = [2]uint32{s, e}
	}
}

// wireBytes reads msgpack forms from a byte slice; each method reports
// false, reading nothing useful, when the bytes are not in the form it
// reads.
type wireBytes struct {
	p []byte
	i int
}

func (w *wireBytes) left() int { return len(w.p) - w.i }

func (w *wireBytes) byte() (byte, bool) {
	if w.i >= len(w.p) {
		return 0, false
	}
	c := w.p[w.i]
	w.i++
	return c, true
}

// next returns the next n bytes.
func (w *wireBytes) next(n int) ([]byte, bool) {
	if n < 0 || n > w.left() {
		return nil, false
	}
	b := w.p[w.i : w.i+n]
	w.i += n
	return b, true
}

// uint reads an unsigned integer in the compact forms EncodeUint writes.
func (w *wireBytes) uint() (uint64, bool) {
	c, ok := w.byte()
	if !ok {
		return 0, false
	}
	if c <= 0x7f {
		return uint64(c), true
	}
	var width int
	switch c {
	case 0xcc:
		width = 1
	case 0xcd:
		width = 2
	case 0xce:
		width = 4
	case 0xcf:
		width = 8
	default:
		return 0, false
	}
	b, ok := w.next(width)
	if !ok {
		return 0, false
	}
	var buf [8]byte
	copy(buf[8-width:], b)
	return binary.BigEndian.Uint64(buf[:]), true
}

func (w *wireBytes) uint32() (uint32, bool) {
	v, ok := w.uint()
	if !ok || v > math.MaxUint32 {
		return 0, false
	}
	return uint32(v), true
}

// arrayLen reads an array header (not nil).
func (w *wireBytes) arrayLen() (int, bool) {
	c, ok := w.byte()
	if !ok {
		return 0, false
	}
	switch {
	case c >= 0x90 && c <= 0x9f:
		return int(c & 0x0f), true
	case c == 0xdc:
		b, ok := w.next(2)
		if !ok {
			return 0, false
		}
		return int(binary.BigEndian.Uint16(b)), true
	case c == 0xdd:
		b, ok := w.next(4)
		if !ok {
			return 0, false
		}
		n := binary.BigEndian.Uint32(b)
		if uint64(n) > uint64(w.left()) {
			return 0, false
		}
		return int(n), true
	}
	return 0, false
}

// str reads a str-coded string's bytes (not nil, not bin).
func (w *wireBytes) str() ([]byte, bool) {
	c, ok := w.byte()
	if !ok {
		return nil, false
	}
	var n int
	switch {
	case c >= 0xa0 && c <= 0xbf:
		n = int(c & 0x1f)
	case c == 0xd9:
		b, ok := w.next(1)
		if !ok {
			return nil, false
		}
		n = int(b[0])
	case c == 0xda:
		b, ok := w.next(2)
		if !ok {
			return nil, false
		}
		n = int(binary.BigEndian.Uint16(b))
	case c == 0xdb:
		b, ok := w.next(4)
		if !ok {
			return nil, false
		}
		if v := binary.BigEndian.Uint32(b); uint64(v) <= uint64(w.left()) {
			n = int(v)
		} else {
			return nil, false
		}
	default:
		return nil, false
	}
	return w.next(n)
}
