package runtime

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/grep"
)

// fastPathBatches are grep batches that reach every form the encoder writes
// for one: fixarray, array16 and array32 headers; fixstr, str8, str16 and
// str32 strings; each width of unsigned integer; matches with and without
// spans; empty strings.
func fastPathBatches() map[string]reply {
	many := func(n int) []grep.Match {
		ms := make([]grep.Match, n)
		for i := range ms {
			ms[i] = grep.Match{File: "f" + string(rune('a'+i/1000%26)), Line: uint32(i), Text: "x"}
		}
		return ms
	}
	return map[string]reply{
		"empty":                  {Job: 1, Kind: replyMatches, Matches: []grep.Match{}},
		"one":                    {Job: 6, Kind: replyMatches, Matches: []grep.Match{sampleMatch}},
		"array16 and 1-byte job": {Job: 200, Kind: replyMatches, Matches: many(300)},
		"array32 and 8-byte job": {Job: math.MaxUint64, Kind: replyMatches, Matches: many(70_000)},
		"widths": {Job: 70_000, Kind: replyMatches, Matches: []grep.Match{
			{File: "", Line: 0, Text: "", MatchStart: 0, MatchEnd: 0},
			{File: "a", Line: 200, Text: strings.Repeat("t", 31), MatchStart: 127, MatchEnd: 128, Spans: [][2]uint32{{127, 128}}},
			{File: "a", Line: 60_000, Text: strings.Repeat("u", 32), MatchStart: 255, MatchEnd: 256},
			{File: strings.Repeat("d/", 100), Line: 70_000, Text: strings.Repeat("v", 300), MatchStart: 65_535, MatchEnd: 65_536,
				Spans: [][2]uint32{{1, 2}, {65_535, 65_536}, {math.MaxUint32 - 1, math.MaxUint32}}},
			{File: "b", Line: math.MaxUint32, Text: strings.Repeat("w", 70_000), MatchStart: 69_999, MatchEnd: 70_000},
		}},
	}
}

// TestMatchesFastPathTakesEncoderOutput proves every grep batch the encoder
// writes takes the fast path, and comes out of it exactly as the general
// decoder makes it.
func TestMatchesFastPathTakesEncoderOutput(t *testing.T) {
	reg := wireRegistry(t)
	for name, r := range fastPathBatches() {
		t.Run(name, func(t *testing.T) {
			env, err := reg.Encode(replyTopic, &r)
			require.NoError(t, err)
			var fast, general reply
			require.True(t, decodeMatchesFast(env.Payload, &fast), "the encoder's own output falls back to the general decoder")
			require.NoError(t, reg.Decode(env, &general))
			requireSameReply(t, general, fast)
			requireSameReply(t, normalReply(r), normalReply(fast))
		})
	}
}

// TestMatchesFastPathLeavesTheRestToTheGeneralDecoder proves the fast path
// declines what it does not read (other kinds, other encodings of the same
// values, damage) instead of guessing, so the general decoder's result or
// error stands.
func TestMatchesFastPathLeavesTheRestToTheGeneralDecoder(t *testing.T) {
	reg := wireRegistry(t)
	env, err := reg.Encode(replyTopic, &reply{Job: 6, Kind: replyMatches, Matches: []grep.Match{sampleMatch}})
	require.NoError(t, err)
	ok := env.Payload
	ints, err := reg.Encode(replyTopic, intsReply(6, 1, 2))
	require.NoError(t, err)
	cases := map[string][]byte{
		"another kind":                   ints.Payload,
		"nothing":                        nil,
		"cut short":                      ok[:len(ok)-1],
		"a byte too many":                append(append([]byte{}, ok...), 0),
		"nil matches":                    {0x93, 0x06, byte(replyMatches), 0xc0},
		"odd spans":                      {0x93, 0x01, byte(replyMatches), 0x91, 0x96, 0xa1, 'f', 0x01, 0xa0, 0x00, 0x00, 0x91, 0x00},
		"a bin-coded text":               {0x93, 0x01, byte(replyMatches), 0x91, 0x96, 0xa1, 'f', 0x01, 0xc4, 0x01, 'x', 0x00, 0x00, 0x90},
		"a signed line":                  {0x93, 0x01, byte(replyMatches), 0x91, 0x96, 0xa1, 'f', 0xd0, 0x01, 0xa0, 0x00, 0x00, 0x90},
		"a line over uint32":             {0x93, 0x01, byte(replyMatches), 0x91, 0x96, 0xa1, 'f', 0xcf, 0, 0, 0, 1, 0, 0, 0, 0, 0xa0, 0x00, 0x00, 0x90},
		"claims more matches than bytes": {0x93, 0x01, byte(replyMatches), 0xdd, 0x7f, 0xff, 0xff, 0xff},
		"a text longer than the payload": {0x93, 0x01, byte(replyMatches), 0x91, 0x96, 0xa1, 'f', 0x01, 0xdb, 0x7f, 0xff, 0xff, 0xff},
	}
	for name, p := range cases {
		var r reply
		require.False(t, decodeMatchesFast(p, &r), name)
	}
}

// FuzzMatchesFastPath holds the fast path to the general decoder: whatever
// it accepts, the general decoder accepts too, with the same reply.
func FuzzMatchesFastPath(f *testing.F) {
	reg := wireRegistry(f)
	for _, r := range fastPathBatches() {
		env, err := reg.Encode(replyTopic, &r)
		if err != nil {
			f.Fatal(err)
		}
		if len(env.Payload) > 4096 {
			continue // seeds stay small: the fuzzer copies and minimizes them
		}
		f.Add(env.Payload)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		var fast reply
		if !decodeMatchesFast(payload, &fast) {
			return
		}
		var general reply
		if err := reg.Decode(busEnvelope(payload), &general); err != nil {
			t.Fatalf("the fast path took what the general decoder refuses (%v): %#v", err, fast)
		}
		requireSameReply(t, general, fast)
	})
}

// requireSameReply fails unless want and got are deeply equal, naming the
// first match that differs (a diff of 70,000 matches would take minutes).
func requireSameReply(t *testing.T, want, got reply) {
	t.Helper()
	if reflect.DeepEqual(want, got) {
		return
	}
	for i := range min(len(want.Matches), len(got.Matches)) {
		if !reflect.DeepEqual(want.Matches[i], got.Matches[i]) {
			t.Fatalf("match %d differs:\nwant %#v\n got %#v", i, want.Matches[i], got.Matches[i])
		}
	}
	want.Matches, got.Matches = nil, nil
	t.Fatalf("replies differ (%d and %d matches):\nwant %#v\n got %#v", len(want.Matches), len(got.Matches), want, got)
}
