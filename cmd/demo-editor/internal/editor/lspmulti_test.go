package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// bufText is the text of the buffer named name ("" when there is none).
func bufText(e *session, name string) string {
	for _, b := range e.bufs {
		if b.name == name {
			return b.Text()
		}
	}
	return ""
}

// mx runs an M-x command with its argument.
func (h *harness) mx(cmd string) {
	h.alt('x')
	h.waitText("command (")
	h.typeText(cmd)
	h.key(tcell.KeyEnter)
}

// Two servers configured for one language (a list in ctx.lsp.servers)
// both sync the buffer: each one's diagnostics are shown, labelled with
// its name, in *diagnostics* and the row's note; hover shows both
// answers under their names; references name each place once. The
// servers are two scripted ones (gopls and a second, "fake2"), each
// publishing one warning when the file opens.
func TestTwoFakeServersMergeAndLabel(t *testing.T) {
	useFakeLSP(t)
	fakeServerNamed(t, "fake2")
	writeUserConfig(t, `local ctx = ...
ctx.lsp.servers.go = {ctx.lsp.servers.go, {name = "fake2", program = "fake2", markers = {"go.mod"}}}
`)
	dir := t.TempDir()
	testenv.WriteTree(t, dir, map[string]string{"go.mod": "module m\n", "m.go": "package m\n\nvar x = 1\n"})
	path := filepath.Join(dir, "m.go")
	h := startEditor(t, Options{Path: path})
	h.untilLong("both servers' warnings counted", statusHas("W2"))
	h.gotoLine("3:1")
	h.until("the row's note names a server", func(e *session) bool {
		return strings.Contains(e.statusText(), "[gopls] fake warning") || strings.Contains(e.statusText(), "[fake2] fake warning")
	})
	h.alt('e')
	h.until("each server's diagnostic, labelled", func(e *session) bool {
		t := bufText(e, "*diagnostics*")
		return strings.Contains(t, "m.go:3:5: warning: [fake2] fake warning") && strings.Contains(t, "m.go:3:5: warning: [gopls] fake warning")
	})

	h.showPath(path)
	h.alt('k')
	h.untilLong("both hovers under their servers' names", func(e *session) bool {
		t := bufText(e, "*hover*")
		return strings.Contains(t, "-- gopls --") && strings.Contains(t, "-- fake2 --") && strings.Count(t, "func Alpha(n int) string") == 2
	})

	h.showPath(path)
	h.alt('?')
	h.untilLong("each place once", func(e *session) bool {
		return e.cur.name == "*references*" && strings.HasPrefix(e.cur.Line(0), "references: 2 ")
	})
	rows := h.waitText("[gopls]")
	require.False(t, anyContains(rows, "[fake2]"), "the second server's places are the first's: listed once")

	h.mx("lsp-info")
	h.waitText("go: fake2")
	h.waitText("go: gopls")
}

// A server that chose UTF-8 columns (as clangd does) and one that kept
// UTF-16 each name the same character of a line with é and an emoji beyond
// the BMP; M-. lands on it with either.
func TestDefinitionColumnsInTheServersEncoding(t *testing.T) {
	for _, utf8 := range []bool{false, true} {
		name := "utf-16"
		if utf8 {
			name = "utf-8"
		}
		t.Run(name, func(t *testing.T) {
			useFakeLSP(t)
			if utf8 {
				t.Setenv(fakeLSPUTF8Env, "1")
			}
			dir := t.TempDir()
			testenv.WriteTree(t, dir, map[string]string{"go.mod": "module m\n", "m.go": "package m\n\né😀x\n"})
			path := filepath.Join(dir, "m.go")
			h := startEditor(t, Options{Path: path})
			h.untilLong("the server's warning", statusHas("W1"))
			h.mx("lsp-info")
			h.waitText("columns in " + name)
			h.showPath(path)
			h.alt('.')
			h.untilLong("the jump to x", func(e *session) bool { return e.cur.path == path && e.cur.cursor == pos{2, 6} })
		})
	}
}

// Against two real servers on one buffer, pyright and a second pyright
// instance configured beside it: both are started and sync the file (each
// is asked for its diagnostics: pyright pulls them), *diagnostics* lists
// the undefined name once per server, labelled, hover shows both, and M-.
// goes to the definition.
func TestTwoRealServersOnOnePythonBuffer(t *testing.T) {
	prog := testenv.Peer(t, testenv.Pyright)
	t.Setenv("PATH", filepath.Dir(prog)+string(os.PathListSeparator)+os.Getenv("PATH"))
	writeUserConfig(t, `local ctx = ...
local py = ctx.lsp.servers.python
ctx.lsp.servers.python = {py, {name = "pyright-2", program = py.program, args = py.args, markers = py.markers}}
`)
	dir := t.TempDir()
	testenv.WriteTree(t, dir, map[string]string{"pyrightconfig.json": "{}\n",
		"a.py": "def add(a: int, b: int) -> int:\n    return a + b\nprint(add(1, 2))\nprint(undefined_name)\n"})
	path := filepath.Join(dir, "a.py")
	h := startEditor(t, Options{Path: path})
	h.untilLong("each server's error counted", statusHas("E2"))
	h.alt('e')
	h.until("each server's diagnostic, labelled", func(e *session) bool {
		t := bufText(e, "*diagnostics*")
		return strings.Contains(t, "a.py:4:7: error: [pyright] ") && strings.Contains(t, "a.py:4:7: error: [pyright-2] ") &&
			strings.Contains(t, "undefined_name")
	})
	h.showPath(path)
	h.gotoLine("3:7")
	h.alt('k')
	h.untilLong("both hovers", func(e *session) bool {
		t := bufText(e, "*hover*")
		return strings.Contains(t, "-- pyright --") && strings.Contains(t, "-- pyright-2 --") && strings.Count(t, "def add") == 2
	})
	h.showPath(path)
	h.gotoLine("3:7")
	h.alt('.')
	h.untilLong("the jump to add's definition", func(e *session) bool { return e.cur.path == path && e.cur.cursor == pos{0, 4} })

	// An edit reaches both: fixing the name clears both errors.
	h.gotoLine("4:7")
	for range len("undefined_name") {
		h.key(tcell.KeyDelete)
	}
	h.typeText("1")
	h.untilLong("both errors cleared", func(e *session) bool {
		return !strings.Contains(e.statusText(), "E") || strings.Contains(e.statusText(), "E0")
	})
}

// showPath shows the buffer visiting path.
func (h *harness) showPath(path string) {
	h.e.call(func() {
		for _, b := range h.e.bufs {
			if b.path == path {
				h.e.show(b)
			}
		}
	})
}

// A server that resolves code actions lists them without their edit: the
// action chosen is sent to codeAction/resolve (its data as the server
// gave it), and the edit that comes back is applied.
func TestCodeActionResolvedWhenChosen(t *testing.T) {
	logPath := useFakeLSP(t)
	dir := t.TempDir()
	testenv.WriteTree(t, dir, map[string]string{"go.mod": "module m\n", "m.go": "package m\n"})
	path := filepath.Join(dir, "m.go")
	h := startEditor(t, Options{Path: path})
	h.untilSynced()
	h.codeAction("Fake fix")
	h.untilLong("the resolved edit applied", func(e *session) bool { return pathText(e, path) == "// fixed\npackage m\n" })
	data, err := os.ReadFile(logPath)
	require.NoError(t, err)
	require.Contains(t, string(data), "resolve Fake_fix 7\n", "resolved with the data the server listed it with")
}
