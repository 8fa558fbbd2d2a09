package editor

import (
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/luabind"
)

// maxMessages bounds the *messages* buffer; the oldest rows go first.
const maxMessages = 5000

// setMessage shows text on the message line (the first line of it).
func (e *session) setMessage(text string, isErr bool) {
	e.msg, e.msgErr = text, isErr
}

// logMessage appends text to *messages*.
func (e *session) logMessage(text string) {
	m := e.messages
	m.appendLines(strings.Split(strings.TrimRight(text, "\n"), "\n"))
	if over := m.lines.len() - maxMessages; over > 0 {
		m.spliceLines(0, over, nil)
	}
	// Keep the newest message in view when *messages* is shown.
	m.cursor = pos{m.lines.len() - 1, 0}
}

// message shows and logs an informational message. An error already on
// the message line stays there until the next key press (the message is
// still logged): a file's "new file" note, say, must not hide why the init
// file failed.
func (e *session) message(text string) {
	if !e.msgErr || e.msg == "" {
		e.setMessage(text, false)
	}
	e.logMessage(text)
}

// reportError shows an error on the message line and logs it, with its
// traceback if there is one, in *messages*. The editor carries on.
func (e *session) reportError(msg, trace string) {
	e.setMessage(msg, true)
	if trace != "" {
		e.logMessage("error: " + msg + "\n" + trace)
	} else {
		e.logMessage("error: " + msg)
	}
}

// reportTaskError reports a task that failed. The binding has already
// written its traceback to *messages* through its Stderr.
func (e *session) reportTaskError(what string, err error) {
	var te *luabind.TaskError
	if errors.As(err, &te) {
		e.setMessage(what+": "+te.Message, true)
		return
	}
	e.reportError(fmt.Sprintf("%s: %v", what, err), "")
}

// messageWriter is where the binding's print and task failure reports go:
// into *messages* instead of the terminal the editor draws on. The binding
// writes only from the main goroutine.
type messageWriter struct {
	e       *session
	partial string
}

func (w *messageWriter) Write(p []byte) (int, error) {
	s := w.partial + string(p)
	i := strings.LastIndexByte(s, '\n')
	if i < 0 {
		w.partial = s
		return len(p), nil
	}
	w.partial = s[i+1:]
	text := s[:i]
	w.e.logMessage(text)
	if first, _, _ := strings.Cut(text, "\n"); strings.HasPrefix(first, "pmacs: task failed: ") {
		w.e.setMessage(strings.TrimPrefix(first, "pmacs: "), true)
	}
	return len(p), nil
}

// callLua calls fn on the main Lua state, protected. An error (with its
// traceback) goes to the message line and *messages*; the editor carries
// on. what names the caller in the report ("key C-s", "open hook").
func (e *session) callLua(fn *lua.LFunction, what string, args ...lua.LValue) bool {
	L := e.L
	// Under Protect, C-g (see interruptOnQuitKey) can stop a binding that
	// never returns.
	err := e.lb.Protect(func() error {
		return L.CallByParam(lua.P{Fn: fn, NRet: 0, Protect: true, Handler: e.tracebackFn}, args...)
	})
	if err == nil {
		return true
	}
	msg, trace := err.Error(), ""
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.Object != nil {
		msg = ae.Object.String()
		if m, t, ok := strings.Cut(msg, "\nstack traceback:"); ok {
			msg, trace = m, "stack traceback:"+t
		}
	}
	e.reportError(what+": "+msg, trace)
	return false
}

// traceback is the message handler of callLua: it appends the Lua stack
// where the error was raised, before the stack unwinds.
func (e *session) traceback(L *lua.LState) int {
	msg := L.Get(1)
	text := lua.LVAsString(msg)
	if text == "" {
		text = msg.String()
	}
	L.Push(lua.LString(text + "\n" + luabind.Traceback(L, 1)))
	return 1
}
