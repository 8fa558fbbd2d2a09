package diffjob

import (
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/diff"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/kinds/textsearch"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// A diff job completes with the hunks of diff.Lines, whether its texts
// come as strings (LF or CRLF, with or without a last newline) or as a
// snapshot's rows, and the hunks cross the bus intact.
func TestDiffJobReturnsHunksOfStringsAndSnapshots(t *testing.T) {
	rt := kindtest.New(t, 2)
	old := "a\nb\nc\nd\n"
	rowsNew := []string{"a", "B", "c", "d", "e"}
	want := []diff.Hunk{{OldStart: 2, OldCount: 1, NewStart: 2, NewCount: 1}, {OldStart: 4, OldCount: 0, NewStart: 5, NewCount: 1}}
	for _, b := range []Text{
		String("a\nB\nc\nd\ne\n"),
		String("a\r\nB\r\nc\r\nd\r\ne"),
		Lines(textsearch.NewSnapshot(rowsNew)),
	} {
		id := Dispatch(rt, Spec{A: String(old), B: b}, runtime.DispatchOptions{})
		out := kindtest.Outcome(t, rt, id)
		require.Equal(t, runtime.Complete, out.State, "%+v", out)
		hs, ok := HunksOf(out)
		require.True(t, ok)
		require.Equal(t, want, hs)
	}
	id := Dispatch(rt, Spec{A: String(old), B: String(old)}, runtime.DispatchOptions{})
	hs, ok := HunksOf(kindtest.Outcome(t, rt, id))
	require.True(t, ok)
	require.Empty(t, hs)
}

// lender counts its loans and refuses when told to.
type lender struct {
	lines  []string
	out    atomic.Int32
	refuse bool
}

func (l *lender) Hold() (iter.Seq[string], func(), error) {
	if l.refuse {
		return nil, nil, errors.New("text gone")
	}
	l.out.Add(1)
	var done atomic.Bool
	return slices.Values(l.lines), func() {
		if done.CompareAndSwap(false, true) {
			l.out.Add(-1)
		}
	}, nil
}

// Lent lines are given back when the job ends, when it is cancelled
// before its worker starts (a keystroke superseding it) and when the other
// text's lender refuses; a refusal fails the job with ErrSpec.
func TestDiffJobGivesLentLinesBack(t *testing.T) {
	rt := kindtest.New(t, 1)
	big := make([]string, 20000)
	for i := range big {
		big[i] = fmt.Sprintf("line %d", i)
	}
	l := &lender{lines: big}
	id := Dispatch(rt, Spec{A: String(strings.Join(big[:100], "\n")), B: Lines(l)}, runtime.DispatchOptions{})
	require.Equal(t, runtime.Complete, kindtest.Outcome(t, rt, id).State)
	require.Zero(t, l.out.Load())

	var ids []runtime.JobID
	for range 20 {
		ids = append(ids, Dispatch(rt, Spec{A: Lines(l), B: Lines(l)}, runtime.DispatchOptions{Key: "k"}))
	}
	for _, id := range ids {
		kindtest.Outcome(t, rt, id)
	}
	// A superseded job settles at once; its worker, if it had started,
	// gives the lines back when it stops reading.
	require.Eventually(t, func() bool { return l.out.Load() == 0 }, 10*time.Second, time.Millisecond)

	refusing := &lender{refuse: true}
	id = Dispatch(rt, Spec{A: Lines(l), B: Lines(refusing)}, runtime.DispatchOptions{})
	out := kindtest.Outcome(t, rt, id)
	require.Equal(t, runtime.Failed, out.State)
	require.ErrorIs(t, out.Err, ErrSpec)
	require.Zero(t, l.out.Load())
}

// A malformed reply (not whole hunks, or a line number out of range) is an
// error, not a panic or a huge allocation.
func TestHunksCodecRefusesMalformedReplies(t *testing.T) {
	for _, ints := range [][]uint64{{1, 2, 3}, {1, 1 << 50, 1, 1}} {
		b, err := encodeInts(ints)
		require.NoError(t, err)
		_, err = decodeBytes(b)
		require.Error(t, err)
	}
}
