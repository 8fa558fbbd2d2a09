package editor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// Issue 14: an --init file with a syntax error is written whole to
// Options.Stderr (before the terminal is taken over), while the message
// line can show only the start of it.
func TestInitSyntaxErrorGoesWholeToStderr(t *testing.T) {
	dir := t.TempDir()
	initFile := filepath.Join(dir, strings.Repeat("long_name_", 6)+"init.lua")
	require.NoError(t, os.WriteFile(initFile, []byte("local ok = 1\nlocal = 2\n"), 0o644))
	var stderr bytes.Buffer
	h := startEditor(t, Options{Path: dir, InitFile: initFile, Stderr: &stderr})
	rows := h.waitScreen("the init error", func(rows []string) bool {
		return strings.HasPrefix(messageLine(rows), "init:")
	})
	out := stderr.String() // written before the editor started
	require.True(t, strings.HasPrefix(out, "demo-editor: init: "), out)
	require.Contains(t, out, initFile, "the whole path")
	require.Contains(t, out, "syntax error")
	require.Greater(t, len(strings.TrimSpace(out)), screenW, "the error is longer than the screen is wide")
	require.Less(t, len(messageLine(rows)), len(strings.TrimSpace(out)), "the message line shows it cut")
}

// quitOnInit is a simulation screen that presses C-q as soon as it is
// initialised, so Run starts, runs init, and quits.
type quitOnInit struct{ tcell.SimulationScreen }

func (q quitOnInit) Init() error {
	err := q.SimulationScreen.Init()
	q.InjectKey(tcell.KeyCtrlQ, 0, tcell.ModCtrl)
	return err
}

// An error raised while the init file runs is written whole, with its
// traceback, once Run has given the terminal back.
func TestInitRuntimeErrorGoesWholeToStderrAfterRun(t *testing.T) {
	dir := t.TempDir()
	initFile := filepath.Join(dir, "init.lua")
	require.NoError(t, os.WriteFile(initFile, []byte("local function f() error(string.rep('x', 150)) end\nf()\n"), 0o644))
	var stderr bytes.Buffer
	err := Run(context.Background(), Options{Path: dir, InitFile: initFile, Stderr: &stderr,
		Screen: quitOnInit{tcell.NewSimulationScreen("UTF-8")}})
	require.NoError(t, err)
	out := stderr.String()
	require.Contains(t, out, "demo-editor: init: ")
	require.Contains(t, out, strings.Repeat("x", 150))
	require.Contains(t, out, "stack traceback:")
	require.Contains(t, out, "init.lua:1")
}

// A missing --init file stops Run at once with ErrInitFile (the command
// exits 2), before any terminal is touched.
func TestMissingInitFileIsAnError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.lua")
	err := Run(context.Background(), Options{Path: t.TempDir(), InitFile: missing, Screen: tcell.NewSimulationScreen("UTF-8")})
	require.ErrorIs(t, err, ErrInitFile)
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Contains(t, err.Error(), missing)
}
