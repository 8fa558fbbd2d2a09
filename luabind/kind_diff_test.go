package luabind

import (
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/textsearch"
)

// w.diff compares a string with a text snapshot on a worker and returns
// git's -U0 hunks as tables; a text that is neither raises at the call.
func TestLuaDiffReturnsHunks(t *testing.T) {
	h := newHarness(t, false)
	h.b.ls.SetGlobal("TEXT", TextSnapshotValue(h.b.ls, textsearch.NewSnapshot([]string{"a", "B", "c", "d", "e"})))
	task := h.run(t, `
		local w = pmacs.workers
		local hunks = assert(w.diff{a = "a\nb\nc\nd\n", b = TEXT, key = "d"}:await())
		local out = {}
		for _, hk in ipairs(hunks) do
			out[#out + 1] = ("%d,%d %d,%d"):format(hk.old_start, hk.old_count, hk.new_start, hk.new_count)
		end
		local ok, err = pcall(w.diff, {a = 1, b = "x"})
		assert(not ok)
		return table.concat(out, ";"), err
	`)
	require.NoError(t, task.Err(), h.stderr.String())
	res := task.Results()
	require.Equal(t, lua.LString("2,1 2,1;4,0 5,1"), res[0])
	require.Contains(t, string(res[1].(lua.LString)), "field 'a' expected string or text snapshot, got number")
}
