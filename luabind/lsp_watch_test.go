package luabind

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// From Lua: the watchers a server registers show in client:watchers() and
// start the on_watchers hook; client:file_changes takes a w.watch batch
// (create, write, remove, rename; chmod and notices are no change) and
// tells the server the changes its globs want; a malformed change raises
// with what is wrong; stopping the client runs the hook again, with no
// watchers left.
func TestLSPFileWatchersFromLua(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR, watch_files = true})
		assert(c:root() == DIR, c:root())
		-- A table: the hook runs as a task of its own.
		local seen = {}
		c:on_watchers(function(client)
			assert(client == c, "the hook gets the client start returned")
			seen[#seen + 1] = #client:watchers()
		end)
		assert(c:request("test/register", {registrations = {{id = "w", method = "workspace/didChangeWatchedFiles",
			registerOptions = {watchers = {{globPattern = "**/*.go"}, {globPattern = "**/go.mod", kind = 4}}}}}}):await())
		for i = 1, 400 do
			if #seen > 0 then break end
			pmacs.async.sleep(5)
		end
		assert(#seen == 1 and seen[1] == 2, "the hook saw the watchers")
		local ws = c:watchers()
		assert(ws[1].glob == "**/*.go" and ws[1].kind == 7 and ws[1].id == "w", ws[1].glob)
		assert(ws[2].kind == 4)
		local n = assert(c:file_changes({
			{path = DIR .. "/a.go", op = "create", dir = false},
			{path = DIR .. "/b.go", op = "write"},
			{path = DIR .. "/c.go", op = "rename"},
			{path = DIR .. "/d.go", op = "chmod"},
			{path = DIR, op = "notice", notice = "overflow"},
			{path = DIR .. "/go.mod", op = "write"},
			{path = DIR .. "/go.mod", type = 3},
			{path = DIR .. "/a.txt", op = "create"},
		}))
		assert(n == 4, "sent " .. n)
		local bad = {}
		for i, arg in ipairs({"x", {"x"}, {{op = "create"}}, {{path = "/x", op = "touch"}}, {{path = "/x", type = 4}}}) do
			local ok, err = pcall(c.file_changes, c, arg)
			assert(not ok)
			bad[i] = err
		end
		local got = assert(c:request("test/watched", {}):await())
		c:stop()
		for i = 1, 400 do
			if #seen > 1 then break end
			pmacs.async.sleep(5)
		end
		return #got, got[1].type, got[2].type, got[3].type, got[4].type, got[4].uri:match("go%.mod$") ~= nil,
			seen[#seen], bad[1], bad[2], bad[3], bad[4], bad[5]`)
	require.NoError(t, task.Err(), h.stderr.String())
	r := task.Results()
	var head []string
	for _, v := range r[:7] {
		head = append(head, v.String())
	}
	require.Equal(t, "4 1 2 3 3 true 0", strings.Join(head, " "))
	require.Contains(t, r[7].String(), "client:file_changes")
	require.Contains(t, r[8].String(), "change 1 is a string")
	require.Contains(t, r[9].String(), "change 1 has no path")
	require.Contains(t, r[10].String(), `op "touch" is none of`)
	require.Contains(t, r[11].String(), "type 4 is not 1 (created)")
}
