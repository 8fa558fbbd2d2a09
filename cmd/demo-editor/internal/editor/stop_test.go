package editor

import (
	"context"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// Security review, signals: the context that a signal cancels ends the
// editor's loop even while Lua spins in a loop that never waits, in a key
// binding or in tasks a frame resumes one after the other: the loop
// returns the context's error and the session closes. Before, the loop
// saw the context end only between two turns, which a spinning binding
// never finished, so SIGTERM could not stop the editor.
func TestCancelledContextStopsLuaStuckInALoop(t *testing.T) {
	for _, c := range []struct{ name, binding string }{
		{"binding", `function() entered() while true do end end`},
		{"tasks", `function()
			for _ = 1, 3 do
				pmacs.async.run(function() pmacs.workers.sleep(1):await() entered() while true do end end)
			end
		end`},
	} {
		t.Run(c.name, func(t *testing.T) {
			scr := tcell.NewSimulationScreen("UTF-8")
			e, err := newEditor(Options{Path: t.TempDir(), Screen: scr})
			require.NoError(t, err)
			scr.SetSize(screenW, screenH)
			e.width, e.height = scr.Size()
			spinning := make(chan struct{}, 3)
			e.L.SetGlobal("entered", e.L.NewFunction(func(*lua.LState) int {
				spinning <- struct{}{}
				return 0
			}))
			require.NoError(t, e.L.DoString(`pmacs.editor.map("global", "F7", `+c.binding+`)`))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				e.start()
				err := e.loop(ctx)
				e.close()
				done <- err
			}()
			require.NoError(t, scr.PostEvent(tcell.NewEventKey(tcell.KeyF7, 0, tcell.ModNone)))
			select {
			case <-spinning:
			case <-time.After(waitTimeout):
				t.Fatal("the binding never ran")
			}
			cancel()
			select {
			case err := <-done:
				require.ErrorIs(t, err, context.Canceled)
			case <-time.After(waitTimeout):
				t.Fatal("the loop did not end while Lua spun")
			}
		})
	}
}
