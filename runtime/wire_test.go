package runtime

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/bus"
	"github.com/pmacs-go/pmacs-go/grep"
)

func busEnvelope(payload []byte) bus.Envelope {
	return bus.Envelope{Topic: replyTopic, Payload: payload}
}

func wireRegistry(t testing.TB) *bus.Registry {
	reg := bus.NewRegistry()
	require.NoError(t, bus.Register[reply](reg, replyTopic))
	return reg
}

var sampleMatch = grep.Match{File: "src/net/http/server.go", Line: 2031, Text: "func (c *conn) serve(ctx context.Context) {",
	MatchStart: 0, MatchEnd: 4, Spans: [][2]uint32{{0, 4}, {25, 29}}}

// Every reply kind round-trips through the bus unchanged, grep and fs wire
// types included (issue 3: the wire types round-trip through the bus).
func TestReplyKindsRoundTripThroughTheBus(t *testing.T) {
	reg := wireRegistry(t)
	cases := []reply{
		{Job: 1, Kind: replyUnit},
		{Job: 2, Kind: replySum, N: 1 << 63},
		{Job: 3, Kind: replyCancelled},
		{Job: 4, Kind: replyFailed, Msg: `rename "a" -> "b": destination exists`, Code: "EEXIST"},
		{Job: 7, Kind: replyClosed},
		{Job: 11, Kind: replyValue, Value: map[string]any{"k": "v"}},
		{Job: 12, Kind: replyProgress, N: 7955},
	}
	for _, in := range cases {
		env, err := reg.Encode(replyTopic, &in)
		require.NoError(t, err)
		var out reply
		require.NoError(t, reg.Decode(env, &out), "kind %d", in.Kind)
		require.Equal(t, in, out, "kind %d", in.Kind)
	}
}

// Hostile length prefixes and wrong field counts are errors, not huge
// allocations or panics.
func TestReplyDecodeRejectsHostileInput(t *testing.T) {
	reg := wireRegistry(t)
	cases := map[string][]byte{
		"short array":           {0x91, 0x01},
		"unknown kind":          {0x92, 0x01, 0x7f},
		"huge array":            {0x93, 0x01, byte(replyValue), 0xdd, 0x7f, 0xff, 0xff, 0xff},
		"extra field":           {0x93, 0x01, byte(replyUnit), 0x00},
		"missing payload":       {0x92, 0x01, byte(replySum)},
		"a detail but no codec": {0x94, 0x01, byte(replyProgress), 0x05, 0x90},
	}
	for name, payload := range cases {
		var r reply
		require.ErrorIs(t, reg.Decode(busEnvelope(payload), &r), bus.ErrMalformed, name)
	}
}

// FuzzReplyDecode: arbitrary bytes on the reply topic never panic the main
// goroutine (issue 2 fuzz; issue 8 bus decoding target). Seeds in
// testdata/fuzz/FuzzReplyDecode.
func FuzzReplyDecode(f *testing.F) {
	reg := wireRegistry(f)
	for _, r := range []reply{
		*matchesReply(6, sampleMatch),
		{Job: 4, Kind: replyFailed, Msg: "m", Code: "c"},
		{Job: 11, Kind: replyValue, Value: []any{1, "x"}},
	} {
		env, err := reg.Encode(replyTopic, &r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(env.Payload)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		var r reply
		if reg.Decode(busEnvelope(payload), &r) != nil {
			return
		}
		// Whatever decodes must encode again, and decode to the same
		// reply: nothing a reply carries is lost or changed on the way.
		env, err := reg.Encode(replyTopic, &r)
		if err != nil {
			t.Fatalf("decoded reply does not re-encode: %v", err)
		}
		var back reply
		if err := reg.Decode(env, &back); err != nil {
			t.Fatalf("re-encoded reply does not decode: %v", err)
		}
		a, b := normalReply(r), normalReply(back)
		// A value is compared by its printed form, in which NaN equals
		// itself and map keys are sorted; the rest structurally.
		va, vb := fmt.Sprintf("%#v", a.Value), fmt.Sprintf("%#v", b.Value)
		a.Value, b.Value = nil, nil
		if !reflect.DeepEqual(a, b) || va != vb {
			t.Fatalf("reply changed on a round trip:\n first %#v %s\nsecond %#v %s", a, va, b, vb)
		}
	})
}

// normalReply makes the empty and nil forms of a reply's slices alike:
// the wire cannot tell them apart, and a consumer treats them the same.
func normalReply(r reply) reply {
	if ms, ok := r.items.(fixtureMatches); ok {
		ms = slices.Clone(ms)
		for i := range ms {
			if len(ms[i].Spans) == 0 {
				ms[i].Spans = nil
			}
		}
		r.items = ms
	}
	return r
}
