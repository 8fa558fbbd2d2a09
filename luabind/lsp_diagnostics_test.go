package luabind

import (
	"testing"
)

// A publication past lsp.MaxDiagnostics reaches Lua as its first 10,000
// rows, in the server's order, with dropped counting the rest; the client
// goes on answering, and a list that lost nothing has no dropped field.
func TestLSPDiagnosticsFloodIsCutAndCounted(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		local path = DIR .. "/flood.go"
		assert(c:request("test/bigDiagnostics", {uri = "file://" .. path, n = 10003}):await())
		local ds = c:diagnostics(path)
		for _ = 1, 5000 do
			if #ds > 0 then break end
			pmacs.workers.sleep(1):await()
			ds = c:diagnostics(path)
		end
		assert(#ds == 10000, "kept " .. #ds)
		assert(ds.dropped == 3, "dropped " .. tostring(ds.dropped))
		assert(ds[1].message == "diagnostic 0" and ds[10000].message == "diagnostic 9999", ds[10000].message)
		assert(c:request("test/echo", {after = true}):await().after)
		assert(c:request("test/bigDiagnostics", {uri = "file://" .. path, n = 2}):await())
		ds = c:diagnostics(path)
		assert(#ds == 2 and ds.dropped == nil, #ds .. " " .. tostring(ds.dropped))
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}

// The client an on_diagnostics hook gets is the value pmacs.lsp.start
// returned (equal to it, usable as a table key), not a second wrapper of
// the same client: a script serving several clients tells them apart so.
func TestLSPDiagnosticsHookGetsTheSameClient(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		local got = pmacs.async.future()
		c:on_diagnostics(function(client) if not got:done() then got:set(client) end end)
		local path = DIR .. "/same.go"
		assert(c:request("test/bigDiagnostics", {uri = "file://" .. path, n = 2}):await())
		local client = got:await()
		assert(rawequal(client, c), "the hook got another value than the client")
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}
