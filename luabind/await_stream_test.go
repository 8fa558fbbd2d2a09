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

// A write that waits for room in a program's stdin resumes its call site
// with Lua nil for every value it does not return (issue 11, defect 2: the
// same Go-nil defect as await, on the one wait that did not park through
// the binding's single parking point).
func TestWaitingWriteGivesLuaNilForMissingValues(t *testing.T) {
	h := newHarness(t, false)
	res := runOK(t, h, `
		local h = pmacs.workers.spawn{cmd = {"sh", "-c", "sleep 0.2; cat >/dev/null"}, stdin = "pipe"}
		local chunk = string.rep("x", 1024 * 1024)
		for i = 1, 24 do
			local ok, err, code = h:write(chunk)
			assert(ok == true, tostring(err))
			assert(err == nil and code == nil, "missing values are Lua nil")
		end
		h:close_stdin()
		local r = h:await()
		return r.code
	`)
	require.Equal(t, lua.LNumber(0), res[0])
}
