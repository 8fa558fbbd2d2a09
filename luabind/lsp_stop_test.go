//go:build linux

package luabind

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/internal/proctest"
)

// Issue 25, client:stop(): the handle stop() returns settles only once the
// server has exited, its whole tree has ended and it has been reaped: when
// the awaiting task resumes, neither the server nor the setsid grandchild
// it started is running or a zombie. The value is the server's exit, and
// every call returns the same handle.
func TestLSPStopHandleSettlesOnceTheServerIsReaped(t *testing.T) {
	h := lspHarness(t)
	dir := t.TempDir()
	pf, spf := filepath.Join(dir, "pid"), filepath.Join(dir, "server")
	prefix, _ := proctest.Hostile(proctest.Grandchild, pf)
	L := h.b.L()
	// The shell writes its own pid, which the server takes over by exec.
	L.SetGlobal("PREFIX", lua.LString("echo $$ > "+spf+"; "+prefix))
	var server, grandchild proctest.Proc
	L.SetGlobal("follow", L.NewFunction(func(L *lua.LState) int {
		server = proctest.Track(t, spf)
		grandchild = proctest.Track(t, pf)
		grandchild.WaitFor(t, "setsid sleep", proctest.Detached("sleep"))
		return 0
	}))
	var atSettle [2]byte
	L.SetGlobal("check", L.NewFunction(func(*lua.LState) int {
		atSettle = [2]byte{server.State(), grandchild.State()}
		return 0
	}))
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {"sh", "-c", PREFIX .. "exec '" .. FAKE .. "'"}, root = DIR})
		assert(c:request("test/echo", {}):await())
		follow()
		local h = c:stop()
		assert(c:stop() == h, "the same handle")
		local v, err = h:await()
		check()
		assert(v, err)
		-- A clean exit, or (a server slowed by a loaded machine past
		-- the stop grace) the grace's SIGTERM: either way reaped.
		assert((v.code == 0 and v.signal == nil) or v.signal == "SIGTERM",
			"exit " .. tostring(v.code) .. " " .. tostring(v.signal))
		assert(c:status().state == "stopped")
		return "ok"`)
	requireOK(t, h, task)
	require.Equal(t, [2]byte{0, 0}, atSettle, "server and grandchild states when the handle settled")
}
