package runtime

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
