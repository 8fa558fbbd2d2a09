package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// Issue 14, features: M-s saves under another path (relative to the
// project root), asking before it overwrites a file; the buffer then
// visits the new path.
func TestSaveAs(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "a.txt")
	other := filepath.Join(root, "b.txt")
	require.NoError(t, os.WriteFile(src, []byte("text\n"), 0o644))
	require.NoError(t, os.WriteFile(other, []byte("other\n"), 0o644))
	h := startEditor(t, Options{Path: src})
	h.waitText("text")

	saveAs := func(path string) {
		h.alt('s')
		h.until("the save-as prompt", func(e *session) bool { return e.prompt != nil && e.prompt.text == src })
		h.ctrl('u')
		h.typeText(path)
		h.key(tcell.KeyEnter)
	}
	saveAs("b.txt")
	h.until("the question", func(e *session) bool {
		return e.prompt != nil && e.prompt.label == other+" exists: overwrite it? (y/n) "
	})
	h.typeText("n")
	h.waitScreen("the refusal", func(rows []string) bool { return messageLine(rows) == "not saved" })
	got, err := os.ReadFile(other)
	require.NoError(t, err)
	require.Equal(t, "other\n", string(got))

	saveAs("sub/c.go")
	h.until("the directory question", func(e *session) bool {
		return e.prompt != nil && strings.HasSuffix(e.prompt.label, "create it and save? (y/n) ")
	})
	h.typeText("y")
	c := filepath.Join(root, "sub", "c.go")
	h.waitText("wrote " + c)
	got, err = os.ReadFile(c)
	require.NoError(t, err)
	require.Equal(t, "text\n", string(got))
	h.until("the buffer follows", func(e *session) bool {
		return e.cur.path == c && e.cur.name == "c.go" && e.cur.lang == "go" && !e.cur.Modified()
	})
	got, err = os.ReadFile(src)
	require.NoError(t, err)
	require.Equal(t, "text\n", string(got), "the old file is left as it was")
}

// Issue 14, features: M-: evaluates a line of Lua and shows what it
// returns; a syntax or run-time error shows as an error.
func TestEvalLine(t *testing.T) {
	h := startEditor(t, Options{Path: t.TempDir()})
	h.waitText("..")
	eval := func(line string) (string, bool) {
		h.alt(':')
		// Not waitText("eval:"): the last result ("eval: no value") may
		// still be on the message line.
		h.until("the eval prompt", func(e *session) bool { return e.prompt != nil })
		h.typeText(line)
		h.key(tcell.KeyEnter)
		var msg string
		var isErr bool
		h.until("the result", func(e *session) bool {
			msg, isErr = e.msg, e.msgErr
			return e.prompt == nil && msg != ""
		})
		return msg, isErr
	}
	for line, want := range map[string]string{
		"1 + 2":                           "3",
		`"a" .. "b", nil, true`:           `"ab", nil, true`,
		"{x = 1}":                         "{x = 1}",
		"pmacs.editor.line_count(0) >= 1": "true",
		"local x = 1":                     "eval: no value",
	} {
		msg, isErr := eval(line)
		require.Equal(t, want, msg, "M-: %s", line)
		require.False(t, isErr)
	}
	msg, isErr := eval("error('boom')")
	require.True(t, isErr)
	require.Equal(t, "eval: input:1: boom", msg)
	msg, isErr = eval("1 +")
	require.True(t, isErr)
	require.True(t, strings.HasPrefix(msg, "eval: "), msg)
}

// A buffer saved under another path takes its language server document
// along: the server hears the edits that follow under the new path, so
// their diagnostics reach the buffer. Before, the document stayed open
// under the old path, every later edit went to it, and the errors typed
// into the saved copy were published for the old file.
func TestSaveAsMovesTheServerDocument(t *testing.T) {
	src := "package m\n\nfunc A() int { return 1 }\n"
	dir := goplsModule(t, map[string]string{"m.go": src})
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	path := filepath.Join(dir, "m.go")
	h := startEditor(t, Options{Path: path})
	h.untilSynced()

	h.alt('s')
	h.until("the save-as prompt", func(e *session) bool { return e.prompt != nil && e.prompt.text == path })
	h.ctrl('u')
	h.typeText("sub/n.go")
	h.key(tcell.KeyEnter)
	moved := filepath.Join(dir, "sub", "n.go")
	h.until("the buffer saved under the new path", func(e *session) bool { return e.cur.path == moved && !e.cur.Modified() })

	h.e.call(func() { h.e.cur.setCursor(pos{3, 0}) })
	h.typeText("var Y = undefinedName\n")
	h.untilLong("the new error shown for the saved copy", func(e *session) bool {
		return strings.Contains(e.statusText(), "E1")
	})
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, src, string(got), "the old file is left as it was")
}
