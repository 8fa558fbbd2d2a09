package luabind

import "testing"

// TestLSPApplyEditHook covers workspace/applyEdit through client:on_apply_edit:
// the hook gets the WorkspaceEdit as Lua tables and its answer goes back to
// the server (applied, or refused with its reason), also from a hook that
// waits first; a hook that raises, and a client without a hook, refuse
// with a reason that says so.
func TestLSPApplyEditHook(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
		local function answer(edit)
			c:notify("test/apply", edit)
			for _ = 1, 2000 do
				local r = assert(c:request("test/applied"):await())
				if r ~= true then return r end
				pmacs.workers.sleep(1):await()
			end
			error("the server never got an answer")
		end
		local edit = {changes = {["file:///src/a.go"] = {
			{range = {start = {line = 1, character = 2}, ["end"] = {line = 1, character = 4}}, newText = "X"}}}}

		local r = answer(edit)
		assert(r.applied == false and r.failureReason == "no on_apply_edit hook is set", tostring(r.failureReason))

		local got, from
		c:on_apply_edit(function(client, e)
			got, from = e, client
			return true
		end)
		r = answer(edit)
		assert(r.applied == true and r.failureReason == nil, tostring(r.failureReason))
		local te = got.changes["file:///src/a.go"][1]
		assert(te.newText == "X" and te.range.start.line == 1 and te.range["end"].character == 4, "edit came wrong")
		assert(tostring(from):find("^pmacs%.lsp%.client%("), tostring(from))

		c:on_apply_edit(function() return false, "the file changed" end)
		r = answer(edit)
		assert(r.applied == false and r.failureReason == "the file changed", tostring(r.failureReason))

		-- A hook may wait: the server is answered when it returns.
		local waited = false
		c:on_apply_edit(function() pmacs.workers.sleep(20):await() waited = true return false, "read it first" end)
		r = answer(edit)
		assert(waited, "the answer came before the hook finished")
		assert(r.applied == false and r.failureReason == "read it first", tostring(r.failureReason))
		c:on_apply_edit(function() pmacs.workers.sleep(1):await() error("late boom") end)
		r = answer(edit)
		assert(r.applied == false and r.failureReason:find("late boom", 1, true), tostring(r.failureReason))

		c:on_apply_edit(function() error("boom") end)
		r = answer(edit)
		assert(r.applied == false and r.failureReason:find("boom", 1, true), tostring(r.failureReason))

		c:on_apply_edit(nil)
		r = answer(edit)
		assert(r.applied == false, "no hook applied")
		local ok, err = pcall(c.on_apply_edit, c, 42)
		assert(not ok and err:find("on_apply_edit", 1, true), tostring(err))
		c:stop()
		return "ok"`)
	requireOK(t, h, task)
}

// resource_operations reaches the client's capabilities (lsp covers the
// advertisement); an operation LSP does not define is refused with a
// message, and a value that is not a list of strings raises.
func TestLSPStartResourceOperations(t *testing.T) {
	h := lspHarness(t)
	task := h.run(t, `
		local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR, resource_operations = {"create", "delete"}})
		c:stop()
		local none, err = pmacs.lsp.start{cmd = {FAKE}, root = DIR, resource_operations = {"move"}}
		assert(none == nil and err:find('resource operation "move" is not create, rename or delete', 1, true), tostring(err))
		local ok, raised = pcall(pmacs.lsp.start, {cmd = {FAKE}, root = DIR, resource_operations = "create"})
		assert(not ok and raised:find("resource_operations", 1, true), tostring(raised))
		return "ok"`)
	requireOK(t, h, task)
}
