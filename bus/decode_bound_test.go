package bus

import (
	goruntime "runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// Malformed envelopes whose length prefixes claim far more bytes than they
// hold cost bounded memory however many arrive: the pooled and the reusable
// decoders must not keep a buffer that grows with each failed read (found by
// FuzzDecode: msgpack doubled a reused decoder's buffer on every such
// envelope, so a few dozen 7-byte payloads would exhaust memory).
func TestMalformedLengthPrefixesCostBoundedMemory(t *testing.T) {
	r := newTestRegistry(t)
	dec := r.NewDecoder()
	hostile := []Envelope{
		{Topic: "ping", Payload: []byte("\x920\xdb0000")},    // [48, str32 of 808 MB]
		{Topic: "ping", Payload: []byte("\xdf0000\xdb0000")}, // map32 with a str32 key
		{Topic: "ping", Payload: []byte("\x92\x01\xc6\x7f\xff\xff\xff")},
	}
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	for range 12 {
		for _, env := range hostile {
			var p ping
			require.ErrorIs(t, r.Decode(env, &p), ErrMalformed)
			require.ErrorIs(t, dec.Decode(env, &p), ErrMalformed)
		}
	}
	goruntime.ReadMemStats(&after)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<20),
		"72 malformed envelopes allocated %d MiB", (after.TotalAlloc-before.TotalAlloc)>>20)

	// The decoder still works afterwards.
	env, err := r.Encode("ping", ping{ID: 7, Note: "ok"})
	require.NoError(t, err)
	var p ping
	require.NoError(t, dec.Decode(env, &p))
	require.Equal(t, ping{ID: 7, Note: "ok"}, p)
}
