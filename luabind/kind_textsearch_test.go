package luabind

import (
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/textsearch"
)

// TestLuaSearchTextStreamsTriples: w.search_text streams matches as
// row, start, end triples and its progress is the count; bad specs raise
// at the call (issue 14, in-buffer search).
func TestLuaSearchTextStreamsTriples(t *testing.T) {
	h := newHarness(t, false)
	h.b.ls.SetGlobal("TEXT", TextSnapshotValue(h.b.ls, textsearch.NewSnapshot([]string{"a Foo", "foo foo", "bar"})))
	task := h.run(t, `
		local w = pmacs.workers
		local h = w.search_text{text = TEXT, pattern = "foo", case_sensitive = false, max_batch = 4}
		local flat = {}
		for batch in h:batches() do
			assert(#batch % 3 == 0, "whole triples")
			for _, n in ipairs(batch) do flat[#flat + 1] = n end
		end
		assert(h:await())
		local errs = {}
		for _, spec in ipairs{{text = TEXT, pattern = ""}, {text = TEXT, pattern = "(", regex = true}, {text = {}, pattern = "x"}} do
			local ok, err = pcall(w.search_text, spec)
			assert(not ok)
			errs[#errs + 1] = err
		end
		return table.concat(flat, ","), h:progress(), #TEXT, table.concat(errs, "\n")
	`)
	require.NoError(t, task.Err(), h.stderr.String())
	res := task.Results()
	require.Equal(t, lua.LString("0,2,5,1,0,3,1,4,7"), res[0])
	require.Equal(t, lua.LNumber(3), res[1])
	require.Equal(t, lua.LNumber(3), res[2])
	msg := string(res[3].(lua.LString))
	require.Contains(t, msg, "empty pattern")
	require.Contains(t, msg, "missing closing )")
	require.Contains(t, msg, "field 'text' expected text snapshot, got table")
}
