package luabind

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// A server that crashes is restarted and gets the document back with the
// text the script synced (opened with text of its own, then changed), not
// the file on disk (lifecycle: restart reopens the documents). The fake
// server publishes the text it holds as a diagnostic.
func TestLSPRestartReopensWithSyncedText(t *testing.T) {
	h := lspHarness(t)
	path := filepath.Join(t.TempDir(), "a.go")
	require.NoError(t, os.WriteFile(path, []byte("text on disk"), 0o644))
	h.b.L().SetGlobal("PATH", lua.LString(path))
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR, filetypes = {"go"}})
		local seen = {}
		c:on_diagnostics(function(client, path) seen[#seen + 1] = client:diagnostics(path)[1].message end)
		local function wait_for(n)
			for _ = 1, 10000 do
				if #seen >= n then return seen[#seen] end
				pmacs.workers.sleep(1):await()
			end
			error("no publication " .. n .. "; last: " .. tostring(seen[#seen]))
		end
		assert(c:open(PATH, "hello"))
		assert(wait_for(1) == "hello")
		assert(c:change(PATH, {{line = 0, col = 1, end_line = 0, end_col = 3, text = "EE"}}))
		assert(wait_for(2) == "hEElo")
		c:notify("test/crash")
		local after = wait_for(3)
		assert(after == "hEElo", "reopened with: " .. after)
		assert(c:status().state == "running", c:status().state)
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}

// A language server's own progress is a row of *workers* while it runs
// (notifications: $/progress visible in *workers*), seen from Lua.
func TestLSPProgressInWorkersSnapshot(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		local function progress_rows()
			local rows = {}
			for _, a in ipairs(pmacs.workers.snapshot().active) do
				if a.kind == "lsp_request" and a.progress then rows[#rows + 1] = a.progress end
			end
			return rows
		end
		assert(c:request("test/progress"):await())
		local rows = progress_rows()
		assert(#rows == 1 and rows[1] == "Indexing: 1/2 (50%)", table.concat(rows, "; "))
		assert(c:status().progress[1].title == "Indexing")
		assert(c:request("test/progress", {["end"] = true}):await())
		for _ = 1, 1000 do
			if #progress_rows() == 0 then break end
			pmacs.workers.sleep(1):await()
		end
		assert(#progress_rows() == 0, "the ended progress is still shown")
		assert(#c:status().progress == 0)
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}
