package runtime

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/bus/wire"
)

// The hand-appended encoding of fixed-shape replies is byte for byte what
// the reply's MessagePack encoder writes, at every integer and string
// length boundary, and the kinds it does not cover are left to the encoder.
func TestAppendFixedMatchesEncoder(t *testing.T) {
	reg := wireRegistry(t)
	nums := []uint64{0, 1, 127, 128, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32, 1<<64 - 1}
	strs := []string{"", "x", strings.Repeat("a", 31), strings.Repeat("b", 32), strings.Repeat("c", 255),
		strings.Repeat("d", 256), strings.Repeat("e", 65535), strings.Repeat("f", 65536)}
	var cases []reply
	for _, n := range nums {
		for _, k := range []replyKind{replyUnit, replyCancelled, replyClosed, replySum, replyProgress} {
			cases = append(cases, reply{Job: JobID(n), Kind: k, N: n})
		}
	}
	for _, s := range strs {
		cases = append(cases, reply{Job: 7, Kind: replyFailed, Msg: s, Code: s[:min(len(s), 40)]})
	}
	for _, r := range cases {
		want, err := reg.Encode(replyTopic, &r)
		require.NoError(t, err)
		got, ok := r.appendFixed(nil)
		require.True(t, ok, "kind %d", r.Kind)
		require.Equal(t, want.Payload, got, "kind %d job %d len %d", r.Kind, r.Job, len(r.Msg))
		var back reply
		require.NoError(t, reg.Decode(busEnvelope(got), &back))
		require.Equal(t, r.Kind, back.Kind)
	}
	for _, k := range []replyKind{replyItems, replyResult, replyValue} {
		r := reply{Kind: k}
		b, ok := r.appendFixed([]byte{1})
		require.False(t, ok)
		require.Equal(t, []byte{1}, b)
	}
}

// Only the payloads of integer-only fixed replies in a buffer of
// fixedReplyCap go back to the pool: a failure (its strings), stream items
// and results in a kind's form (whose bytes a kind may keep), a payload of
// another size and garbage stay where they are.
func TestRecycleFixedTakesOnlyIntegerOnlyReplies(t *testing.T) {
	pooled := fixedReusable
	buf := func() []byte { return make([]byte, 0, fixedReplyCap) }
	for _, n := range []uint64{0, 127, 128, 255, 256, 65536, 1 << 32, 1<<64 - 1} {
		for _, k := range []replyKind{replyUnit, replyCancelled, replyClosed, replySum, replyProgress} {
			r := reply{Job: JobID(n), Kind: k, N: n}
			p, ok := r.appendFixed(buf())
			require.True(t, ok)
			require.True(t, pooled(p), "kind %d job %d", k, n)
		}
	}
	failed, ok := (&reply{Job: 3, Kind: replyFailed, Msg: "m", Code: "c"}).appendFixed(buf())
	require.True(t, ok)
	require.False(t, pooled(failed), "a failure")
	for _, k := range []replyKind{replyItems, replyResult, replyValue, replyExternal} {
		p := append(buf(), 0x93, 5, byte(k), 1)
		require.False(t, pooled(p), "kind %d", k)
		p = append(buf(), 0x92, 5, byte(k))
		require.False(t, pooled(p), "kind %d", k)
	}
	unit, _ := (&reply{Job: 5, Kind: replyUnit}).appendFixed(make([]byte, 0, 64))
	require.False(t, pooled(unit), "another size")
	require.False(t, pooled(append(buf(), 0x92)), "truncated")
	require.False(t, pooled(append(buf(), 0x92, 0xcf, 1)), "truncated uint")
	require.False(t, pooled(append(buf(), 0x92, 0xc1, byte(replyUnit))), "not a uint")
}

// A dispatch of a job that completes with a value costs two allocations
// in the steady state, all told (workers, bus and Tick included): the
// pending entry and the kind's handler closure. The executor's closures
// (the job is its own workers.Handler), the reply's payload (recycled from
// the pool) and the tick's settled list (carved from a shared chunk) cost
// none.
func TestDispatchAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops puts at random")
	}
	rt, err := New(Options{})
	require.NoError(t, err)
	defer rt.Close()
	for range 1000 {
		roundTrip(rt, rt.startValue(0, DispatchOptions{}))
	}
	allocs := testing.AllocsPerRun(2000, func() { roundTrip(rt, rt.startValue(0, DispatchOptions{})) })
	require.LessOrEqual(t, allocs, 2.0)
}

// The integer-only replies read in place (fixedReply) are what the general
// decoder reads from the same bytes, for every integer width; anything with
// trailing bytes, another length or kind is left to the decoder.
func TestFixedReplyReadsWhatTheDecoderReads(t *testing.T) {
	reg := wireRegistry(t)
	read := func(p []byte) (reply, bool) {
		w := wire.Bytes{P: p}
		n, ok1 := w.ArrayLen()
		id, ok2 := w.Uint()
		rk, ok3 := w.Uint()
		require.True(t, ok1 && ok2 && ok3)
		var r reply
		ok := fixedReply(&r, &w, n, id, rk)
		return r, ok
	}
	for _, n := range []uint64{0, 1, 127, 128, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32, 1<<64 - 1} {
		for _, k := range []replyKind{replyUnit, replyCancelled, replyClosed, replySum, replyProgress, replyExternal} {
			r := reply{Job: JobID(n), Kind: k, N: n}
			env, err := reg.Encode(replyTopic, &r)
			require.NoError(t, err)
			var want reply
			require.NoError(t, reg.Decode(env, &want))
			got, ok := read(env.Payload)
			require.True(t, ok, "kind %d n %d", k, n)
			require.Equal(t, want, got)
		}
	}
	unit, _ := (&reply{Job: 9, Kind: replyUnit}).appendFixed(nil)
	_, ok := read(append(unit, 0))
	require.False(t, ok, "trailing bytes")
	sum, _ := (&reply{Job: 9, Kind: replySum, N: 3}).appendFixed(nil)
	_, ok = read(append(sum, 1))
	require.False(t, ok, "trailing bytes")
	_, ok = read([]byte{0x93, 9, byte(replySum), 0xd0, 0x01})
	require.False(t, ok, "a signed integer form goes to the decoder")
	_, ok = read([]byte{0x93, 9, byte(replyUnit), 1})
	require.False(t, ok, "a unit reply of three fields")
	failed, _ := (&reply{Job: 9, Kind: replyFailed, Msg: "m", Code: "c"}).appendFixed(nil)
	_, ok = read(failed)
	require.False(t, ok, "a failure")
}
