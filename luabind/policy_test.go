//go:build unix

package luabind

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/runtime"
)

type policyCall struct {
	api  string
	argv []string
	dir  string
}

// policyHarness is a harness whose binding asks a policy that refuses the
// program "refused" and runs echo for the program "alias".
func policyHarness(t *testing.T) (*harness, *[]policyCall) {
	t.Helper()
	echo, err := exec.LookPath("echo")
	require.NoError(t, err)
	var calls []policyCall
	h := &harness{}
	rt, err := runtime.New(runtime.Options{})
	require.NoError(t, err)
	h.rt = rt
	b, err := New(rt, Options{Stdout: &h.stdout, Stderr: &h.stderr, ProgramPolicy: func(api string, argv []string, dir string) (string, error) {
		calls = append(calls, policyCall{api, argv, dir})
		switch argv[0] {
		case "refused":
			return "", errors.New("refused is inside the untrusted folder /proj")
		case "alias":
			return echo, nil
		}
		return "", nil
	}})
	require.NoError(t, err)
	h.b = b
	t.Cleanup(func() {
		b.Close()
		rt.Close()
	})
	return h, &calls
}

// Issue 25, workspace trust: the host's program policy is asked at every
// process start the binding offers, with the API, the argv and the working
// directory; a refusal is a Lua error for spawn and system (as their other
// spec mistakes are) and nil plus the message for lsp.start and
// mcp.connect (as a program that cannot start is), each naming the API.
func TestProgramPolicyIsAskedAtEveryProcessStart(t *testing.T) {
	h, calls := policyHarness(t)
	dir := t.TempDir()
	res := runOK(t, h, `
		local w, DIR = pmacs.workers, ...
		local out = {}
		local ok, err = pcall(w.spawn, {cmd = {"refused", "a"}, cwd = "/somewhere"})
		out[#out + 1] = tostring(ok) .. " " .. err
		ok, err = pcall(w.system, {cmd = {"refused"}})
		out[#out + 1] = tostring(ok) .. " " .. err
		local c, cerr = pmacs.lsp.start{cmd = {"refused", "serve"}, root = "`+dir+`"}
		out[#out + 1] = tostring(c) .. " " .. cerr
		local s, serr = pmacs.mcp.connect{cmd = {"refused"}, cwd = "/mcp"}
		out[#out + 1] = tostring(s) .. " " .. serr
		return unpack(out)
	`)
	require.Equal(t, []lua.LValue{
		lua.LString("false test.lua:4: pmacs.workers.spawn: refused is inside the untrusted folder /proj"),
		lua.LString("false test.lua:6: pmacs.workers.system: refused is inside the untrusted folder /proj"),
		lua.LString("nil pmacs.lsp.start: refused is inside the untrusted folder /proj"),
		lua.LString("nil pmacs.mcp.connect: refused is inside the untrusted folder /proj"),
	}, res)
	require.Equal(t, []policyCall{
		{"pmacs.workers.spawn", []string{"refused", "a"}, "/somewhere"},
		{"pmacs.workers.system", []string{"refused"}, ""},
		{"pmacs.lsp.start", []string{"refused", "serve"}, dir},
		{"pmacs.mcp.connect", []string{"refused"}, "/mcp"},
	}, *calls)
}

// Issue 25, workspace trust: what runs is the file the policy chose, not
// whatever a later PATH search would find for argv[0]; a URL connection
// and an empty cmd are not programs to ask about.
func TestProgramPolicyChoosesTheFileThatRuns(t *testing.T) {
	h, calls := policyHarness(t)
	res := runOK(t, h, `
		local w = pmacs.workers
		local r = w.system{cmd = {"alias", "from", "echo"}}:await()
		local lines = {}
		for batch in w.spawn{cmd = {"alias", "spawned"}}:batches() do
			for _, it in ipairs(batch) do lines[#lines + 1] = it.text end
		end
		local _, err = w.system{cmd = {}}:await()
		local s = pmacs.mcp.connect{url = "http://127.0.0.1:1/mcp", timeout_ms = 1}
		s:close()
		return r.stdout, table.concat(lines, ","), err ~= nil
	`)
	require.Equal(t, []lua.LValue{lua.LString("from echo\n"), lua.LString("spawned"), lua.LTrue}, res)
	require.Len(t, *calls, 2, "asked for the two programs only")
}
