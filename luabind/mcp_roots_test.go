//go:build linux

package luabind

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// The MCP reference filesystem server, started to serve the directory
// above the workspace, is told the workspace as the client's only root
// (the runtime's registered roots, by default) and keeps to it: it lists
// only the workspace as allowed and refuses a file beside it. Before, the
// client offered no roots and the server served what its command line
// named. (Issue 25: the MCP client's roots are the workspace roots and
// nothing more.)
func TestLuaMCPFilesystemServerKeepsToTheRoots(t *testing.T) {
	server := testenv.Peer(t, testenv.FilesystemMCP)
	top := t.TempDir()
	testenv.WriteTree(t, top, map[string]string{"proj/in.txt": "inside\n", "beside/secret.txt": "secret\n"})
	proj, err := filepath.EvalSymlinks(filepath.Join(top, "proj"))
	require.NoError(t, err)
	h := newHarness(t, false)
	_, err = h.rt.RegisterRoot(proj)
	require.NoError(t, err)
	res := runOK(t, h, fmt.Sprintf(`
		local top, want = %q, %q
		local s = pmacs.mcp.connect{cmd = {%q, top}, timeout_ms = 20000}
		-- The server asks for the roots once initialized, on its own time.
		local listed
		for _ = 1, 200 do
			listed = assert(s:call("list_allowed_directories", {}):await()).text
			if listed == want then break end
			pmacs.workers.sleep(25):await()
		end
		local inside = assert(s:call("read_text_file", {path = top .. "/proj/in.txt"}):await()).text
		local v, err, code = s:call("read_text_file", {path = top .. "/beside/secret.txt"}):await()
		s:close()
		return listed, inside, v == nil and code, err:find("Access denied", 1, true) ~= nil
	`, top, "Allowed directories:\n"+proj, server))
	require.Equal(t, []lua.LValue{
		lua.LString("Allowed directories:\n" + proj), lua.LString("inside\n"), lua.LString("tool_error"), lua.LTrue,
	}, res, "stderr:\n%s", h.stderr.String())
	_, err = os.Stat(filepath.Join(top, "beside", "secret.txt"))
	require.NoError(t, err)
}
