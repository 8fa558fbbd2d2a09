package editor

import (
	"iter"
	"slices"
	"strings"
)

// rowStore is a buffer's text as rows, without their line breaks.
//
// A file as read stays one string (rawText) and its rows are found in it:
// a []string of rows costs a 16-byte header per row, more than the text
// itself for short rows (82 MB for a 60 MB Go file). The rows are kept in
// blocks of about blockRows: a block either refers to a run of the rows
// as read, or holds its rows as strings once it was edited. Looking a row
// up costs a binary search over the blocks (a few thousand for 60 MB) and
// a scan of at most rawStride rows in the text.
//
// A block's strings are written in place only while no frozen copy
// (freeze) shares them: freeze hands a search job a copy of the block list
// that the buffer's later edits never reach, whatever they are.
type rowStore struct {
	raw    *rawText
	blocks []rowBlock
	// starts[k] is the first row of blocks[k]; starts[len(blocks)] is the
	// number of rows.
	starts []int
	// gen is the generation of blocks this store may write in place; a
	// block of an older generation is shared with a frozen copy.
	gen uint32
}

// rowBlock is a run of rows: rows [lo, lo+n) of the text as read while
// rows is nil, or rows itself.
type rowBlock struct {
	rows  []string
	lo, n int
	gen   uint32
}

const (
	// blockRows is the size of the blocks a text is cut into; an edited
	// block that grows past maxBlockRows is cut again.
	blockRows    = 1024
	maxBlockRows = 2 * blockRows
	// rawStride is how far apart the rows whose offsets rawText keeps
	// are: 4 bytes every 16 rows.
	rawShift  = 4
	rawStride = 1 << rawShift
)

// rawText is a file's text as read, with the offset of every rawStride-th
// row; the rows between are found by scanning for line breaks. A row
// excludes its line break, and a CR before the LF (a CR anywhere else, as
// at the end of a last row without a line break, is text).
type rawText struct {
	text string
	cp   []uint32
	n    int
}

// maxRawBytes bounds a text rawText indexes: its offsets are 32 bits. A
// file the editor opens is within it (the array below fails to compile
// otherwise).
const maxRawBytes = 1<<32 - 1

var _ [maxRawBytes - maxFileBytes]struct{}

func (r *rawText) row(k int) string {
	off := int(r.cp[k>>rawShift])
	for j := k & (rawStride - 1); j > 0; j-- {
		off += strings.IndexByte(r.text[off:], '\n') + 1
	}
	line, _ := r.lineAt(off)
	return line
}

// lineAt returns the row starting at off and the offset of the next row.
func (r *rawText) lineAt(off int) (string, int) {
	s := r.text[off:]
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		return s, len(r.text)
	}
	next := off + i + 1
	s = s[:i]
	if len(s) > 0 && s[len(s)-1] == '\r' {
		s = s[:len(s)-1]
	}
	return s, next
}

// newRows returns a store holding lines (at least one row is the caller's
// business). The slice stays the caller's: it is never written in place.
func newRows(lines []string) rowStore {
	s := rowStore{gen: 1}
	for i := 0; i < len(lines); i += blockRows {
		j := min(i+blockRows, len(lines))
		s.blocks = append(s.blocks, rowBlock{rows: lines[i:j:j], n: j - i})
	}
	s.reindex(0)
	return s
}

// rawRows returns a store of the rows of text, which the rows are slices
// of, with the offsets of every rawStride-th row (cp, n rows) as
// splitString found them.
func rawRows(raw *rawText) rowStore {
	s := rowStore{gen: 1, raw: raw}
	s.blocks = make([]rowBlock, 0, (raw.n+blockRows-1)/blockRows)
	for lo := 0; lo < raw.n; lo += blockRows {
		s.blocks = append(s.blocks, rowBlock{lo: lo, n: min(blockRows, raw.n-lo)})
	}
	s.reindex(0)
	return s
}

// reindex recomputes starts from block k on.
func (s *rowStore) reindex(k int) {
	if cap(s.starts) < len(s.blocks)+1 {
		s.starts = slices.Grow(s.starts[:0], len(s.blocks)+1)[:len(s.starts)]
	}
	s.starts = s.starts[:len(s.blocks)+1]
	if k == 0 {
		s.starts[0] = 0
	}
	for i := k; i < len(s.blocks); i++ {
		s.starts[i+1] = s.starts[i] + s.blocks[i].n
	}
}

// len returns the number of rows.
func (s *rowStore) len() int {
	if len(s.starts) == 0 {
		return 0
	}
	return s.starts[len(s.blocks)]
}

// block returns the block holding row i (0 <= i < len) and its first row.
func (s *rowStore) block(i int) (int, int) {
	// No block is empty, so the starts grow strictly.
	k, found := slices.BinarySearch(s.starts[:len(s.blocks)], i)
	if !found {
		k--
	}
	return k, s.starts[k]
}

// row returns row i (0 <= i < len).
func (s *rowStore) row(i int) string {
	k, first := s.block(i)
	b := &s.blocks[k]
	if b.rows != nil {
		return b.rows[i-first]
	}
	return s.raw.row(b.lo + i - first)
}

// Len, Row and Rows make the store a textsearch.Lines.
func (s *rowStore) Len() int                                 { return s.len() }
func (s *rowStore) Row(i int) string                         { return s.row(i) }
func (s *rowStore) Rows(from, to int) iter.Seq2[int, string] { return s.rows(from, to) }

// rows yields rows [from, to) in order, each found from the one before.
func (s *rowStore) rows(from, to int) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		from, to := max(from, 0), min(to, s.len())
		if from >= to {
			return
		}
		k, first := s.block(from)
		i := from
		for ; k < len(s.blocks) && i < to; k++ {
			b := &s.blocks[k]
			end := min(first+b.n, to)
			if b.rows != nil {
				for ; i < end; i++ {
					if !yield(i, b.rows[i-first]) {
						return
					}
				}
			} else {
				r := s.raw
				k0 := b.lo + i - first
				off := int(r.cp[k0>>rawShift])
				for j := k0 & (rawStride - 1); j > 0; j-- {
					off += strings.IndexByte(r.text[off:], '\n') + 1
				}
				for ; i < end; i++ {
					var line string
					line, off = r.lineAt(off)
					if !yield(i, line) {
						return
					}
				}
			}
			first += b.n
		}
	}
}

// all returns the rows as a slice (a header per row: for tests and small
// texts).
func (s *rowStore) all() []string {
	out := make([]string, 0, s.len())
	for _, l := range s.rows(0, s.len()) {
		out = append(out, l)
	}
	return out
}

// freeze returns a copy of the store that no later change of s reaches:
// the block list is copied, and s writes no block it shares in place from
// now on.
func (s *rowStore) freeze() *rowStore {
	f := s.clone()
	return &f
}

// clone returns a copy of the store that each may edit without reaching
// the other: neither writes the blocks they share in place.
func (s *rowStore) clone() rowStore {
	s.gen++
	return rowStore{raw: s.raw, blocks: slices.Clone(s.blocks), starts: slices.Clone(s.starts), gen: s.gen + 1}
}

// owned returns block k's rows, writable in place: a block of rows as
// read, or one a frozen copy shares, is copied first.
func (s *rowStore) owned(k int) []string {
	b := &s.blocks[k]
	if b.rows != nil && b.gen == s.gen {
		return b.rows
	}
	rows := make([]string, b.n, b.n+b.n/4)
	if b.rows != nil {
		copy(rows, b.rows)
	} else {
		off := -1
		for j := range b.n {
			if off < 0 {
				off = int(s.raw.cp[(b.lo+j)>>rawShift])
				for m := (b.lo + j) & (rawStride - 1); m > 0; m-- {
					off += strings.IndexByte(s.raw.text[off:], '\n') + 1
				}
			}
			rows[j], off = s.raw.lineAt(off)
		}
	}
	b.rows, b.gen = rows, s.gen
	return rows
}

// set replaces row i (0 <= i < len) with line.
func (s *rowStore) set(i int, line string) {
	k, first := s.block(i)
	s.owned(k)[i-first] = line
}

// replace replaces rows [from, to) with lines (0 <= from <= to <= len).
// An insertion at len appends to the last block.
func (s *rowStore) replace(from, to int, lines []string) {
	if len(s.blocks) == 0 {
		*s = newRows(slices.Clone(lines))
		return
	}
	kf, ff := 0, 0
	if from < s.len() {
		kf, ff = s.block(from)
	} else {
		kf = len(s.blocks) - 1
		ff = s.starts[kf]
	}
	kt, _ := kf, ff
	if to > from {
		kt, _ = s.block(to - 1)
	}
	if kf == kt && to-from == len(lines) {
		rows := s.owned(kf)
		copy(rows[from-ff:], lines)
		return
	}
	// The rows of blocks kf..kt, with [from, to) replaced, become the
	// first of those blocks, cut again when too long.
	var rows []string
	if kf == kt {
		rows = slices.Replace(s.owned(kf), from-ff, to-ff, lines...)
	} else {
		n := s.starts[kt+1] - ff - (to - from) + len(lines)
		rows = make([]string, 0, n+n/4)
		for _, l := range s.rows(ff, from) {
			rows = append(rows, l)
		}
		rows = append(rows, lines...)
		for _, l := range s.rows(to, s.starts[kt+1]) {
			rows = append(rows, l)
		}
	}
	var repl []rowBlock
	switch {
	case len(rows) == 0:
	case len(rows) <= maxBlockRows:
		repl = []rowBlock{{rows: rows, n: len(rows), gen: s.gen}}
	default:
		for i := 0; i < len(rows); i += blockRows {
			j := min(i+blockRows, len(rows))
			repl = append(repl, rowBlock{rows: rows[i:j:j], n: j - i, gen: s.gen})
		}
	}
	s.blocks = slices.Replace(s.blocks, kf, kt+1, repl...)
	s.reindex(kf)
}
