//go:build linux

package luabind

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// The MCP Lua API end to end against the real SDK test server (this test
// binary): tools, call with text and structured results, a tool error as
// nil, message, code, progress on a pending call, cancel, resources, read,
// prompts, and calls after close failing with "closed". (Issue 17, Lua.)
func TestLuaMCPConnection(t *testing.T) {
	h := newHarness(t, false)
	res := runOK(t, h, fmt.Sprintf(`
		local s = pmacs.mcp.connect{cmd = {%q}, env = {PMACS_MCPTEST_MODE = "serve"}}
		local tools = assert(s:tools():await())
		local names = {}
		for _, t in ipairs(tools) do names[#names + 1] = t.name end
		table.sort(names)
		local r = assert(s:call("echo", {text = "hi"}):await())
		local sum = assert(s:call("add", {a = 2, b = 3}):await())
		local v, msg, code = s:call("fail"):await()
		assert(v == nil)
		local h = s:call("progress", {steps = 2, hold = true})
		while not s:progress(h) or s:progress(h).count < 2 do pmacs.workers.sleep(5):await() end
		local p = s:progress(h)
		local hp = h:progress()
		assert(hp.count == p.count and hp.progress == p.progress, "h:progress() matches s:progress(h)")
		h:cancel()
		local _, why = h:await()
		assert(h:progress() == nil, "a finished call has no progress")
		local res = assert(s:resources():await())
		local rd = assert(s:read("test://hello"):await())
		local pr = assert(s:prompts():await())
		assert(s:status() == "ready")
		s:close()
		local _, _, after = s:call("echo", {text = "late"}):await()
		return table.concat(names, ","), r.text, sum.structured.sum, msg, code,
			p.progress .. "/" .. p.total .. " " .. p.message, why, res[1].uri, rd.text, pr[1].name, after
	`, os.Args[0]))
	require.Equal(t, []lua.LValue{
		lua.LString("add,big,crash,echo,fail,progress,roots,slow"), lua.LString("hi"), lua.LNumber(5),
		lua.LString(`mcp: tool "fail" reported an error: the tool failed on purpose`), lua.LString("tool_error"),
		lua.LString("2/2 step 2"), lua.LString("cancelled"), lua.LString("test://hello"),
		lua.LString("hello, resource"), lua.LString("greet"), lua.LString("closed"),
	}, res)
}

// A program that is not an MCP server: requests fail with connect_failed
// and a message that says why; a missing program is nil, message.
func TestLuaMCPConnectFailures(t *testing.T) {
	h := newHarness(t, false)
	res := runOK(t, h, fmt.Sprintf(`
		local s = pmacs.mcp.connect{cmd = {%q}, env = {PMACS_MCPTEST_MODE = "garbage"}}
		local v, msg, code = s:tools():await()
		local none, err = pmacs.mcp.connect{cmd = {"/nonexistent/mcp-server"}}
		return v == nil, code, msg:find("not MCP JSON-RPC", 1, true) ~= nil, none == nil, err:find("no such file", 1, true) ~= nil
	`, os.Args[0]))
	require.Equal(t, []lua.LValue{lua.LTrue, lua.LString("connect_failed"), lua.LTrue, lua.LTrue, lua.LTrue}, res)
}

// Every argument mistake is a Lua error that names it.
func TestLuaMCPArgumentErrors(t *testing.T) {
	h := newHarness(t, false)
	for src, want := range map[string]string{
		`pmacs.mcp.connect{}`:                                                                       "exactly one of the fields 'cmd' and 'url'",
		`pmacs.mcp.connect{cmd = {}}`:                                                               "field 'cmd' is empty",
		`pmacs.mcp.connect{cmd = {"x"}, url = "http://h"}`:                                          "exactly one of the fields 'cmd' and 'url'",
		`pmacs.mcp.connect{url = "http://h", cwd = "/"}`:                                            "apply to 'cmd' only",
		`pmacs.mcp.connect{cmd = {"x"}, bogus = 1}`:                                                 "unknown field bogus",
		`pmacs.mcp.connect{cmd = {"x"}, env = {A = 1}}`:                                             "string keys and values",
		`pmacs.mcp.connect{cmd = {"x"}, roots = "/"}`:                                               "field 'roots' expected list of strings",
		`local s = pmacs.mcp.connect{url = "http://127.0.0.1:1"} s:call("t", {f = function() end})`: "has no JSON form",
		`local s = pmacs.mcp.connect{url = "http://127.0.0.1:1"} s:call("t", {}, {bogus = 1})`:      "unknown option bogus",
	} {
		task := h.run(t, src)
		require.ErrorContains(t, task.Err(), want, src)
	}
	safe := newHarness(t, true)
	task := safe.run(t, `pmacs.mcp.connect{cmd = {"x"}}`)
	require.ErrorContains(t, task.Err(), "pmacs.mcp.connect: not allowed with --safe (no program may start)")
}
