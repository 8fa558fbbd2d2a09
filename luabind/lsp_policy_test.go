//go:build unix

package luabind

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// Workspace trust: the program policy is asked again before a language
// server is restarted. A workspace untrusted after pmacs.lsp.start keeps
// the crashed server from running again: no second process starts, and
// client:status() says failed with the policy's reason.
func TestLSPRestartAsksTheProgramPolicyAgain(t *testing.T) {
	t.Setenv(fakeServerEnv, "1")
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	var calls []policyCall
	refuse := false
	h := &harness{}
	rt, err := runtime.New(runtime.Options{})
	require.NoError(t, err)
	h.rt = rt
	b, err := New(rt, Options{Stdout: &h.stdout, Stderr: &h.stderr, ProgramPolicy: func(api string, argv []string, dir string) (string, error) {
		calls = append(calls, policyCall{api, argv, dir})
		if refuse {
			return "", errors.New("sh is inside the untrusted folder /proj")
		}
		return "", nil
	}})
	require.NoError(t, err)
	h.b = b
	t.Cleanup(func() {
		b.Close()
		rt.Close()
	})
	L := b.L()
	L.SetGlobal("CMD", lua.LString("echo $$ >> '"+starts+"'; exec '"+exe+"'"))
	L.SetGlobal("DIR", lua.LString(dir))
	L.SetGlobal("untrust", L.NewFunction(func(*lua.LState) int {
		refuse = true
		return 0
	}))
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {"sh", "-c", CMD}, root = DIR})
		assert(c:request("test/echo", {}):await())
		untrust()
		c:notify("test/crash")
		for _ = 1, 5000 do
			local st = c:status()
			if st.error and st.error:find("untrusted folder", 1, true) then
				assert(st.state == "failed", st.state)
				return st.error
			end
			pmacs.workers.sleep(1):await()
		end
		error("the restart was not refused: " .. tostring(c:status().error))`)
	require.True(t, task.Done())
	require.NoError(t, task.Err(), h.stderr.String())
	msg := task.Results()[0].String()
	require.Contains(t, msg, "launch refused")
	require.Contains(t, msg, "pmacs.lsp.start: sh is inside the untrusted folder /proj")
	data, err := os.ReadFile(starts)
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(data), "\n"), "one server process started")
	require.Len(t, calls, 2, "asked at the start and before the restart")
	require.Equal(t, calls[0], calls[1], "asked about the same program both times")
}
