package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// Issue 14: C-o resolves a relative path against the project root (the
// directory the editor started in), not the shown buffer's directory; the
// prompt starts with the root's full path, shows the full path a relative
// one stands for, and Tab completes names.
func TestOpenPromptResolvesAgainstTheRootAndCompletes(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "deep", "sub")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "notes"), 0o755))
	for path, text := range map[string]string{
		filepath.Join(root, "README.md"):       "root readme\n",
		filepath.Join(deep, "README.md"):       "deep readme\n",
		filepath.Join(deep, "x.go"):            "package sub\n",
		filepath.Join(root, "notes", "a1.txt"): "",
		filepath.Join(root, "notes", "a2.txt"): "",
	} {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	h := startEditor(t, Options{Path: root})
	h.waitText("..")

	// Show a buffer deep in the tree first.
	h.ctrl('o')
	h.ctrl('u')
	h.typeText(filepath.Join(deep, "x.go") + "\r")
	h.waitText("package sub")

	h.ctrl('o')
	h.until("the prompt on the root", func(e *session) bool { return e.prompt != nil && e.prompt.text == root+"/" })
	h.ctrl('u')
	h.typeText("REA")
	h.waitScreen("the full path shown", func(rows []string) bool {
		return messageLine(rows) == "open: REA  = "+root+"/REA"
	})
	h.key(tcell.KeyTab)
	h.until("the completion", func(e *session) bool { return e.prompt != nil && e.prompt.text == "README.md" })
	h.key(tcell.KeyEnter)
	h.waitText("root readme")
	var path string
	h.e.call(func() { path = h.e.cur.path })
	require.Equal(t, filepath.Join(root, "README.md"), path)

	// A directory completes with its slash; several candidates extend to
	// their common prefix and show after the text.
	h.ctrl('o')
	h.ctrl('u')
	h.typeText("no")
	h.key(tcell.KeyTab)
	h.until("the directory", func(e *session) bool { return e.prompt != nil && e.prompt.text == "notes/" })
	h.typeText("a")
	h.key(tcell.KeyTab)
	rows := h.waitScreen("the candidates", func(rows []string) bool {
		return strings.HasSuffix(messageLine(rows), "[a1.txt a2.txt]")
	})
	require.Equal(t, "open: notes/a  [a1.txt a2.txt]", messageLine(rows))
	h.typeText("z")
	h.key(tcell.KeyTab)
	h.waitScreen("no match", func(rows []string) bool { return strings.HasSuffix(messageLine(rows), "[no match]") })
}
