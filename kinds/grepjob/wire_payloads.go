package grepjob

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/bus/wire"

	"github.com/pmacs-go/pmacs-go/grep"
)

// A grep match is [file, line, text, start, end, spans] with spans a flat
// array [s0, e0, s1, e1, ...].
func encodeMatches(e *msgpack.Encoder, ms []grep.Match) error {
	if err := e.EncodeArrayLen(len(ms)); err != nil {
		return err
	}
	for i := range ms {
		m := &ms[i]
		if err := e.EncodeArrayLen(6); err != nil {
			return err
		}
		if err := e.EncodeString(m.File); err != nil {
			return err
		}
		if err := e.EncodeUint(uint64(m.Line)); err != nil {
			return err
		}
		if err := e.EncodeString(m.Text); err != nil {
			return err
		}
		if err := e.EncodeUint(uint64(m.MatchStart)); err != nil {
			return err
		}
		if err := e.EncodeUint(uint64(m.MatchEnd)); err != nil {
			return err
		}
		if err := e.EncodeArrayLen(2 * len(m.Spans)); err != nil {
			return err
		}
		for _, sp := range m.Spans {
			if err := e.EncodeUint(uint64(sp[0])); err != nil {
				return err
			}
			if err := e.EncodeUint(uint64(sp[1])); err != nil {
				return err
			}
		}
	}
	return nil
}

// minMatchBytes is the smallest encoded match: a fixarray header and six
// one-byte fields.
const minMatchBytes = 7

// decodeFile decodes a match's file name, returning last itself (no
// allocation) when the name is the same: a batch holds runs of matches of
// one file, and the main goroutine decodes every batch. buf holds the bytes
// for the comparison; a longer name is decoded as a new string.
func decodeFile(d *msgpack.Decoder, last string, buf []byte) (string, error) {
	n, err := d.DecodeBytesLen()
	if err != nil || n <= 0 {
		return "", err
	}
	if err := wire.CheckClaim(d, "file name", n, 1); err != nil {
		return "", err
	}
	if n > len(buf) {
		b := make([]byte, n)
		if err := d.ReadFull(b); err != nil {
			return "", err
		}
		return string(b), nil
	}
	b := buf[:n]
	if err := d.ReadFull(b); err != nil {
		return "", err
	}
	if string(b) == last {
		return last, nil
	}
	return string(b), nil
}

func decodeMatches(d *msgpack.Decoder) ([]grep.Match, error) {
	n, err := wire.DecodeLen(d, minMatchBytes)
	if err != nil {
		return nil, err
	}
	out := make([]grep.Match, 0, min(n, 1024))
	var file string    // the last file named: a batch names each file many times in a row
	var name [256]byte // where a file name is read to be compared with it
	var slab [][2]uint32
	for range n {
		var m grep.Match
		fields, err := d.DecodeArrayLen()
		if err != nil {
			return nil, err
		}
		if fields != 6 {
			return nil, fmt.Errorf("match: %d fields, want 6", fields)
		}
		if m.File, err = decodeFile(d, file, name[:]); err != nil {
			return nil, err
		}
		file = m.File
		if m.Line, err = d.DecodeUint32(); err != nil {
			return nil, err
		}
		if m.Text, err = d.DecodeString(); err != nil {
			return nil, err
		}
		if m.MatchStart, err = d.DecodeUint32(); err != nil {
			return nil, err
		}
		if m.MatchEnd, err = d.DecodeUint32(); err != nil {
			return nil, err
		}
		flat, err := wire.DecodeLen(d, 1)
		if err != nil {
			return nil, err
		}
		if flat%2 != 0 {
			return nil, fmt.Errorf("match spans: odd length %d", flat)
		}
		if flat > 0 {
			// The spans of a batch share a few allocations (a match has one
			// or two): a slab is cut into each match's spans, with a full
			// slice expression so that no match can append into the next.
			k := flat / 2
			if cap(slab)-len(slab) < k {
				slab = make([][2]uint32, 0, max(k, 2*min(n, 1024)))
			}
			m.Spans = slab[len(slab) : len(slab)+k : len(slab)+k]
			slab = slab[:len(slab)+k]
			for i := range m.Spans {
				if m.Spans[i][0], err = d.DecodeUint32(); err != nil {
					return nil, err
				}
				if m.Spans[i][1], err = d.DecodeUint32(); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, m)
	}
	return out, nil
}
