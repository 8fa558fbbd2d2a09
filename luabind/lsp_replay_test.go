package luabind

import (
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// lspReplayLua types 100 keystrokes, one a frame or so, each asking for
// completion under one key while a slow server (DELAY ms, ignoring
// $/cancelRequest) still works on the earlier ones. A request still
// running when the next keystroke comes is superseded; a task per request
// awaits it. It returns how many superseded requests delivered a value
// anyway (stale), how many requests were superseded, delivered a value and
// awaited "cancelled", and how many $/cancelRequest the server received.
const lspReplayLua = `
local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
assert(c:request("test/echo", {}):await())
local superseded, nsuperseded, stale, delivered, cancelled, finished = {}, 0, 0, 0, 0, 0
local prev
for i = 1, 100 do
	if prev and not prev:done() then
		superseded[i - 1] = true
		nsuperseded = nsuperseded + 1
	end
	local h = c:request("textDocument/completion", {
		textDocument = {uri = "file:///x.go"}, position = {line = 20, character = i}, delayMs = DELAY,
	}, {key = "completion"})
	prev = h
	pmacs.async.run(function()
		local v, err = h:await()
		if v ~= nil then
			delivered = delivered + 1
			if superseded[i] then stale = stale + 1 end
			assert(#v.items == 20, "items: " .. #v.items)
		elseif err == "cancelled" then
			cancelled = cancelled + 1
		else
			error("request " .. i .. ": " .. tostring(err))
		end
		finished = finished + 1
	end)
	pmacs.workers.sleep(1):await()
end
while finished < 100 do pmacs.workers.sleep(5):await() end
local ids = assert(c:request("test/cancels"):await())
local answered = cancelled_answered()
c:stop()
return stale, nsuperseded, delivered, cancelled, #ids, answered`

// TestLSPCompletionReplayNoStaleResults is the 100-keystroke completion
// replay (benchmarks: "zero stale results reach Lua; every superseded
// request sent $/cancelRequest"): no superseded request delivers a value
// to Lua although the server answers every one; every superseded request
// awaits "cancelled"; and each sent $/cancelRequest, counted at the
// server, except those whose reply had already been read when they were
// superseded (the client's CancelledAnswered: the server had answered,
// nothing to cancel).
func TestLSPCompletionReplayNoStaleResults(t *testing.T) {
	h := lspHarness(t)
	L := h.b.L()
	L.SetGlobal("DELAY", lua.LNumber(300))
	L.SetGlobal("cancelled_answered", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(h.b.lsp.clients[0].c.Stats().CancelledAnswered))
		return 1
	}))
	task := h.run(t, lspReplayLua)
	require.True(t, task.Done(), h.stderr.String())
	require.NoError(t, task.Err(), h.stderr.String())
	r := task.Results()
	require.Len(t, r, 6)
	stale, superseded, delivered, cancelled, cancels, answered := r[0], r[1], r[2], r[3], r[4], r[5]
	require.Equal(t, lua.LNumber(0), stale, "superseded requests delivered values")
	require.Equal(t, lua.LNumber(100), delivered.(lua.LNumber)+cancelled.(lua.LNumber))
	require.Equal(t, superseded, cancelled, "every superseded request awaits cancelled")
	require.Greater(t, float64(superseded.(lua.LNumber)), 50.0, "the server was not slow enough for a replay: most requests should be superseded")
	require.Equal(t, superseded, cancels.(lua.LNumber)+answered.(lua.LNumber),
		"every superseded request not yet answered sent $/cancelRequest")
	t.Logf("superseded %v, $/cancelRequest %v, answered before their supersede %v, delivered %v", superseded, cancels, answered, delivered)
}
