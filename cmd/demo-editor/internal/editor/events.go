package editor

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// The events scripts can hook with pmacs.editor.on.
var eventNames = []string{"start", "open", "loaded", "change", "view", "show", "cursor", "frame", "resource", "save", "close", "trust"}

// event is something scripts may react to. Events are queued while Go code
// runs and delivered at one point of the loop (settle), so a hook never
// runs inside another primitive and a burst of edits costs one "change".
type event struct {
	name        string
	buf         int
	path        string // "start": the path; "trust": the workspace's status; "close": the file
	top, bottom int    // "view": the rows shown; "close", "cursor": the cursor's row and column
	op          runtime.ResourceOp
}

type hook struct {
	fn  *lua.LFunction
	buf int // 0: every buffer
}

type hooks struct {
	byName map[string][]hook
}

func (h *hooks) add(name string, fn *lua.LFunction, buf int) {
	if h.byName == nil {
		h.byName = map[string][]hook{}
	}
	h.byName[name] = append(h.byName[name], hook{fn: fn, buf: buf})
}

// remove drops fn from name's hooks; it reports whether it was there.
func (h *hooks) remove(name string, fn *lua.LFunction) bool {
	list := h.byName[name]
	for i, k := range list {
		if k.fn == fn {
			h.byName[name] = append(list[:i:i], list[i+1:]...)
			return true
		}
	}
	return false
}

// dropBuffer forgets the hooks bound to a closed buffer.
func (h *hooks) dropBuffer(buf int) {
	for name, list := range h.byName {
		kept := list[:0]
		for _, k := range list {
			if k.buf != buf {
				kept = append(kept, k)
			}
		}
		h.byName[name] = kept
	}
}

// hasFrame reports whether buf has its own frame hook: while it is shown,
// the loop runs a frame every frame target even with nothing else to do.
func (h *hooks) hasFrame(buf int) bool {
	for _, k := range h.byName["frame"] {
		if k.buf == buf {
			return true
		}
	}
	return false
}

func (e *session) raise(ev event) { e.events = append(e.events, ev) }

// maxSettleRounds bounds how many times hooks raising events in turn are
// followed in one loop iteration; what is left waits for the next one.
const maxSettleRounds = 8

// settle brings the view up to date and delivers the queued events:
// "change" for file buffers edited since the last settle, "show" when the
// window shows another buffer, "view" when the window's rows moved,
// "cursor" when the shown buffer or its cursor did, and whatever Go code
// raised.
func (e *session) settle() {
	for range maxSettleRounds {
		for _, id := range e.order {
			b := e.bufs[id]
			if b.path != "" && !b.loading && b.rev != b.notifiedRev {
				b.notifiedRev = b.rev
				e.raise(event{name: "change", buf: b.id})
			}
		}
		if e.cur.id != e.shownSent {
			e.shownSent = e.cur.id
			e.raise(event{name: "show", buf: e.cur.id})
		}
		e.scrollToCursor(e.cur)
		view := [2]int{e.cur.top, e.cur.top + e.windowHeight()}
		if sent, ok := e.viewSent[e.cur.id]; !ok || sent != view {
			e.viewSent[e.cur.id] = view
			e.raise(event{name: "view", buf: e.cur.id, top: view[0], bottom: view[1]})
		}
		if e.cursorSent.buf != e.cur.id || e.cursorSent.at != e.cur.cursor {
			e.cursorSent.buf, e.cursorSent.at = e.cur.id, e.cur.cursor
			e.raise(event{name: "cursor", buf: e.cur.id, top: e.cur.cursor.Row, bottom: e.cur.cursor.Col})
		}
		if len(e.events) == 0 {
			return
		}
		evs := e.events
		e.events = nil
		for _, ev := range evs {
			e.deliver(ev)
		}
	}
}

func (e *session) deliver(ev event) {
	list := e.hooks.byName[ev.name]
	if len(list) == 0 {
		return
	}
	var args []lua.LValue
	switch ev.name {
	case "start", "trust":
		args = []lua.LValue{lua.LString(ev.path)}
	case "view", "cursor":
		args = []lua.LValue{lua.LNumber(ev.buf), lua.LNumber(ev.top), lua.LNumber(ev.bottom)}
	case "close":
		// top and bottom carry the cursor's row and column.
		args = []lua.LValue{lua.LNumber(ev.buf), lua.LNil, lua.LNumber(ev.top), lua.LNumber(ev.bottom)}
		if ev.path != "" {
			args[1] = lua.LString(ev.path)
		}
	case "resource":
		t := e.L.CreateTable(0, 3)
		t.RawSetString("op", lua.LString(ev.op.Op.String()))
		t.RawSetString("from", lua.LString(ev.op.From))
		if ev.op.To != "" {
			t.RawSetString("to", lua.LString(ev.op.To))
		}
		args = []lua.LValue{t}
	default:
		args = []lua.LValue{lua.LNumber(ev.buf)}
	}
	// A hook may add or remove hooks: run over the list as it was.
	for _, k := range append([]hook(nil), list...) {
		if k.buf != 0 && ev.buf != k.buf {
			continue
		}
		if ev.buf != 0 && e.bufs[ev.buf] == nil && ev.name != "close" {
			return // a hook closed the buffer
		}
		e.callLua(k.fn, ev.name+" hook", args...)
	}
}
