package editor

import (
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	lua "github.com/yuin/gopher-lua"
)

// prompt is the one-line input on the bottom row. Its callbacks are Lua
// functions; any of them may be nil.
//
// A prompt belongs to the buffer shown when it opened (its owner): showing
// another buffer, or closing the owner, ends it as a cancel would. So a key
// typed in a view is never taken by a prompt that view did not open.
type prompt struct {
	owner    *buffer
	label    string
	text     string
	cursor   int // byte offset in text
	onChange *lua.LFunction
	onSubmit *lua.LFunction
	onCancel *lua.LFunction
	// keys are the script's own prompt keys (Tab completes a path): each
	// is called with the text instead of the key's editing.
	keys map[string]*lua.LFunction
	// hint is drawn dimmed after the text (completion candidates); any
	// edit of the text clears it.
	hint string
}

// Why a prompt ended without a submit: the reason on_cancel receives.
const (
	cancelKey      = "key"      // Esc or C-g
	cancelReplaced = "replaced" // another prompt opened
	cancelSwitch   = "switch"   // another buffer was shown
	cancelClose    = "close"    // its buffer was closed
)

// openPrompt shows a prompt owned by the shown buffer, cancelling one
// already open.
func (e *session) openPrompt(p *prompt) {
	e.cancelPrompt(cancelReplaced)
	p.cursor = len(p.text)
	p.owner = e.cur
	e.prompt = p
}

// cancelPrompt ends the open prompt, if any, and calls its on_cancel with
// why. The prompt is gone before on_cancel runs, so it may open another.
func (e *session) cancelPrompt(why string) {
	p := e.prompt
	if p == nil {
		return
	}
	e.prompt = nil
	if p.onCancel != nil {
		e.callLua(p.onCancel, "prompt on_cancel", lua.LString(why))
	}
}

// closePrompt removes the prompt without calling anything.
func (e *session) closePrompt() { e.prompt = nil }

// promptKey edits the prompt; it reports false for keys the prompt does not
// use, which then go to the buffer's bindings (Up and Down move through
// grep results while the query is being typed).
func (e *session) promptKey(name string, ev *tcell.EventKey) bool {
	p := e.prompt
	old := p.text
	if fn := p.keys[name]; fn != nil {
		e.callLua(fn, "prompt key "+name, lua.LString(p.text))
		return true
	}
	switch name {
	case "Enter":
		e.prompt = nil
		if p.onSubmit != nil {
			e.callLua(p.onSubmit, "prompt on_submit", lua.LString(p.text))
		}
		return true
	case "Esc", "C-g":
		e.cancelPrompt(cancelKey)
		return true
	case "Backspace":
		if p.cursor > 0 {
			_, n := utf8.DecodeLastRuneInString(p.text[:p.cursor])
			p.text = p.text[:p.cursor-n] + p.text[p.cursor:]
			p.cursor -= n
		}
	case "Delete":
		if p.cursor < len(p.text) {
			_, n := utf8.DecodeRuneInString(p.text[p.cursor:])
			p.text = p.text[:p.cursor] + p.text[p.cursor+n:]
		}
	case "Left":
		if p.cursor > 0 {
			_, n := utf8.DecodeLastRuneInString(p.text[:p.cursor])
			p.cursor -= n
		}
	case "Right":
		if p.cursor < len(p.text) {
			_, n := utf8.DecodeRuneInString(p.text[p.cursor:])
			p.cursor += n
		}
	case "Home", "C-a":
		p.cursor = 0
	case "End", "C-e":
		p.cursor = len(p.text)
	case "C-u":
		p.text, p.cursor = p.text[p.cursor:], 0
	case "Tab":
		// Taken so it cannot reach the buffer behind the prompt.
	default:
		if ev.Key() != tcell.KeyRune || ev.Modifiers()&(tcell.ModAlt|tcell.ModMeta|tcell.ModCtrl) != 0 {
			return false
		}
		r := string(ev.Rune())
		p.text = p.text[:p.cursor] + r + p.text[p.cursor:]
		p.cursor += len(r)
	}
	if p.text != old {
		p.hint = ""
		if p.onChange != nil {
			e.callLua(p.onChange, "prompt on_change", lua.LString(p.text))
		}
	}
	return true
}

// promptLabel is the prompt's label as drawn: cut, ending in "…", where it
// would leave less than a third of the row (at least 12 columns) for the
// text, so what the user types always shows.
func (e *session) promptLabel() string {
	label := e.prompt.label
	keep := e.width - max(e.width/3, 12)
	if keep < 2 || displayCol(label, len(label)) <= keep {
		return label
	}
	return label[:byteColAt(label, keep-1)] + "…"
}

// promptSkip is how many bytes of the prompt's text scroll off the left so
// that the cursor stays on the screen.
func (e *session) promptSkip() int {
	p := e.prompt
	label := e.promptLabel()
	room := e.width - displayCol(label, len(label)) - 1
	skip := 0
	for skip < p.cursor && displayCol(p.text[skip:], p.cursor-skip) > room {
		_, n := utf8.DecodeRuneInString(p.text[skip:])
		skip += n
	}
	return skip
}

func (e *session) promptCursorX() int {
	p := e.prompt
	skip := e.promptSkip()
	label := e.promptLabel()
	x := displayCol(label, len(label)) + displayCol(p.text[skip:], p.cursor-skip)
	return min(x, e.width-1)
}
