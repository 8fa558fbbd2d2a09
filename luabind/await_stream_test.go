package luabind

import (
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// A task that leaves its h:batches() loop early and then awaits the stream
// gets the stream's end, cancelled or not: the batches it stopped taking
// are not held for it, which would make the await wait on itself.
func TestAwaitAfterLeavingTheBatchLoopEnds(t *testing.T) {
	for name, tc := range map[string]struct {
		cancel string
		want   lua.LValue
	}{
		"cancelled":  {cancel: "h:cancel()", want: lua.LString("cancelled")},
		"to its end": {cancel: "", want: lua.LNil},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, false)
			res := runOK(t, h, `
				local h = pmacs.workers.emit_n(300000, {max_batch = 512})
				local n = 0
				for batch in h:batches() do
					n = n + #batch
					if n >= 100000 then break end
				end
				`+tc.cancel+`
				local v, e = h:await()
				return n, e
			`)
			require.GreaterOrEqual(t, float64(res[0].(lua.LNumber)), 100000.0)
			require.Equal(t, tc.want, res[1])
		})
	}
}
