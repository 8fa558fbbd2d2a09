package editor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
	"github.com/pmacs-go/pmacs-go/proc"
)

func TestMain(m *testing.M) {
	// The MCP tests start this binary as their server.
	mcptest.RunIfServer()
	// The completion tests start this binary as a scripted language server.
	runFakeLSPIfAsked()
	runPaintFakeLSPIfAsked()
	// The quit tests check that the programs' grandchildren are gone, not
	// zombies of an init that never reaps: the test binary reaps them.
	if err := proc.BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "editor tests: cannot become a subreaper:", err)
		os.Exit(2)
	}
	// No test may read or write the user's own trust decisions: every
	// editor a test starts keeps them in a state directory of its own
	// (tests of trust make one per test).
	state, err := os.MkdirTemp("", "editor-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", state)
	testStateDir = state
	// Nor run the user's own init file: tests of it make their own.
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(state, "config"))
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(state)
		os.Exit(code)
	}))
}

// testStateDir is the state directory TestMain made for the package's
// tests (removed when they end): smokeBinary keeps the command it builds
// there, once for every test that runs it.
var testStateDir string

// harness runs the real editor loop on a simulation screen.
type harness struct {
	t    testing.TB
	scr  tcell.SimulationScreen
	e    *session
	done chan error
}

const (
	screenW = 100
	screenH = 30
	// waitTimeout bounds every wait for the screen: generous, because
	// the race detector slows everything down several times.
	waitTimeout = 10 * time.Second
)

// startEditor starts the editor on a simulation screen of screenW x
// screenH and stops it when the test ends.
func startEditor(t testing.TB, opts Options) *harness {
	return startEditorSized(t, opts, screenW, screenH)
}

func startEditorSized(t testing.TB, opts Options, width, height int) *harness {
	return startEditorWith(t, opts, width, height, false)
}

// startEditorLocked runs the loop on a goroutine locked to its thread.
func startEditorLocked(t testing.TB, opts Options, width, height int) *harness {
	return startEditorWith(t, opts, width, height, true)
}

func startEditorWith(t testing.TB, opts Options, width, height int, lockThread bool) *harness {
	t.Helper()
	scr := tcell.NewSimulationScreen("UTF-8")
	opts.Screen = scr
	e, err := newEditor(opts)
	require.NoError(t, err)
	scr.SetSize(width, height)
	e.width, e.height = scr.Size()
	h := &harness{t: t, scr: scr, e: e, done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// A require that fails inside h.e.call ends this goroutine with
		// runtime.Goexit: the deferred close still stops the editor, so
		// the test fails at once instead of waiting on a dead loop.
		var err error
		defer func() {
			e.close()
			h.done <- err
		}()
		if lockThread {
			goruntime.LockOSThread()
			defer goruntime.UnlockOSThread()
		}
		e.start()
		err = e.loop(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
		case <-time.After(waitTimeout):
			t.Error("editor did not stop")
		}
	})
	return h
}

// rows returns the screen's text, one string per row, read on the main
// goroutine so it never races a draw.
func (h *harness) rows() []string {
	var out []string
	h.e.call(func() { out = screenRows(h.scr) })
	return out
}

func screenRows(scr tcell.SimulationScreen) []string {
	cells, w, hgt := scr.GetContents()
	out := make([]string, hgt)
	for y := range hgt {
		var sb strings.Builder
		for x := range w {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				sb.WriteByte(' ')
				continue
			}
			sb.WriteString(string(c.Runes))
		}
		out[y] = strings.TrimRight(sb.String(), " ")
	}
	return out
}

// waitScreen polls the screen until cond holds, failing after waitTimeout
// with the screen in the message.
func (h *harness) waitScreen(what string, cond func(rows []string) bool) []string {
	h.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		rows := h.rows()
		if cond(rows) {
			return rows
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, strings.Join(rows, "\n"))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitText waits until some row contains text.
func (h *harness) waitText(text string) []string {
	h.t.Helper()
	return h.waitScreen(fmt.Sprintf("%q on screen", text), func(rows []string) bool { return anyContains(rows, text) })
}

func anyContains(rows []string, text string) bool {
	for _, r := range rows {
		if strings.Contains(r, text) {
			return true
		}
	}
	return false
}

// windowRows returns the rows of the text window (without the status,
// help and message lines).
func windowRows(rows []string) []string { return rows[:len(rows)-3] }

// messageLine returns the bottom row.
func messageLine(rows []string) string { return rows[len(rows)-1] }

// until polls cond on the main goroutine.
func (h *harness) until(what string, cond func(e *session) bool) {
	h.t.Helper()
	h.untilWithin(waitTimeout, what, cond)
}

// untilWithin is until with its own bound, for waits on slow peers.
func (h *harness) untilWithin(limit time.Duration, what string, cond func(e *session) bool) {
	h.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var ok bool
		h.e.call(func() { ok = cond(h.e) })
		if ok {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, strings.Join(h.rows(), "\n"))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// post hands ev to the screen, waiting while its event queue (ten events)
// is full: InjectKey would drop the key, and a long typed path under load
// would lose letters.
func (h *harness) post(ev tcell.Event) {
	h.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for h.scr.PostEvent(ev) != nil {
		if time.Now().After(deadline) {
			h.t.Fatalf("the screen's event queue stayed full")
		}
		time.Sleep(time.Millisecond)
	}
}

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.post(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone))
	}
}

func (h *harness) key(k tcell.Key) { h.post(tcell.NewEventKey(k, 0, tcell.ModNone)) }

func (h *harness) ctrl(r rune) { h.post(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModCtrl)) }

func (h *harness) alt(r rune) { h.post(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModAlt)) }
