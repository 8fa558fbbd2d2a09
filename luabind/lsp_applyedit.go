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
// server waits on the answer, and the client gives it inside Poll, so the
// hook runs as a task there and must finish without waiting: one that
// waits (or raises) is answered applied = false with the reason.
func (b *Binding) applyEditHook(c *lspClient) func(*protocol.WorkspaceEdit) (bool, string) {
	return func(edit *protocol.WorkspaceEdit) (bool, string) {
		if c.onApply == nil {
			return false, "no on_apply_edit hook is set"
		}
		ud := &lua.LUserData{Value: c, Metatable: b.lsp.mt}
		t := b.Spawn(c.onApply, ud, goToLua(b.ls, edit))
		switch {
		case !t.Done():
			return false, "the on_apply_edit hook waited; it must apply the edit without waiting"
		case t.Err() != nil:
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
}
