package grepjob

import (
	"bytes"
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/workers"
)

func sortMatches(ms []grep.Match) {
	slices.SortFunc(ms, func(a, b grep.Match) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
}

// A grep dispatched with DispatchBlocks delivers the same matches as one
// without, in blocks instead of decoded, within its max batch (blocks cut
// where a batch ends), and its taken blocks give their credit back: with a
// credit of 100 items and 1,200 matches, a block not counted would leave
// the search waiting for credit forever.
func TestGrepMatchBlocksDeliverTheSameMatches(t *testing.T) {
	files := map[string]string{}
	for f := range 40 {
		var b strings.Builder
		for l := range 30 {
			fmt.Fprintf(&b, "line %d of file %d: needle and needle\n", l, f)
		}
		files[fmt.Sprintf("d%d/f%02d.txt", f%3, f)] = b.String()
	}
	root := makeTree(t, files)
	rt, err := New(Options{Executor: workers.Config{PoolSize: 4}, StreamCredit: 100})
	require.NoError(t, err)
	t.Cleanup(rt.Close)

	plain := drainStream(t, rt, rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle"}, DispatchOptions{}), time.Millisecond, 10*time.Second)
	require.Equal(t, Complete, plain.outcome.State)
	require.Len(t, plain.matches, 1200)

	id := rt.DispatchGrepBlocks(grep.Spec{Root: root, Pattern: "needle"}, DispatchOptions{MaxBatch: 7})
	var got []grep.Match
	deadline := time.Now().Add(10 * time.Second)
	for closed := false; !closed; {
		require.True(t, time.Now().Before(deadline), "the block stream did not close")
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			require.Equal(t, id, b.ID)
			require.Empty(t, MatchesOf(b), "a block stream's matches come in blocks")
			require.LessOrEqual(t, b.Len(), 7, "a batch holds at most the max batch")
			for _, blk := range BlocksOf(b) {
				for i := range blk.Len() {
					got = append(got, blk.At(i))
				}
			}
			if b.Closed {
				require.Equal(t, Complete, b.Outcome.State)
				closed = true
			}
		}
		waitReady(rt, time.Millisecond)
	}
	sortMatches(got)
	sortMatches(plain.matches)
	require.Equal(t, plain.matches, got)
	require.Equal(t, grep.Match{File: "d0/f00.txt", Line: 1, Text: "line 0 of file 0: needle and needle", MatchStart: 18, MatchEnd: 24,
		Spans: [][2]uint32{{18, 24}, {29, 35}}}, got[0])
}

// A batch for a block stream that is not in the form the encoder writes
// is decoded by the general decoder, and still arrives as a block; one the
// general decoder refuses is an error, which fails the job.
func TestMatchBlockStreamTakesAGenerallyDecodedBatch(t *testing.T) {
	// [["f", 1 as an int8, "", 0, 0, []]]: valid msgpack that the fast
	// form does not take.
	payload := []byte{0x91, 0x96, 0xa1, 'f', 0xd0, 0x01, 0xa0, 0x00, 0x00, 0x90}
	_, ok := indexMatches(payload)
	require.False(t, ok, "the payload must take the general path")
	items, err := blocksCodec{}.DecodeItems(payload, msgpack.NewDecoder(bytes.NewReader(payload)))
	require.NoError(t, err)
	blocks, _ := items.(Blocks)
	require.Len(t, blocks, 1)
	require.Equal(t, []grep.Match{{File: "f", Line: 1}}, blocks[0].Matches())

	bad := payload[:len(payload)-1]
	_, err = blocksCodec{}.DecodeItems(bad, msgpack.NewDecoder(bytes.NewReader(bad)))
	require.Error(t, err)
}

// indexMatches takes exactly the batches the fast path takes, and a
// block's matches read one at a time are the fast path's matches.
func TestMatchBlockAgreesWithTheFastPath(t *testing.T) {
	for name, ms := range fastPathBatches() {
		p := encodeBatch(t, ms)
		requireBlockAgrees(t, name, p)
		if len(p) > 1 {
			requireBlockAgrees(t, name+", cut short", p[:len(p)-1])
		}
	}
}

func requireBlockAgrees(t *testing.T, name string, payload []byte) {
	t.Helper()
	fast, fastOK := decodeMatchesFast(payload)
	blk, ok := indexMatches(payload)
	require.Equal(t, fastOK, ok, "%s: indexMatches and the fast path disagree on taking it", name)
	if !ok {
		return
	}
	require.Equal(t, len(fast), blk.Len(), name)
	for i := range fast {
		if got := blk.At(i); !reflect.DeepEqual(fast[i], got) {
			t.Fatalf("%s: match %d differs:\nwant %#v\n got %#v", name, i, fast[i], got)
		}
	}
	// A block cut in two reads the same matches.
	if n := blk.Len(); n > 1 {
		lo, hi := blk.slice(0, n/2), blk.slice(n/2, n)
		require.Equal(t, fast[n/2-1], lo.At(n/2-1), name)
		require.Equal(t, fast[n/2], hi.At(0), name)
		require.Equal(t, n, lo.Len()+hi.Len(), name)
	}
}

// FuzzMatchBlock holds indexMatches to the fast path (and so, through
// FuzzMatchesFastPath, to the general decoder).
func FuzzMatchBlock(f *testing.F) {
	for _, ms := range fastPathBatches() {
		if p := encodeBatch(f, ms); len(p) <= 4096 {
			f.Add(p)
		}
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		requireBlockAgrees(t, "fuzz", payload)
	})
}
