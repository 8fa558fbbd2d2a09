package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fileuri"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// writeUserConfig makes a config home for this test holding init.lua with
// text, and returns the file's path.
func writeUserConfig(t *testing.T, text string) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	path := filepath.Join(home, "pmacs", "init.lua")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// docExamples returns the Lua blocks of the "Your configuration" chapter
// of docs/editor-api.md.
func docExamples(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "editor-api.md"))
	require.NoError(t, err)
	doc := string(data)
	i := strings.Index(doc, "\n## Your configuration\n")
	require.GreaterOrEqual(t, i, 0, "the chapter is there")
	chapter := doc[i+1:]
	if j := strings.Index(chapter[3:], "\n## "); j >= 0 {
		chapter = chapter[:j+3]
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```lua\n(.*?)```").FindAllStringSubmatch(chapter, -1) {
		out = append(out, m[1])
	}
	return out
}

// fakeServerNamed puts the scripted language server on PATH under name;
// it returns the server's log file.
func fakeServerNamed(t *testing.T, name string) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "fake-lsp.log")
	script := fmt.Sprintf("#!/bin/sh\nexec env %s=%q %q \"$@\"\n", fakeLSPEnv, logPath, exe)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return logPath
}

// The four worked examples of docs/editor-api.md's "Your configuration",
// run together as the user's init file, each do what the chapter says:
// F5 saves and C-s no longer does, M-x upcase-line upper-cases the line as
// one undo step, and a Python file starts the language servers added (the
// fourth adds a second beside the first), at the root their markers give.
func TestUserConfigDocExamplesWork(t *testing.T) {
	examples := docExamples(t)
	require.Len(t, examples, 4)
	writeUserConfig(t, strings.Join(examples, "\n"))
	logPath := fakeServerNamed(t, "pyright-langserver")
	proj := filepath.Join(t.TempDir(), "py")
	testenv.WriteTree(t, proj, map[string]string{
		"pyproject.toml": "[project]\nname = \"x\"\n",
		"notes.txt":      "some notes\n",
		"app/main.py":    "print('hi')\n",
	})
	notes := filepath.Join(proj, "notes.txt")
	h := startEditor(t, Options{Path: notes})
	h.waitText("some notes")

	// Add a command.
	h.typeText("x")
	h.waitText("xsome notes")
	h.alt('x')
	h.waitText("command (")
	h.typeText("upcase-line")
	h.key(tcell.KeyEnter)
	h.waitText("XSOME NOTES")
	h.undoKey()
	h.waitText("xsome notes")

	// Add a language server.
	h.ctrl('o')
	h.waitText("open:")
	h.typeText("app/main.py")
	h.key(tcell.KeyEnter)
	h.waitText("print('hi')")
	h.until("the server started at the project root", func(*session) bool {
		data, _ := os.ReadFile(logPath)
		return strings.Contains(string(data), "root "+fileuri.FromPath(proj)+"\n")
	})

	// Rebind a key: F5 saves the shown file, C-s every modified one.
	py := filepath.Join(proj, "app/main.py")
	h.typeText("#")
	h.waitText("#print('hi')")
	h.key(tcell.KeyF5)
	h.waitScreen("F5 saved", bottomHas("wrote "+py))
	h.typeText("#")
	h.waitText("##print('hi')")
	h.ctrl('s')
	h.until("C-s saved both files", func(*session) bool {
		n, _ := os.ReadFile(notes)
		p, _ := os.ReadFile(py)
		return string(n) == "xsome notes\n" && string(p) == "##print('hi')\n"
	})
}

// An error in the user's file, raised while it runs or a syntax error, is
// shown with the file and line, and the editor starts all the same, with
// what the file did before the error.
func TestUserConfigErrorShowsItsLineAndTheEditorStarts(t *testing.T) {
	path := writeUserConfig(t, "local ctx = ...\n"+
		"ctx.commands.hello = function() ctx.ed.message(\"hello from config\") end\n"+
		"error(\"boom\")\n")
	file := writeTestFile(t, "a.txt", "alpha\n")
	h := startEditor(t, Options{Path: file})
	h.waitText("alpha")
	h.waitScreen("the error with its line", bottomHas(path+":3: boom"))
	h.alt('x')
	h.waitText("command (")
	h.typeText("hello")
	h.key(tcell.KeyEnter)
	h.waitScreen("what ran before the error", bottomHas("hello from config"))

	require.NoError(t, os.WriteFile(path, []byte("local ctx = ...\n\nlocal x = = 1\n"), 0o644))
	h2 := startEditor(t, Options{Path: file})
	h2.waitText("alpha")
	h2.waitScreen("the syntax error with its line", bottomHas("config: "+path+" line:3"))
}

// --clean (Options.Clean) starts without the user's file.
func TestCleanStartsWithoutTheUserConfig(t *testing.T) {
	writeUserConfig(t, "local ctx = ...\nctx.ed.set_help(\"MY CONFIG RAN\")\n")
	file := writeTestFile(t, "a.txt", "alpha\n")
	h := startEditor(t, Options{Path: file})
	h.waitText("MY CONFIG RAN")
	clean := startEditor(t, Options{Path: file, Clean: true})
	clean.waitText("alpha")
	clean.waitText("^Q quit")
	require.False(t, anyContains(clean.rows(), "MY CONFIG RAN"))
}
