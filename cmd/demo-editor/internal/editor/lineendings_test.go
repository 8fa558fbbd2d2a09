package editor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// Issue 14: a file with mixed line endings is saved with each line's own
// ending (it used to become all CRLF), and opening it says so.
func TestMixedLineEndingsSurviveASave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mixed.txt")
	require.NoError(t, os.WriteFile(path, []byte("one\r\ntwo\nthree\r\nfour\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.waitText("four")
	h.until("the message", func(e *session) bool {
		return e.msg == "mixed.txt mixes line endings (2 CRLF, 2 LF): each line keeps its own"
	})
	h.key(tcell.KeyDown)
	h.typeText("2")
	h.key(tcell.KeyEnter)
	h.ctrl('s')
	h.waitText("wrote " + path)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "one\r\n2\ntwo\nthree\r\nfour\n", string(got))
}
