package findjob

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/bus/wire"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// RankedMatch is one entry of a ranking.
type RankedMatch struct {
	// Text is the candidate: a root-relative, '/'-separated path for
	// find_files, the item itself for fuzzy.
	Text string
	// Index is the item's 0-based index in the fuzzy list; -1 for find_files.
	Index int
	// Score is fuzzy's score; higher is better.
	Score int
	// Positions are the byte offsets in Text of the matched characters,
	// ascending (nil for an empty query).
	Positions []int
}

// Ranking is a find_files snapshot or final ranking, or a fuzzy job's result:
// the best matches, best first.
type Ranking struct {
	Matches []RankedMatch
	// Total is how many candidates matched; Candidates how many were ranked
	// (for a snapshot during a walk, the files listed so far).
	Total      int
	Candidates int
}

// minRankedBytes is the smallest encoded ranked match: a fixarray header,
// an empty string, two fixints and an empty array.
const minRankedBytes = 5

func encodeRanking(e *msgpack.Encoder, r *Ranking) error {
	if r == nil {
		r = &Ranking{}
	}
	if err := e.EncodeArrayLen(3); err != nil {
		return err
	}
	if err := e.EncodeInt(int64(r.Total)); err != nil {
		return err
	}
	if err := e.EncodeInt(int64(r.Candidates)); err != nil {
		return err
	}
	if err := e.EncodeArrayLen(len(r.Matches)); err != nil {
		return err
	}
	for i := range r.Matches {
		m := &r.Matches[i]
		if err := e.EncodeArrayLen(4); err != nil {
			return err
		}
		if err := e.EncodeString(m.Text); err != nil {
			return err
		}
		if err := e.EncodeInt(int64(m.Index)); err != nil {
			return err
		}
		if err := e.EncodeInt(int64(m.Score)); err != nil {
			return err
		}
		if err := e.EncodeArrayLen(len(m.Positions)); err != nil {
			return err
		}
		for _, p := range m.Positions {
			if err := e.EncodeInt(int64(p)); err != nil {
				return err
			}
		}
	}
	return nil
}

func decodeRanking(d *msgpack.Decoder) (*Ranking, error) {
	n, err := d.DecodeArrayLen()
	if err != nil {
		return nil, err
	}
	if n != 3 {
		return nil, fmt.Errorf("ranking: %d fields, want 3", n)
	}
	r := &Ranking{}
	if r.Total, err = d.DecodeInt(); err != nil {
		return nil, err
	}
	if r.Candidates, err = d.DecodeInt(); err != nil {
		return nil, err
	}
	count, err := wire.DecodeLen(d, minRankedBytes)
	if err != nil {
		return nil, err
	}
	r.Matches = make([]RankedMatch, count)
	for i := range r.Matches {
		m := &r.Matches[i]
		fields, err := d.DecodeArrayLen()
		if err != nil {
			return nil, err
		}
		if fields != 4 {
			return nil, fmt.Errorf("ranked match: %d fields, want 4", fields)
		}
		if m.Text, err = d.DecodeString(); err != nil {
			return nil, err
		}
		if m.Index, err = d.DecodeInt(); err != nil {
			return nil, err
		}
		if m.Score, err = d.DecodeInt(); err != nil {
			return nil, err
		}
		np, err := wire.DecodeLen(d, 1)
		if err != nil {
			return nil, err
		}
		if np > 0 {
			m.Positions = make([]int, np)
			for k := range m.Positions {
				if m.Positions[k], err = d.DecodeInt(); err != nil {
					return nil, err
				}
			}
		}
	}
	return r, nil
}

// RankingOf is a find_files or fuzzy job's final ranking.
func RankingOf(o runtime.Outcome) (Ranking, bool) {
	v, ok := o.Value()
	r, is := v.(Ranking)
	return r, ok && is
}

// SnapshotOf is a find_files batch's ranked snapshot; nil for a batch of
// another kind.
func SnapshotOf(b runtime.StreamBatch) *Ranking {
	r, _ := b.Items.(*Ranking)
	return r
}

// A snapshot is one item of its stream: the current top matches as a
// whole, which the next one replaces (KindSpec.Snapshots).
func (r *Ranking) Len() int                                { return 1 }
func (r *Ranking) Weight() int                             { return 1 }
func (r *Ranking) Append(more runtime.Items) runtime.Items { return more }
func (r *Ranking) Cut(int) (head, rest runtime.Items)      { return r, nil }

type snapshotCodec struct{}

func (snapshotCodec) EncodeItems(e *msgpack.Encoder, items runtime.Items) error {
	return encodeRanking(e, items.(*Ranking))
}

func (snapshotCodec) DecodeItems(_ []byte, d *msgpack.Decoder) (runtime.Items, error) {
	return decodeRanking(d)
}

type rankingCodec struct{}

func (rankingCodec) EncodeValue(e *msgpack.Encoder, v any) error {
	r := v.(Ranking)
	return encodeRanking(e, &r)
}

func (rankingCodec) DecodeValue(d *msgpack.Decoder) (any, error) {
	r, err := decodeRanking(d)
	if err != nil {
		return nil, err
	}
	return *r, nil
}

// rankingSummary keeps a ranking's counts, not its matches.
func rankingSummary(v any) any {
	r := v.(Ranking)
	return rankingCounts{total: r.Total, candidates: r.Candidates}
}

type rankingCounts struct{ total, candidates int }

func (c rankingCounts) String() string {
	return fmt.Sprintf("%d of %d matched", c.total, c.candidates)
}
