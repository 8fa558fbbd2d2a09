package editor

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/gdamore/tcell/v2"
	lua "github.com/yuin/gopher-lua"
)

// keyName spells a key press the way keymaps name it: "a", "A", "C-s",
// "M-x", "Enter", "Up", "S-Up", "C-Left", "F5". Shift is spelled only on
// keys that have no shifted character of their own.
func keyName(ev *tcell.EventKey) string {
	mod := ev.Modifiers()
	k := ev.Key()
	var base string
	switch {
	case k == tcell.KeyRune:
		r := ev.Rune()
		if r == ' ' {
			base = "Space"
		} else {
			base = string(r)
		}
		mod &^= tcell.ModShift
	case k >= tcell.KeyCtrlA && k <= tcell.KeyCtrlZ:
		base = string(rune('a' + k - tcell.KeyCtrlA))
		mod |= tcell.ModCtrl
	case k == tcell.KeyCtrlSpace:
		base, mod = "Space", mod|tcell.ModCtrl
	case k == tcell.KeyBackspace || k == tcell.KeyBackspace2:
		base = "Backspace"
	case k == tcell.KeyEnter:
		base = "Enter"
	case k == tcell.KeyTab:
		base = "Tab"
	case k == tcell.KeyEsc:
		base = "Esc"
	case k > 0 && k < 0x20:
		// A raw control code the terminal layer did not name.
		base, mod = string(rune('a'+k-1)), mod|tcell.ModCtrl
	default:
		name, ok := tcell.KeyNames[k]
		if !ok {
			return ""
		}
		base = name
	}
	var sb strings.Builder
	if mod&tcell.ModCtrl != 0 {
		sb.WriteString("C-")
	}
	if mod&(tcell.ModAlt|tcell.ModMeta) != 0 {
		sb.WriteString("M-")
	}
	if mod&tcell.ModShift != 0 {
		sb.WriteString("S-")
	}
	sb.WriteString(base)
	return sb.String()
}

// normalizeKey accepts the spellings people write ("Ctrl-S", "c-s",
// "<C-s>", "ctrl+s", "Alt-x", "return") and returns keyName's.
func normalizeKey(s string) string {
	if s == " " {
		return "Space"
	}
	s = strings.TrimSpace(s)
	// "<C-s>", as Vim writes keys; "M->" is Alt and ">", not a bracket.
	if len(s) > 2 && s[0] == '<' && s[len(s)-1] == '>' {
		s = s[1 : len(s)-1]
	}
	if s == "" {
		return ""
	}
	var prefix string
	for {
		lower := strings.ToLower(s)
		cut := 0
		for _, m := range []struct{ spelled, canon string }{
			{"ctrl-", "C-"}, {"ctrl+", "C-"}, {"c-", "C-"},
			{"alt-", "M-"}, {"alt+", "M-"}, {"meta-", "M-"}, {"m-", "M-"}, {"a-", "M-"},
			{"shift-", "S-"}, {"shift+", "S-"}, {"s-", "S-"},
		} {
			if strings.HasPrefix(lower, m.spelled) && len(s) > len(m.spelled) {
				if !strings.Contains(prefix, m.canon) {
					prefix += m.canon
				}
				cut = len(m.spelled)
				break
			}
		}
		if cut == 0 {
			break
		}
		s = s[cut:]
	}
	if len([]rune(s)) == 1 {
		r := []rune(s)[0]
		if strings.Contains(prefix, "C-") {
			r = unicode.ToLower(r)
		}
		if r == ' ' {
			return orderMods(prefix) + "Space"
		}
		return orderMods(prefix) + string(r)
	}
	lower := strings.ToLower(s)
	if alias, ok := map[string]string{
		"return": "Enter", "ret": "Enter", "cr": "Enter", "escape": "Esc", "bs": "Backspace",
		"del": "Delete", "pageup": "PgUp", "pagedown": "PgDn", "space": "Space", "spc": "Space",
	}[lower]; ok {
		return orderMods(prefix) + alias
	}
	for _, name := range tcell.KeyNames {
		if strings.ToLower(name) == lower {
			return orderMods(prefix) + name
		}
	}
	return orderMods(prefix) + s
}

// orderMods puts modifiers in keyName's order: C-, M-, S-.
func orderMods(p string) string {
	var sb strings.Builder
	for _, m := range []string{"C-", "M-", "S-"} {
		if strings.Contains(p, m) {
			sb.WriteString(m)
		}
	}
	return sb.String()
}

// binding is what a key does in one scope: the Lua function, the
// description F1 lists, and when it was bound (F1 lists in that order).
type binding struct {
	fn   *lua.LFunction
	desc string
	seq  int
}

// keymaps holds Lua bindings: global ones, the views' ones and per-buffer
// ones.
type keymaps struct {
	global map[string]binding
	// view holds the bindings of every view (a read-only buffer with no
	// file: the lists, *keys*, *messages*): q and Esc close them all
	// without each module binding them on each buffer it makes.
	view   map[string]binding
	buffer map[int]map[string]binding
	seq    int
}

func (k *keymaps) init() {
	k.global = map[string]binding{}
	k.view = map[string]binding{}
	k.buffer = map[int]map[string]binding{}
}

// isView reports whether b takes the "view" scope's bindings.
func (b *buffer) isView() bool { return b.path == "" && b.readOnly }

// lookup finds what key does in b: its own binding, then the views' (if
// b is one), then the global one.
func (k *keymaps) lookup(b *buffer, key string) *lua.LFunction {
	if bd, ok := k.buffer[b.id][key]; ok {
		return bd.fn
	}
	if b.isView() {
		if bd, ok := k.view[key]; ok {
			return bd.fn
		}
	}
	return k.global[key].fn
}

// builtinKeys describes what the core does with a key no script bound
// (defaultKey, handleKey), and the mouse, for ed.keys and so F1.
var builtinKeys = []struct{ key, desc string }{
	{"Up", "move"}, {"Down", "move"}, {"Left", "move"}, {"Right", "move"},
	{"Home", "move"}, {"End", "move"}, {"PgUp", "move"}, {"PgDn", "move"},
	{"C-Home", "move"}, {"C-End", "move"}, {"C-a", "move to the start of the line"}, {"C-e", "move to the end of the line"},
	{"Enter", "insert a line break (over the selection)"}, {"Tab", "insert a tab (over the selection)"},
	{"Backspace", "delete the character before the cursor, or the selection"},
	{"Delete", "delete the character under the cursor, or the selection"},
	{"C-z", "undo"}, {"C-y", "redo"}, {"C-s", "save"}, {"C-q", "quit (again within 3 s with unsaved changes)"},
	{"C-g", "interrupt a runaway script; cancel a prompt"},
	{"mouse", "click: place the cursor; drag: select; wheel: scroll"},
}

// handleEvent takes one terminal event.
func (e *session) handleEvent(ev tcell.Event) {
	switch ev := ev.(type) {
	case *tcell.EventKey:
		if e.paste != nil {
			e.paste.add(ev)
			return
		}
		e.handleKey(ev)
	case *tcell.EventResize:
		e.scr.Sync()
		e.width, e.height = e.scr.Size()
		e.invalidate()
	case *tcell.EventMouse:
		e.handleMouse(ev)
	case *tcell.EventPaste:
		if ev.Start() {
			e.paste = &paste{}
			return
		}
		if e.paste != nil {
			text := e.paste.sb.String()
			e.paste = nil
			e.pasteText(text)
		}
	}
}

// paste collects the keys of a bracketed paste (the terminal's own paste,
// from the system clipboard) into text.
type paste struct {
	sb     strings.Builder
	lastCR bool
}

func (p *paste) add(ev *tcell.EventKey) {
	cr := false
	switch ev.Key() {
	case tcell.KeyRune:
		p.sb.WriteRune(ev.Rune())
	case tcell.KeyEnter: // a CR
		p.sb.WriteByte('\n')
		cr = true
	case tcell.KeyLF:
		if !p.lastCR { // CRLF is one line break
			p.sb.WriteByte('\n')
		}
	case tcell.KeyTab:
		p.sb.WriteByte('\t')
	}
	p.lastCR = cr
}

// pasteText inserts what the terminal pasted as text, never as keys: a
// pasted "c" must not cancel a job in *workers*, nor a line break submit a
// prompt. Into a prompt it goes as one line (line breaks become spaces);
// into a buffer it replaces the selection, as one undo step.
func (e *session) pasteText(text string) {
	if text == "" {
		return
	}
	e.setMessage("", false)
	if p := e.prompt; p != nil {
		text = strings.NewReplacer("\n", " ", "\t", " ").Replace(text)
		p.text = p.text[:p.cursor] + text + p.text[p.cursor:]
		p.cursor += len(text)
		p.hint = ""
		if p.onChange != nil {
			e.callLua(p.onChange, "prompt on_change", lua.LString(p.text))
		}
		return
	}
	b := e.cur
	if err := b.keyEditable("paste"); err != nil {
		e.setMessage(err.Error(), true)
		return
	}
	s, en, ok := b.selection()
	if !ok {
		s, en = b.cursor, b.cursor
	}
	b.undo.seal()
	b.edit(s, en, text, false)
}

// handleKey routes a key: the prompt's line editing first, then the shown
// buffer's bindings, the global bindings, and last the built-in behaviour.
func (e *session) handleKey(ev *tcell.EventKey) {
	name := keyName(ev)
	if name == "" {
		return
	}
	if name == "C-g" && e.prompt == nil && e.keys.lookup(e.cur, name) == nil {
		// Unbound C-g is keyboard-quit: it has already interrupted any
		// runaway Lua (interruptOnQuitKey), so keep the message saying so;
		// it also cancels the task trees the last command started.
		if n := e.lb.CancelTasks(e.commandTasks, "C-g"); n > 0 {
			e.setMessage(fmt.Sprintf("C-g: cancelled %d task(s) of the last command, with their jobs", n), false)
		}
		e.commandTasks = nil
		return
	}
	// The tasks a key's binding (or the prompt it answers) starts are the
	// task trees behind the current command, which C-g cancels.
	e.lb.BeginCommand()
	defer func() {
		if ts := e.lb.EndCommand(); len(ts) > 0 {
			e.commandTasks = ts
		}
	}()
	// Like Emacs, a key press clears the last message.
	e.setMessage("", false)
	if e.prompt != nil && e.promptKey(name, ev) {
		return
	}
	if fn := e.keys.lookup(e.cur, name); fn != nil {
		e.callLua(fn, "key "+name, lua.LNumber(e.cur.id))
		return
	}
	e.defaultKey(name, ev)
}

// defaultKey is what a key does when nothing is bound to it: move, edit
// (in a buffer that allows it), and a few commands that must work even when
// init.lua failed to load.
func (e *session) defaultKey(name string, ev *tcell.EventKey) {
	b := e.cur
	if how, ok := movementKeys[name]; ok {
		e.moveCursor(b, how)
		return
	}
	var err error
	switch name {
	case "Enter":
		err = b.insert("\n")
	case "Tab":
		err = b.insert("\t")
	case "Backspace":
		err = b.deleteBack()
	case "Delete":
		err = b.deleteForward()
	case "C-z":
		if !b.undoStep() {
			e.setMessage("nothing to undo", false)
		}
	case "C-y":
		if !b.redoStep() {
			e.setMessage("nothing to redo", false)
		}
	case "C-s":
		e.save(b, nil, false, false)
	case "C-q":
		e.requestQuit(false)
	default:
		if ev.Key() == tcell.KeyRune && ev.Modifiers()&(tcell.ModAlt|tcell.ModMeta|tcell.ModCtrl) == 0 {
			err = b.insert(string(ev.Rune()))
		} else {
			e.setMessage(name+" is not bound", false)
		}
	}
	if err != nil {
		e.setMessage(err.Error(), true)
	}
}

// movementKeys are the built-in movement keys and the movement each makes
// (as pmacs.editor.move names it).
var movementKeys = map[string]string{
	"Up": "up", "Down": "down", "Left": "left", "Right": "right",
	"Home": "home", "C-a": "home", "End": "end", "C-e": "end",
	"PgUp": "pgup", "PgDn": "pgdn", "C-Home": "top", "C-End": "bottom",
}

// movements lists what moveCursor accepts, for error messages.
const movements = "up, down, left, right, home, end, pgup, pgdn, top, bottom"

// moveCursor moves b's cursor as the movement keys do; it reports false
// for a movement it does not know.
func (e *session) moveCursor(b *buffer, how string) bool {
	switch how {
	case "up":
		e.moveVert(b, -1)
	case "down":
		e.moveVert(b, 1)
	case "left":
		e.moveHoriz(b, -1)
	case "right":
		e.moveHoriz(b, 1)
	case "home":
		b.setCursor(pos{b.cursor.Row, 0})
		b.wantCol = -1
	case "end":
		b.setCursor(pos{b.cursor.Row, len(b.lines.row(b.cursor.Row))})
		b.wantCol = -1
	case "pgup":
		e.movePage(b, -1)
	case "pgdn":
		e.movePage(b, 1)
	case "top":
		b.setCursor(pos{})
	case "bottom":
		b.setCursor(pos{b.lines.len() - 1, len(b.lines.row(b.lines.len() - 1))})
	default:
		return false
	}
	return true
}

// requestQuit quits, or, with unsaved file buffers and not force, warns
// once; a second request within a few seconds quits anyway.
func (e *session) requestQuit(force bool) bool {
	if !force && time.Since(e.quitAsked) > 3*time.Second {
		for _, id := range e.order {
			if b := e.bufs[id]; b.path != "" && b.Modified() {
				e.quitAsked = time.Now()
				e.setMessage(b.name+" has unsaved changes; quit again to discard them", true)
				return false
			}
		}
	}
	e.quitting = true
	return true
}
