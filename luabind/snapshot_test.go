package luabind

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 11 (where the seed's behaviour was lost): w.snapshot()'s completed
// rows say what each job returned, so *workers* can show it; a job that
// failed has an error and no result.
func TestSnapshotCompletedRowsSayWhatEachJobReturned(t *testing.T) {
	h := newHarness(t, false)
	task := h.run(t, `
		local w = pmacs.workers
		local sum = w.sum(10)
		assert(sum:await() == 55)
		local emit = w.emit_n(7)
		for _ in emit:batches() do end
		local bad = w.grep{root = "/nonexistent-root-for-snapshot", pattern = "x"}
		assert(bad:await() == nil)
		local want = {[sum:id()] = "55", [emit:id()] = "7 items"}
		local seen = 0
		for _, c in ipairs(w.snapshot().completed) do
			if want[c.id] then
				assert(c.result == want[c.id], c.id .. ": " .. tostring(c.result))
				seen = seen + 1
			elseif c.id == bad:id() then
				assert(c.result == nil and c.error ~= nil, tostring(c.result))
				seen = seen + 1
			end
		end
		assert(seen == 3, "rows seen: " .. seen)
	`)
	require.NoError(t, task.Err(), "stderr:\n%s", h.stderr.String())
}
