//go:build linux

package luabind

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// h:batches() on an MCP request hands out the result's array (a tool
// call's content, a listing, a read's contents) LSPBatchSize items at a
// time, in order, as for an LSP result; a result with no array is one batch
// of it, a failed request ends the loop at once and awaits as nil, message,
// code; await still returns the whole result, built off the main
// goroutine. Nothing shaped is left with the host afterwards, even for a
// call superseded by its key.
func TestLuaMCPBatchesHandOutArrayResultsInPieces(t *testing.T) {
	h := newHarness(t, false)
	res := runOK(t, h, fmt.Sprintf(`
		local s = pmacs.mcp.connect{cmd = {%q}, env = {PMACS_MCPTEST_MODE = "bulk"}}
		local n, largest, inorder = 0, 0, true
		local call = s:call("many", {count = 1000})
		for batch in call:batches() do
			largest = math.max(largest, #batch)
			for _, item in ipairs(batch) do
				n = n + 1
				inorder = inorder and item.type == "text" and item.text == "item" .. n
			end
		end
		local sum = assert(call:await())
		local tools = 0
		for batch in s:tools():batches() do tools = tools + #batch end
		local reads = {}
		for batch in s:read("test://hello"):batches() do reads[#reads + 1] = batch[1].text end
		local echoes = {}
		for batch in s:call("echo", {text = "one"}):batches() do echoes[#echoes + 1] = batch[1].text end
		local failed = s:call("fail")
		for _ in failed:batches() do error("a failed call has no batch") end
		local _, _, code = failed:await()
		local whole = assert(s:call("many", {count = 500}):await())
		local ints = assert(s:call("ints", {count = 70000}):await())
		s:call("slow", {seconds = 30}, {key = "k"})
		local last = assert(s:call("echo", {text = "last"}, {key = "k"}):await())
		return n, largest, inorder, sum.method, sum.len, tools, table.concat(reads, ","),
			table.concat(echoes, ","), code, #whole.content, whole.content[500].text,
			#ints.structured.data, ints.structured.data[70000], last.text
	`, os.Args[0]))
	require.Equal(t, []lua.LValue{
		lua.LNumber(1000), lua.LNumber(LSPBatchSize), lua.LTrue, lua.LString("tools/call"), lua.LNumber(1000),
		lua.LNumber(10), lua.LString("hello, resource"), lua.LString("one"), lua.LString("tool_error"),
		lua.LNumber(500), lua.LString("item500"), lua.LNumber(70000), lua.LNumber(69999), lua.LString("last"),
	}, res)
	for id := range runtime.JobID(1000) {
		_, left := h.b.mcp.host.TakeResult(id)
		require.False(t, left, "the shaped result of job %d was left behind", id)
	}
}

// Against the MCP reference filesystem server: a 1 MiB file read through
// read_text_file awaits whole as its text, and h:batches() on the server's
// tool listing hands out the same tools await gives, in batches.
func TestLuaMCPFilesystemServerResultsAwaitAndBatch(t *testing.T) {
	server := testenv.Peer(t, testenv.FilesystemMCP)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	big := strings.Repeat("0123456789abcdef\n", 1<<20/17)
	testenv.WriteTree(t, dir, map[string]string{"big.txt": big})
	h := newHarness(t, false)
	_, err = h.rt.RegisterRoot(dir)
	require.NoError(t, err)
	// A node server starting on a loaded machine under the race
	// detector: a minute is a hang, not load.
	fn, err := h.b.LoadString(fmt.Sprintf(`
		local s = pmacs.mcp.connect{cmd = {%q, %q}, timeout_ms = 60000}
		local text = assert(s:call("read_text_file", {path = %q}):await()).text
		local tools = assert(s:tools():await())
		local n, names = 0, {}
		for batch in s:tools():batches() do
			for _, tool in ipairs(batch) do n = n + 1; names[n] = tool.name end
		end
		s:close()
		return #text, #tools, n, names[1] == tools[1].name and names[n] == tools[#tools].name
	`, server, dir, filepath.Join(dir, "big.txt")), "test.lua")
	require.NoError(t, err)
	task := h.b.Spawn(fn)
	h.drive(t, time.Minute)
	require.NoError(t, task.Err(), h.stderr.String())
	res := task.Results()
	require.Equal(t, lua.LNumber(len(big)), res[0], "stderr:\n%s", h.stderr.String())
	require.Greater(t, float64(res[1].(lua.LNumber)), 3.0)
	require.Equal(t, res[1], res[2])
	require.Equal(t, lua.LTrue, res[3])
}
