package editor

import (
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// Key names: what the terminal sends is named the way keymaps spell it.
func TestKeyNames(t *testing.T) {
	for _, tc := range []struct {
		ev   *tcell.EventKey
		want string
	}{
		{tcell.NewEventKey(tcell.KeyRune, 'a', tcell.ModNone), "a"},
		{tcell.NewEventKey(tcell.KeyRune, 'A', tcell.ModShift), "A"},
		{tcell.NewEventKey(tcell.KeyRune, ' ', tcell.ModNone), "Space"},
		{tcell.NewEventKey(tcell.KeyRune, 's', tcell.ModCtrl), "C-s"},
		{tcell.NewEventKey(tcell.KeyCtrlS, 0, tcell.ModCtrl), "C-s"},
		{tcell.NewEventKey(tcell.KeyRune, 'x', tcell.ModAlt), "M-x"},
		{tcell.NewEventKey(tcell.KeyEnter, 0, tcell.ModNone), "Enter"},
		{tcell.NewEventKey(tcell.KeyBackspace2, 0, tcell.ModNone), "Backspace"},
		{tcell.NewEventKey(tcell.KeyBackspace, 0, tcell.ModNone), "Backspace"},
		{tcell.NewEventKey(tcell.KeyEsc, 0, tcell.ModNone), "Esc"},
		{tcell.NewEventKey(tcell.KeyUp, 0, tcell.ModShift), "S-Up"},
		{tcell.NewEventKey(tcell.KeyPgDn, 0, tcell.ModNone), "PgDn"},
		{tcell.NewEventKey(tcell.KeyF5, 0, tcell.ModNone), "F5"},
	} {
		require.Equal(t, tc.want, keyName(tc.ev), tc.ev.Name())
	}
}

// Keymaps accept the usual spellings.
func TestNormalizeKey(t *testing.T) {
	for in, want := range map[string]string{
		"C-s": "C-s", "Ctrl-S": "C-s", "ctrl+s": "C-s", "<C-s>": "C-s",
		"M-x": "M-x", "Alt-x": "M-x", "a-x": "M-x",
		"return": "Enter", "enter": "Enter", "ESC": "Esc", "escape": "Esc",
		"pagedown": "PgDn", "pgup": "PgUp", "space": "Space", " ": "Space",
		"S-Up": "S-Up", "shift-up": "S-Up", "C-M-x": "C-M-x", "M-C-x": "C-M-x",
		"x": "x", "X": "X", "f5": "F5",
		// Brackets are keys too, not Vim's <...> around one.
		"M->": "M->", "M-<": "M-<", ">": ">", "<": "<",
	} {
		require.Equal(t, want, normalizeKey(in), in)
	}
}
