package editor

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// *references* quotes the line of each reference, from the buffer holding
// the file or, for a file no buffer holds, read from the disk; the hover's
// markdown shows as plain rows (no fences, emphasis, link targets or
// escapes), its first line on the message line.
func TestReferencesQuoteLinesAndHoverIsPlainText(t *testing.T) {
	useFakeLSP(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.go")
	require.NoError(t, os.WriteFile(path, []byte("package m\n\nvar a = Alpha(1)\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "other.go"), []byte("package m\n\tfunc Alpha(n int) string { return \"\" }\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.untilSynced()

	h.alt('?')
	h.waitText("references: 2")
	rows := h.waitText("m.go:3:5: var a = Alpha(1)")
	require.True(t, anyContains(rows, "other.go:2:2: func Alpha(n int) string { return \"\" }"), "a file no buffer holds is quoted too:\n%s", strings.Join(rows, "\n"))
	h.typeText("q")
	h.until("back in m.go", func(e *session) bool { return e.cur.path == path })

	h.alt('k')
	h.waitScreen("the hover's first line", func(rows []string) bool { return messageLine(rows) == "func Alpha(n int) string" })
	var hover string
	h.e.call(func() { hover = h.e.findBuffer("*hover*").Text() })
	require.Equal(t, "func Alpha(n int) string\n\nAlpha names the nth letter _ok_.", hover)
}

// Reopening a closed file puts the cursor back where it was.
func TestReopenRestoresTheCursor(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.txt")
	require.NoError(t, os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o644))
	h := startEditor(t, Options{Path: dir})
	h.waitText("r.txt")
	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.key(tcell.KeyEnter)
	h.until("r.txt open", func(e *session) bool { return e.cur.path == path && !e.cur.loading })
	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.key(tcell.KeyRight)
	h.until("the cursor moved", func(e *session) bool { return e.cur.cursor == pos{2, 1} })
	h.alt('w')
	h.until("r.txt closed", func(e *session) bool { return e.findBuffer(path) == nil })
	h.ctrl('o')
	h.waitText("open:")
	h.ctrl('u')
	h.typeText(path)
	h.key(tcell.KeyEnter)
	h.until("r.txt reopened where its cursor was", func(e *session) bool {
		return e.cur.path == path && !e.cur.loading && e.cur.cursor == pos{2, 1}
	})
}

// Enter while completion waits for its first answer breaks the line as
// Enter does without completion: keeping the indent.
func TestEnterDuringCompletionKeepsTheIndent(t *testing.T) {
	useFakeLSP(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.go")
	// The scripted server holds completions asked before column 18.
	require.NoError(t, os.WriteFile(path, []byte("package m\n\nfunc f() {\n\tx := ab\n}\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.untilSynced()
	h.gotoLine("4:9")
	h.until("the cursor after ab", func(e *session) bool { return e.cur.cursor == pos{3, 8} })
	h.alt('/')
	h.until("completion asked", func(e *session) bool { return e.keys.buffer[e.cur.id]["Enter"].fn != nil })
	h.key(tcell.KeyEnter)
	h.waitBuffer("the line broken with its indent", "package m\n\nfunc f() {\n\tx := ab\n\t\n}\n")
}

// Only what the server announced is asked: the scripted server offers no
// type definition, so M-x type-definition says so and sends nothing.
func TestRequestTheServerDoesNotOfferIsNotSent(t *testing.T) {
	logPath := useFakeLSP(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.go")
	require.NoError(t, os.WriteFile(path, []byte("package m\n\nvar a = Alpha(1)\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.untilSynced()
	h.alt('?') // references: offered; answered, so the server is running when M-. comes
	h.waitText("references: 2")
	h.typeText("q")
	h.mx("type-definition")
	h.waitScreen("the refusal", bottomHas("gopls does not offer textDocument/typeDefinition"))
	log, err := os.ReadFile(logPath)
	require.NoError(t, err)
	require.NotContains(t, string(log), "typeDefinition", "nothing was sent")
}

// *references* quotes lines only of files inside the project: a server
// that names a file outside it gets the location listed without its text
// (the file is not read), and a FIFO inside it (which would block a read
// for ever) is not opened: the list still completes.
func TestReferencesQuoteNothingOutsideTheProject(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.go")
	require.NoError(t, os.WriteFile(outside, []byte("SECRET LINE\n"), 0o644))
	t.Setenv(fakeLSPExtraRefEnv, outside)
	useFakeLSP(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.go")
	require.NoError(t, os.WriteFile(path, []byte("package m\n\nvar a = Alpha(1)\n"), 0o644))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "other.go"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.untilSynced()
	h.alt('?')
	rows := h.waitText("secret.go:1:1")
	require.False(t, anyContains(rows, "SECRET"), "a file outside the project is not read:\n%s", strings.Join(rows, "\n"))
	require.True(t, anyContains(rows, "m.go:3:5: var a = Alpha(1)"))
}
