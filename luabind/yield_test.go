package luabind

import (
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// TestYieldInsideNestedCallIsALuaError proves a coroutine.yield that
// gopher-lua cannot honour, one nested inside a Go call (pcall, a
// metamethod, a sort comparator, a gsub callback), raises a Lua error the
// script can catch, in a task and in a coroutine a task made. gopher-lua
// would instead detach the coroutine from its resumer and keep running it,
// and the coroutine's next yield then panicked out of Resume and killed the
// host (issue 11: a script must not crash the editor).
func TestYieldInsideNestedCallIsALuaError(t *testing.T) {
	cases := map[string]string{
		"pcall":      `local ok, err = pcall(coroutine.yield); return ok, err`,
		"pcall then": `local ok, err = pcall(coroutine.yield); coroutine.yield(); return ok, err`,
		"metamethod": `local t = setmetatable({}, {__index = function() coroutine.yield() end})
			local ok, err = pcall(function() return t.x end); coroutine.yield(); return ok, err`,
		"sort comparator": `local ok, err = pcall(table.sort, {3, 1, 2}, function(a, b) coroutine.yield(); return a < b end)
			coroutine.yield(); return ok, err`,
		"gsub callback": `local ok, err = pcall(string.gsub, "ab", ".", function() coroutine.yield() end)
			coroutine.yield(); return ok, err`,
		"coroutine made by the task": `local co = coroutine.create(function()
				local ok, err = pcall(coroutine.yield); coroutine.yield(); return ok, err
			end)
			local _, ok1 = coroutine.resume(co)
			local okr, ok, err = coroutine.resume(co)
			assert(okr, tostring(ok))
			return ok, err`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, false)
			var task *Task
			require.NotPanics(t, func() { task = h.run(t, src) })
			require.NoError(t, task.Err(), h.stderr.String())
			res := task.Results()
			require.Len(t, res, 2)
			require.Equal(t, lua.LFalse, res[0])
			require.Contains(t, res[1].String(), "coroutine.yield cannot yield inside")
		})
	}
}

// TestYieldStillWorksWhereItCan proves the check leaves ordinary yields
// alone: in a task (resumed next frame), in a coroutine the task made
// (values passed both ways), and outside any coroutine (gopher-lua's own
// error).
func TestYieldStillWorksWhereItCan(t *testing.T) {
	h := newHarness(t, false)
	task := h.run(t, `
		local a = coroutine.yield()
		local co = coroutine.wrap(function(x) local y = coroutine.yield(x + 1); return y * 2 end)
		local first = co(1)
		local second = co(10)
		return a == nil, first, second`)
	require.NoError(t, task.Err(), h.stderr.String())
	require.Equal(t, []lua.LValue{lua.LTrue, lua.LNumber(2), lua.LNumber(20)}, task.Results())
	err := h.b.L().DoString(`coroutine.yield()`)
	require.ErrorContains(t, err, "can not yield from outside of a coroutine")
}
