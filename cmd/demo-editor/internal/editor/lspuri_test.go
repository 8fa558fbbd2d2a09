package editor

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGoplsDefinitionAcrossFileNamesThatNeedEscapes covers issue 25's
// point 6 against gopls, through the editor: in a module whose files are
// named "my file.go", a#b.go, a%23b.go and ü.go, M-. from a call in one
// file opens the file that defines the function at the definition's row
// and column, each way; the requests name each document by the URI its
// didOpen used (a#b.go is not a%23b.go). The call to Umlaut follows
// invalid UTF-8 and an emoji on its row, and ü.go's definition follows an
// emoji, so both UTF-16 columns must be counted as gopls counts them.
// gopls's diagnostic for "my file.go" is marked in that buffer's gutter.
func TestGoplsDefinitionAcrossFileNamesThatNeedEscapes(t *testing.T) {
	dir := goplsModule(t, map[string]string{
		"my file.go": "package m\n\nfunc Spaced() int { return Hashed() + Umlaut() + Percent() }\n\n" +
			"var Bad int = undefinedName\n\nvar W = /*\x80\x80 \U0001F600*/ Umlaut()\n",
		"a#b.go":   "package m\n\n// Hashed is in a#b.go.\nfunc Hashed() int { return Spaced() }\n",
		"a%23b.go": "package m\n\nfunc Percent() int { return 3 }\n\nvar P = Spaced()\n",
		"ü.go":     "package m\n\n/* \U0001F600 ü */ func Umlaut() int { return 2 }\n",
	})
	spaced, hashed, percent, umlaut := filepath.Join(dir, "my file.go"), filepath.Join(dir, "a#b.go"),
		filepath.Join(dir, "a%23b.go"), filepath.Join(dir, "ü.go")
	h := startEditor(t, Options{Path: spaced})
	h.untilSynced()
	h.untilLong("the E mark of the undefined name in my file.go's gutter", func(e *session) bool {
		s, ok := e.cur.signs.rowsOrNil()[4]
		return e.cur.path == spaced && ok && s.text == "E"
	})

	jump := func(from string, at string, to string, want pos) {
		t.Helper()
		h.until("the cursor in "+filepath.Base(from), func(e *session) bool { return e.cur.path == from })
		h.gotoLine(at)
		h.alt('.')
		h.untilLong("the definition in "+filepath.Base(to), func(e *session) bool {
			return e.cur.path == to && e.cur.cursor == want && e.cur.signs != nil
		})
	}
	jump(spaced, "3:28", hashed, pos{3, 5})  // Hashed
	jump(hashed, "4:28", spaced, pos{2, 5})  // Spaced, asked from a#b.go
	jump(spaced, "3:50", percent, pos{2, 5}) // Percent
	jump(percent, "5:9", spaced, pos{2, 5})  // Spaced, asked from a%23b.go
	jump(spaced, "7:21", umlaut, pos{2, 19}) // Umlaut, after bad bytes and an emoji
}

// TestWorkspaceEditOfAnotherHostsFileIsRefused covers issue 25's point 6
// for edits: a server's edit of file://server/... names a file on another
// machine, which the editor refuses whole, saying why, instead of reading
// the URI's path as a path of its own (before, it became the relative
// path "server/...").
func TestWorkspaceEditOfAnotherHostsFileIsRefused(t *testing.T) {
	logPath := useFakeLSP(t)
	path, _ := fakeEditFiles(t, "remote.go")
	h := startEditor(t, Options{Path: path})
	h.untilSynced()
	h.ctrl('s')
	requireFakeReply(t, logPath, "apply-r", `"applied":false`,
		`"failureReason":"an edit of a document that is no local file: fileuri: file URI names another host (\"server\"): \"file://server/`)
	var paths []string
	h.e.call(func() {
		for _, b := range h.e.bufs {
			paths = append(paths, b.path)
		}
	})
	for _, p := range paths {
		require.NotContains(t, p, "server", "a buffer for the remote file")
	}
}
