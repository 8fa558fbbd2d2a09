package luabind

import (
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// A task that leaves its h:batches() loop early and then awaits the stream
// gets the stream's end: leaving a for-in loop cancels the stream (nothing
// would take its batches), so the await returns "cancelled"; a task that
// took batches by calling the iterator itself and stops gets the stream's
// natural end: the batches it stopped taking are not held for it, which
// would make the await wait on itself.
func TestAwaitAfterLeavingTheBatchLoopEnds(t *testing.T) {
	for name, tc := range map[string]struct {
		take string
		want lua.LValue
	}{
		"break, then cancel": {take: `
			for batch in h:batches() do
				n = n + #batch
				if n >= 100000 then break end
			end
			h:cancel()`, want: lua.LString("cancelled")},
		"break": {take: `
			for batch in h:batches() do
				n = n + #batch
				if n >= 100000 then break end
			end`, want: lua.LString("cancelled")},
		"by hand, to its end": {take: `
			local next_batch = h:batches()
			while n < 100000 do n = n + #next_batch(h) end`, want: lua.LNil},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, false)
			res := runOK(t, h, `
				local h = pmacs.workers.emit_n(300000, {max_batch = 512})
				local n = 0
				`+tc.take+`
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

// A task that stops taking batches (calling the iterator by hand: leaving a
// for-in loop would cancel the stream) and then awaits a task that awaits
// the stream gets the stream's end too, in either order of the two awaits: the
// stream was still held for the first task, which could not take another
// batch before the second task ended, and that one waited on the stream.
// The same holds for a task that does so from inside its loop.
func TestAwaitingTheStreamThroughAnotherTaskEnds(t *testing.T) {
	for name, src := range map[string]string{
		"helper awaits first": `
			local h = pmacs.workers.emit_n(300000, {max_batch = 512})
			local n = 0
			n = n + #h:batches()(h)
			local helper = pmacs.async.run(function() local v, e = h:await(); return e end)
			local e = helper:await()
			return n, e`,
		"task awaits first": `
			local h = pmacs.workers.emit_n(300000, {max_batch = 512})
			local n = 0
			n = n + #h:batches()(h)
			local helper = pmacs.async.run(function()
				pmacs.workers.sleep(1):await()
				local v, e = h:await()
				return e
			end)
			local e = helper:await()
			return n, e`,
		"inside the loop": `
			local h = pmacs.workers.emit_n(300000, {max_batch = 512})
			local n = 0
			for batch in h:batches() do
				n = n + #batch
				local e = pmacs.async.run(function() local v, e = h:await(); return e end):await()
				assert(e == nil, e)
			end
			return n, nil`,
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, false)
			res := runOK(t, h, src)
			n := float64(res[0].(lua.LNumber))
			require.True(t, n > 0 && n <= 512, "one batch taken, got %v items", n)
			require.Equal(t, lua.LNil, res[1])
		})
	}
}
