package grepjob

import (
	"math"

	"github.com/pmacs-go/pmacs-go/bus/wire"
	"github.com/pmacs-go/pmacs-go/grep"
)

// MatchBlock is a run of a grep stream's matches, kept as the worker
// encoded them: the main goroutine checks the bytes and notes where each
// match starts when the reply arrives, and decodes a match only when it is
// read. A live grep of 150,000 matches into a list that shows forty rows
// then costs its frames a scan of each match, not its decoding: the
// decoding (file name, text and spans, three allocations) was most of a
// frame's work at thousands of matches a frame. Streams started with
// [DispatchBlocks] deliver their matches this way.
//
// A MatchBlock is the consumer's to keep; it never changes, and it holds
// its reply's payload, so a kept block keeps all of its matches' bytes.
type MatchBlock struct {
	p    []byte   // the reply's payload, owned: bus envelopes alias nothing
	offs []uint32 // where each match starts in p
	// ms holds the matches of a reply that was not in the form
	// indexMatches reads, decoded by the general decoder; p is nil then.
	ms []grep.Match
}

// NewMatchBlock makes a block of matches already decoded; At returns them
// as they are. For a consumer's tests, and for matches from elsewhere that
// share a view with a stream's.
func NewMatchBlock(ms []grep.Match) *MatchBlock {
	if ms == nil {
		ms = []grep.Match{}
	}
	return &MatchBlock{ms: ms}
}

// Len returns the number of matches in the block; 0 for nil.
func (b *MatchBlock) Len() int {
	if b == nil {
		return 0
	}
	if b.ms != nil {
		return len(b.ms)
	}
	return len(b.offs)
}

// At decodes match i, 0 <= i < Len(); it panics for an i out of range, as a
// slice does. Each call decodes anew (its strings and spans are fresh
// allocations), so a consumer that reads a match often keeps it.
func (b *MatchBlock) At(i int) grep.Match {
	if b.ms != nil {
		return b.ms[i]
	}
	w := wire.Bytes{P: b.p, I: int(b.offs[i])}
	var wm wireMatch
	// The bytes were checked when the block was made, and nothing writes
	// them since: match cannot fail here.
	match(&w, &wm)
	m := grep.Match{File: string(wm.file), Line: wm.line, Text: string(wm.text), MatchStart: wm.start, MatchEnd: wm.end}
	if wm.spans > 0 {
		m.Spans = make([][2]uint32, wm.spans)
		readSpans(&w, &wm, m.Spans)
	}
	return m
}

// Matches decodes every match in the block.
func (b *MatchBlock) Matches() []grep.Match {
	out := make([]grep.Match, b.Len())
	for i := range out {
		out[i] = b.At(i)
	}
	return out
}

// slice is matches [lo, hi) of b, sharing its bytes.
func (b *MatchBlock) slice(lo, hi int) *MatchBlock {
	if b.ms != nil {
		return &MatchBlock{ms: b.ms[lo:hi:hi]}
	}
	return &MatchBlock{p: b.p, offs: b.offs[lo:hi:hi]}
}

// indexMatches checks a batch of matches in the form the encoder writes,
// as decodeMatchesFast would read it, and notes where each match starts;
// false for anything else, which the general decoder then decides.
func indexMatches(p []byte) (*MatchBlock, bool) {
	w, n, ok := matchesHeader(p)
	if !ok || len(p) > math.MaxUint32 {
		return nil, false
	}
	offs := make([]uint32, n)
	var wm wireMatch
	for i := range offs {
		offs[i] = uint32(w.I)
		if !match(&w, &wm) {
			return nil, false
		}
	}
	if w.Left() != 0 {
		return nil, false
	}
	return &MatchBlock{p: p, offs: offs}, true
}

// blocksLen is how many matches bs hold.
func blocksLen(bs []*MatchBlock) int {
	n := 0
	for _, b := range bs {
		n += b.Len()
	}
	return n
}
