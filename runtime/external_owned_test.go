package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A value copied by OwnExternal on another goroutine settles its job, via
// CompleteExternalOwned on the main one, with the value as it was when it
// was copied: the producer may change its own value afterwards, and the
// outcome holds the wire form (integers as int64), as CompleteExternalOK's
// does.
func TestExternalValueOwnedOnAnotherGoroutineSettlesTheJob(t *testing.T) {
	rt := newRT(t, 2)
	id, _ := rt.RegisterExternal(kindReply, "")
	tokens := make([]any, 70_000)
	for i := range tokens {
		tokens[i] = i
	}
	src := map[string]any{"data": tokens}
	got := make(chan ExternalValue)
	go func() {
		v, err := rt.OwnExternal(src)
		if err != nil {
			panic(err)
		}
		tokens[0] = "changed after the copy"
		got <- v
	}()
	rt.CompleteExternalOwned(id, <-got)
	require.Equal(t, []JobID{id}, rt.Tick().Settled)
	o, ok := rt.TakeResult(id)
	require.True(t, ok)
	v, ok := o.External()
	require.True(t, ok)
	data := v.(map[string]any)["data"].([]any)
	require.Len(t, data, 70_000)
	require.EqualValues(t, 0, data[0], "the copy is the producer's value when it was made")
	require.EqualValues(t, 69_999, data[69_999])
}

// OwnExternal refuses, with the reason, what cannot cross the bus, so the
// producer can fail the job with it; CompleteExternalOwned follows the
// first-completion-wins rule of the other CompleteExternal* functions, and
// the zero ExternalValue completes with nil.
func TestOwnExternalRefusesWhatCannotCrossAndFirstCompletionWins(t *testing.T) {
	rt := newRT(t, 2)
	_, err := rt.OwnExternal(map[int]any{1: "a"})
	require.ErrorContains(t, err, "string keys")
	_, err = rt.OwnExternal(make(chan int))
	require.Error(t, err)

	a, _ := rt.RegisterExternal(kindReply, "")
	b, _ := rt.RegisterExternal(kindReply, "")
	first, err := rt.OwnExternal("first")
	require.NoError(t, err)
	second, err := rt.OwnExternal("second")
	require.NoError(t, err)
	rt.CompleteExternalOwned(a, first)
	rt.CompleteExternalOwned(a, second)
	require.NoError(t, rt.CompleteExternalOK(a, "third"))
	rt.CompleteExternalOwned(b, ExternalValue{})
	rt.CompleteExternalOwned(12345, first)
	require.Equal(t, []JobID{a, b}, rt.Tick().Settled)
	oa, _ := rt.TakeResult(a)
	require.Equal(t, Outcome{State: Complete, value: "first", external: true}, oa)
	ob, _ := rt.TakeResult(b)
	require.Equal(t, Outcome{State: Complete, external: true}, ob)
	require.Empty(t, rt.Tick().Settled)
}
