package grepjob

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/grep"
)

// sampleMatch is a match with every field set.
var sampleMatch = grep.Match{File: "src/net/http/server.go", Line: 2031, Text: "func (c *conn) serve(ctx context.Context) {",
	MatchStart: 0, MatchEnd: 4, Spans: [][2]uint32{{0, 4}, {25, 29}}}

// encodeBatch is a batch of matches as the worker's codec writes it.
func encodeBatch(t testing.TB, ms []grep.Match) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, matchesCodec{}.EncodeItems(msgpack.NewEncoder(&buf), Matches(ms)))
	return buf.Bytes()
}

// decodeGeneral decodes a batch with the general decoder, which must read
// all of it.
func decodeGeneral(p []byte) (Matches, error) {
	r := bytes.NewReader(p)
	ms, err := decodeMatches(msgpack.NewDecoder(r))
	if err == nil && r.Len() != 0 {
		return nil, errBytesLeft
	}
	return ms, err
}

var errBytesLeft = errors.New("bytes left after the batch")

// fastPathBatches are grep batches that reach every form the encoder writes
// for one: fixarray, array16 and array32 headers; fixstr, str8, str16 and
// str32 strings; each width of unsigned integer; matches with and without
// spans; empty strings.
func fastPathBatches() map[string][]grep.Match {
	many := func(n int) []grep.Match {
		ms := make([]grep.Match, n)
		for i := range ms {
			ms[i] = grep.Match{File: "f" + string(rune('a'+i/1000%26)), Line: uint32(i), Text: "x"}
		}
		return ms
	}
	return map[string][]grep.Match{
		"empty":   {},
		"one":     {sampleMatch},
		"array16": many(300),
		"array32": many(70_000),
		"widths": {
			{File: "", Line: 0, Text: "", MatchStart: 0, MatchEnd: 0},
			{File: "a", Line: 200, Text: strings.Repeat("t", 31), MatchStart: 127, MatchEnd: 128, Spans: [][2]uint32{{127, 128}}},
			{File: "a", Line: 60_000, Text: strings.Repeat("u", 32), MatchStart: 255, MatchEnd: 256},
			{File: strings.Repeat("d/", 100), Line: 70_000, Text: strings.Repeat("v", 300), MatchStart: 65_535, MatchEnd: 65_536,
				Spans: [][2]uint32{{1, 2}, {65_535, 65_536}, {math.MaxUint32 - 1, math.MaxUint32}}},
			{File: "b", Line: math.MaxUint32, Text: strings.Repeat("w", 70_000), MatchStart: 69_999, MatchEnd: 70_000},
		},
	}
}

// TestMatchesFastPathTakesEncoderOutput proves every grep batch the encoder
// writes takes the fast path, and comes out of it exactly as the general
// decoder makes it.
func TestMatchesFastPathTakesEncoderOutput(t *testing.T) {
	for name, ms := range fastPathBatches() {
		t.Run(name, func(t *testing.T) {
			p := encodeBatch(t, ms)
			fast, ok := decodeMatchesFast(p)
			require.True(t, ok, "the encoder's own output falls back to the general decoder")
			general, err := decodeGeneral(p)
			require.NoError(t, err)
			requireSameMatches(t, general, fast)
			requireSameMatches(t, normalMatches(ms), normalMatches(fast))
		})
	}
}

// normalMatches makes nil and empty spans alike, as the decoders may.
func normalMatches(ms []grep.Match) Matches {
	out := make(Matches, len(ms))
	for i, m := range ms {
		if len(m.Spans) == 0 {
			m.Spans = nil
		}
		out[i] = m
	}
	return out
}

// TestMatchesFastPathLeavesTheRestToTheGeneralDecoder proves the fast path
// declines what it does not read (other encodings of the same values,
// damage) instead of guessing, so the general decoder's result or error
// stands.
func TestMatchesFastPathLeavesTheRestToTheGeneralDecoder(t *testing.T) {
	ok := encodeBatch(t, []grep.Match{sampleMatch})
	cases := map[string][]byte{
		"nothing":                        nil,
		"cut short":                      ok[:len(ok)-1],
		"a byte too many":                append(append([]byte{}, ok...), 0),
		"nil matches":                    {0xc0},
		"odd spans":                      {0x91, 0x96, 0xa1, 'f', 0x01, 0xa0, 0x00, 0x00, 0x91, 0x00},
		"a bin-coded text":               {0x91, 0x96, 0xa1, 'f', 0x01, 0xc4, 0x01, 'x', 0x00, 0x00, 0x90},
		"a signed line":                  {0x91, 0x96, 0xa1, 'f', 0xd0, 0x01, 0xa0, 0x00, 0x00, 0x90},
		"a line over uint32":             {0x91, 0x96, 0xa1, 'f', 0xcf, 0, 0, 0, 1, 0, 0, 0, 0, 0xa0, 0x00, 0x00, 0x90},
		"claims more matches than bytes": {0xdd, 0x7f, 0xff, 0xff, 0xff},
		"a text longer than the payload": {0x91, 0x96, 0xa1, 'f', 0x01, 0xdb, 0x7f, 0xff, 0xff, 0xff},
	}
	for name, p := range cases {
		_, took := decodeMatchesFast(p)
		require.False(t, took, name)
	}
}

// FuzzMatchesFastPath holds the fast path to the general decoder: whatever
// it accepts, the general decoder accepts too, with the same matches.
func FuzzMatchesFastPath(f *testing.F) {
	for _, ms := range fastPathBatches() {
		p := encodeBatch(f, ms)
		if len(p) > 4096 {
			continue // seeds stay small: the fuzzer copies and minimizes them
		}
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		fast, ok := decodeMatchesFast(payload)
		if !ok {
			return
		}
		general, err := decodeGeneral(payload)
		if err != nil {
			t.Fatalf("the fast path took what the general decoder refuses (%v): %#v", err, fast)
		}
		requireSameMatches(t, general, fast)
	})
}

// requireSameMatches fails unless want and got are deeply equal, naming the
// first match that differs (a diff of 70,000 matches would take minutes).
func requireSameMatches(t *testing.T, want, got Matches) {
	t.Helper()
	if reflect.DeepEqual(want, got) {
		return
	}
	for i := range min(len(want), len(got)) {
		if !reflect.DeepEqual(want[i], got[i]) {
			t.Fatalf("match %d differs:\nwant %#v\n got %#v", i, want[i], got[i])
		}
	}
	t.Fatalf("batches differ: %d and %d matches", len(want), len(got))
}
