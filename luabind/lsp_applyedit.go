package luabind

import (
	lua "github.com/yuin/gopher-lua"
	"go.lsp.dev/protocol"
)

// lspOnApplyEdit is client:on_apply_edit(fn): fn(client, edit) applies a
// server's workspace/applyEdit, edit being the WorkspaceEdit as Lua tables
// in its JSON shape ({changes = {[uri] = {TextEdit...}}} or
// {documentChanges = {...}}), and returns true, or false and the reason.
// nil removes the hook, and the client then refuses such requests.
func (b *Binding) lspOnApplyEdit(L *lua.LState) int {
	c := checkClient(L, "client:on_apply_edit")
	switch v := L.Get(2).(type) {
	case *lua.LFunction:
		c.onApply = v
	case *lua.LNilType:
		c.onApply = nil
	default:
		argError(L, "client:on_apply_edit", 2, "hook", "a function or nil", v)
	}
	return 0
}

// applyEditHook answers workspace/applyEdit for c with its Lua hook. The
// hook runs as a task and may wait (for the text of files not open yet):
// the server is answered when the task ends, with what it returned, or
// refused with the error it raised.
func (b *Binding) applyEditHook(c *lspClient) func(*protocol.WorkspaceEdit, func(bool, string)) {
	return func(edit *protocol.WorkspaceEdit, answer func(bool, string)) {
		if c.onApply == nil {
			answer(false, "no on_apply_edit hook is set")
			return
		}
		t := b.Spawn(c.onApply, c.ud, goToLua(b.ls, edit))
		if t.Done() {
			answer(applyEditAnswer(t))
			return
		}
		t.onDone = func() { answer(applyEditAnswer(t)) }
	}
}

// applyEditAnswer is what an on_apply_edit task that has ended answers.
func applyEditAnswer(t *Task) (bool, string) {
	if t.Err() != nil {
		return false, "the on_apply_edit hook failed: " + t.Err().Error()
	}
	res := t.Results()
	if len(res) > 0 && lua.LVAsBool(res[0]) {
		return true, ""
	}
	if len(res) > 1 {
		if s, ok := res[1].(lua.LString); ok && s != "" {
			return false, string(s)
		}
	}
	return false, "the on_apply_edit hook refused the edit"
}
