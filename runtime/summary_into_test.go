package runtime

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSummarizeIntoMatchesSummarize covers the ring's field-by-field
// summary: for every state and kind of value it stores what summarize
// returns, over whatever the slot held before.
func TestSummarizeIntoMatchesSummarize(t *testing.T) {
	values := []any{nil, true, 7, int64(-3), uint64(9), 2.5, "short", strings.Repeat("x", 100),
		[]byte("abc"), []any{1, 2}, map[string]any{"a": 1}, struct{ A int }{1}, int8(1)}
	for _, st := range []State{Complete, Cancelled, Failed} {
		for _, v := range values {
			j := &job{kind: testKind, state: st, value: v}
			got := resultSummary{shape: shapeMap, small: "stale", n: 5, m: 6}
			summarizeInto(&got, j)
			require.Equal(t, summarize(j), got, "%v %#v", st, v)
		}
	}
}
