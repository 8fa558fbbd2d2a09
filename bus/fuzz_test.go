package bus

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecode feeds arbitrary bytes to the decoder of a registered topic: it
// must return a value or an error, never panic (issue 2, bus: fuzz test),
// and whatever it accepts must survive a round trip: the decoded value,
// encoded again, decodes to an equal value (issue 11: the results are
// checked, not discarded). The seed corpus lives in
// testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	r := newTestRegistry(f)
	good, err := r.Encode("ping", ping{ID: 1 << 40, Note: "seed"})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good.Payload)
	f.Add([]byte{})
	f.Add([]byte{0xc1})
	f.Add([]byte{0xdf, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, payload []byte) {
		var p ping
		if err := r.Decode(Envelope{Topic: "ping", Payload: payload}, &p); err == nil {
			requireRoundTrip(t, r, "ping", p)
		} else {
			require.ErrorIs(t, err, ErrMalformed)
		}
		if v, err := r.DecodeNew(Envelope{Topic: "pong", Payload: payload}); err == nil {
			pp, ok := v.(*pong)
			require.True(t, ok, "DecodeNew returned %T for pong", v)
			requireRoundTrip(t, r, "pong", *pp)
		} else {
			require.ErrorIs(t, err, ErrMalformed)
		}
	})
}

// FuzzEncodeRoundTrip: every value a registered topic encodes decodes to an
// equal value, through Decode, DecodeNew and a reused Decoder (issue 11:
// a round-trip property for the bus).
func FuzzEncodeRoundTrip(f *testing.F) {
	r := newTestRegistry(f)
	f.Add(uint64(0), "", 0)
	f.Add(uint64(1<<64-1), "note \x00 with NUL", -1)
	f.Add(uint64(1<<40), "\xff not UTF-8", 1<<62)
	f.Fuzz(func(t *testing.T, id uint64, note string, n int) {
		requireRoundTrip(t, r, "ping", ping{ID: id, Note: note})
		requireRoundTrip(t, r, "pong", pong{N: n})
	})
}

// requireRoundTrip encodes v under topic and requires every decoding path
// to give back a value equal to v.
func requireRoundTrip[T any](t *testing.T, r *Registry, topic string, v T) {
	t.Helper()
	env, err := r.Encode(topic, v)
	require.NoError(t, err, "a decoded value must encode again")
	var got T
	require.NoError(t, r.Decode(env, &got))
	require.Equal(t, v, got)
	fresh, err := r.DecodeNew(env)
	require.NoError(t, err)
	require.Equal(t, &v, fresh)
	dec := r.NewDecoder()
	for range 2 { // the second pass reuses the decoder's state
		var again T
		require.NoError(t, dec.Decode(env, &again))
		require.Equal(t, v, again)
	}
}
