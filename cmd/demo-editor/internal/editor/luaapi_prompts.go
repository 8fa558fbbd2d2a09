package editor

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// ---- prompts and messages ----

func (e *session) luaPrompt(L *lua.LState) int {
	const fname = "prompt"
	label := strArg(L, fname, 1, "label")
	t := optTable(L, fname, 2, "opts", "on_change", "on_submit", "on_cancel", "text", "keys")
	p := &prompt{
		label:    label,
		onChange: optFn(L, fname, t, "on_change"),
		onSubmit: optFn(L, fname, t, "on_submit"),
		onCancel: optFn(L, fname, t, "on_cancel"),
	}
	if t != nil {
		if s, ok := t.RawGetString("text").(lua.LString); ok {
			p.text = string(s)
		}
		switch kt := t.RawGetString("keys").(type) {
		case *lua.LNilType:
		case *lua.LTable:
			p.keys = map[string]*lua.LFunction{}
			kt.ForEach(func(k, v lua.LValue) {
				ks, ok1 := k.(lua.LString)
				fn, ok2 := v.(*lua.LFunction)
				if !ok1 || !ok2 || normalizeKey(string(ks)) == "" {
					L.RaiseError("pmacs.editor.prompt: option 'keys' maps key names to functions, got %s = %s", k.Type(), v.Type())
				}
				p.keys[normalizeKey(string(ks))] = fn
			})
		default:
			L.RaiseError("pmacs.editor.prompt: option 'keys' expected a table, got %s", kt.Type())
		}
	}
	e.openPrompt(p)
	return 0
}

// luaSetPromptText replaces the open prompt's text (the cursor goes to its
// end) without calling on_change; it returns false when no prompt is open.
func (e *session) luaSetPromptText(L *lua.LState) int {
	text := strArg(L, "set_prompt_text", 1, "text")
	if e.prompt == nil {
		return push(L, lua.LFalse)
	}
	e.prompt.text, e.prompt.cursor = text, len(text)
	return push(L, lua.LTrue)
}

// luaSetPromptHint shows text dimmed after the open prompt's text until the
// text is next edited; it returns false when no prompt is open.
func (e *session) luaSetPromptHint(L *lua.LState) int {
	hint := strArg(L, "set_prompt_hint", 1, "hint")
	if e.prompt == nil {
		return push(L, lua.LFalse)
	}
	e.prompt.hint = hint
	return push(L, lua.LTrue)
}

func (e *session) luaPromptText(L *lua.LState) int {
	if e.prompt == nil {
		return push(L, lua.LNil)
	}
	return push(L, lua.LString(e.prompt.text))
}

func (e *session) luaClosePrompt(L *lua.LState) int {
	e.closePrompt()
	return 0
}

func luaJoin(L *lua.LState) string {
	parts := make([]string, 0, L.GetTop())
	for i := 1; i <= L.GetTop(); i++ {
		parts = append(parts, L.ToStringMeta(L.Get(i)).String())
	}
	return strings.Join(parts, " ")
}

func (e *session) luaMessage(L *lua.LState) int {
	e.message(luaJoin(L))
	return 0
}

func (e *session) luaError(L *lua.LState) int {
	e.reportError(luaJoin(L), "")
	return 0
}

func (e *session) luaSetHelp(L *lua.LState) int {
	e.help = strArg(L, "set_help", 1, "text")
	return 0
}
