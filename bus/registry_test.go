package bus

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"
)

type ping struct {
	ID   uint64
	Note string
}

type pong struct{ N int }

func newTestRegistry(t testing.TB) *Registry {
	r := NewRegistry()
	require.NoError(t, Register[ping](r, "ping"))
	require.NoError(t, Register[pong](r, "pong"))
	return r
}

// Registering a topic twice is an error value (issue 2, bus: schema registry).
func TestRegisterTwiceIsAnError(t *testing.T) {
	r := newTestRegistry(t)
	err := Register[pong](r, "ping")
	require.ErrorIs(t, err, ErrDuplicateTopic)
	require.Contains(t, err.Error(), `"ping"`)
	require.Error(t, r.Register("", ping{}))
	require.Error(t, r.Register("nil", nil))
}

// A value round-trips through its topic; a pointer to the type is accepted.
func TestEncodeDecodeRoundTrip(t *testing.T) {
	r := newTestRegistry(t)
	env, err := r.Encode("ping", &ping{ID: 7, Note: "hi"})
	require.NoError(t, err)
	var got ping
	require.NoError(t, r.Decode(env, &got))
	require.Equal(t, ping{ID: 7, Note: "hi"}, got)

	v, err := r.DecodeNew(env)
	require.NoError(t, err)
	require.Equal(t, &ping{ID: 7, Note: "hi"}, v)
}

// Sending or decoding an unregistered topic is an error, not a panic.
func TestUnknownTopicIsAnError(t *testing.T) {
	r := newTestRegistry(t)
	_, err := r.Encode("nope", ping{})
	require.ErrorIs(t, err, ErrUnknownTopic)
	var p ping
	require.ErrorIs(t, r.Decode(Envelope{Topic: "nope", Payload: []byte{0x90}}, &p), ErrUnknownTopic)
	_, err = r.DecodeNew(Envelope{Topic: "nope"})
	require.ErrorIs(t, err, ErrUnknownTopic)
}

// The registry refuses to encode or decode a value of the wrong type.
func TestTypeMismatchIsAnError(t *testing.T) {
	r := newTestRegistry(t)
	_, err := r.Encode("ping", pong{N: 1})
	require.ErrorIs(t, err, ErrTypeMismatch)
	env, err := r.Encode("ping", ping{ID: 1})
	require.NoError(t, err)
	var wrong pong
	require.ErrorIs(t, r.Decode(env, &wrong), ErrTypeMismatch)
	var p ping
	require.ErrorIs(t, r.Decode(env, p), ErrTypeMismatch, "non-pointer target")
	require.ErrorIs(t, r.Decode(env, (*ping)(nil)), ErrTypeMismatch, "nil pointer target")
}

// Malformed payloads (garbage, truncated, trailing bytes) wrap ErrMalformed.
func TestMalformedPayloadIsAnError(t *testing.T) {
	r := newTestRegistry(t)
	good, err := r.Encode("ping", ping{ID: 99, Note: "payload"})
	require.NoError(t, err)
	cases := map[string][]byte{
		"empty":     nil,
		"truncated": good.Payload[:len(good.Payload)-2],
		"trailing":  append(append([]byte{}, good.Payload...), 0xc0),
		"wrongtype": {0xa3, 'a', 'b', 'c'},
		"badcode":   {0xc1},
	}
	for name, payload := range cases {
		t.Run(name, func(t *testing.T) {
			var p ping
			err := r.Decode(Envelope{Topic: "ping", Payload: payload}, &p)
			require.ErrorIs(t, err, ErrMalformed)
		})
	}
}

type panicky struct{}

func (p *panicky) DecodeMsgpack(*msgpack.Decoder) error { panic("boom") }

// A custom decoder that panics on hostile bytes yields ErrMalformed.
func TestDecoderPanicBecomesError(t *testing.T) {
	r := NewRegistry()
	require.NoError(t, Register[panicky](r, "p"))
	var v panicky
	err := r.Decode(Envelope{Topic: "p", Payload: []byte{0x90}}, &v)
	require.ErrorIs(t, err, ErrMalformed)
	require.Contains(t, err.Error(), "boom")
	require.False(t, errors.Is(err, ErrUnknownTopic))
}

type custom struct{ N int }

func (c *custom) EncodeMsgpack(e *msgpack.Encoder) error { return e.EncodeInt(int64(c.N)) }
func (c *custom) DecodeMsgpack(d *msgpack.Decoder) error {
	n, err := d.DecodeInt()
	c.N = n
	return err
}

// Types with hand-written methods take the direct path both ways, and a nil
// pointer of such a type still encodes (as nil) instead of panicking.
func TestCustomCodecsRoundTripAndNilPointer(t *testing.T) {
	r := NewRegistry()
	require.NoError(t, Register[custom](r, "c"))
	env, err := r.Encode("c", &custom{N: 42})
	require.NoError(t, err)
	require.Equal(t, []byte{42}, env.Payload)
	var got custom
	require.NoError(t, r.Decode(env, &got))
	require.Equal(t, 42, got.N)
	env, err = r.Encode("c", (*custom)(nil))
	require.NoError(t, err)
	require.Equal(t, []byte{0xc0}, env.Payload)
}

// A reusable Decoder gives the same results and errors as Registry.Decode,
// and is not confused by a previous envelope.
func TestReusableDecoderMatchesRegistryDecode(t *testing.T) {
	r := newTestRegistry(t)
	d := r.NewDecoder()
	for i := range 3 {
		env, err := r.Encode("ping", ping{ID: uint64(i), Note: "n"})
		require.NoError(t, err)
		var p ping
		require.NoError(t, d.Decode(env, &p))
		require.Equal(t, ping{ID: uint64(i), Note: "n"}, p)
		var bad ping
		require.ErrorIs(t, d.Decode(Envelope{Topic: "ping", Payload: env.Payload[:2]}, &bad), ErrMalformed)
		require.ErrorIs(t, d.Decode(Envelope{Topic: "nope"}, &bad), ErrUnknownTopic)
		require.ErrorIs(t, d.Decode(env, &pong{}), ErrTypeMismatch)
	}
}
