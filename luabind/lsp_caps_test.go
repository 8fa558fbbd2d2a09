package luabind

import (
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// client:supports, client:capabilities and client:registrations show what
// the server announced at initialize and registered since.
func TestLSPClientCapabilitiesFromLua(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		assert(c:request("test/echo", {}):await())
		local before = {c:supports("textDocument/hover"), c:supports("textDocument/formatting"),
			c:supports("inlayHint/resolve"), c:supports("custom/method")}
		local caps = c:capabilities()
		assert(c:request("test/register", {registrations = {
			{id = "f", method = "textDocument/formatting", registerOptions = {documentSelector = {{language = "go"}}}}}}):await())
		local regs
		for i = 1, 200 do
			regs = c:registrations()
			if #regs > 0 then break end
			pmacs.async.sleep(5)
		end
		local ok, err = pcall(c.supports, c)
		c:stop()
		return before[1], before[2], before[3], before[4], caps.inlayHintProvider.resolveProvider,
			regs[1].method, regs[1].options.documentSelector[1].language, c:supports("textDocument/formatting"), err`)
	require.NoError(t, task.Err(), h.stderr.String())
	r := task.Results()
	require.Equal(t, []lua.LValue{lua.LTrue, lua.LFalse, lua.LTrue, lua.LTrue, lua.LTrue,
		lua.LString("textDocument/formatting"), lua.LString("go"), lua.LTrue}, r[:8])
	require.Contains(t, r[8].String(), "client:supports")
}
