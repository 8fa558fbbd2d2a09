package editor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fileuri"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// findRoot looks upward from a file or directory for the nearest directory
// holding a marker, and refuses markers that are not plain names.
func TestFindRootPicksTheNearestMarkedDirectory(t *testing.T) {
	top := t.TempDir()
	testenv.WriteTree(t, top, map[string]string{
		"go.mod":             "module m\n",
		"sub/pkg/x.go":       "package pkg\n",
		"sub/inner/go.mod":   "module inner\n",
		"sub/inner/deep/y.c": "",
	})
	markers := []string{"go.mod", ".git"}
	got, err := findRoot(filepath.Join(top, "sub/pkg/x.go"), markers)
	require.NoError(t, err)
	require.Equal(t, top, got)
	got, err = findRoot(filepath.Join(top, "sub/inner/deep/y.c"), markers)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(top, "sub/inner"), got)
	got, err = findRoot(filepath.Join(top, "sub/inner/deep"), markers)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(top, "sub/inner"), got)
	// A file not yet on disk is looked for from its directory.
	got, err = findRoot(filepath.Join(top, "sub/pkg/new.go"), markers)
	require.NoError(t, err)
	require.Equal(t, top, got)
	got, err = findRoot(filepath.Join(top, "sub/pkg"), []string{"no-such-marker"})
	require.NoError(t, err)
	require.Equal(t, "", got)
	_, err = findRoot(filepath.Join(top, "sub"), []string{"../go.mod"})
	require.ErrorContains(t, err, "not a file or directory name")
	_, err = findRoot("relative/path", markers)
	require.ErrorContains(t, err, "not an absolute path")
}

// Opening a file deep in a project makes the directory of the nearest
// marker (go.mod) the project root, not the file's directory: the status
// line names it, the workspace whose trust is asked is it, C-p lists its
// files, C-f greps it, M-c compiles in it, C-d lists it, and the language
// server is started with the root its own markers give.
func TestOpeningAFileMakesItsMarkedAncestorTheProject(t *testing.T) {
	logPath := useFakeLSP(t)
	proj := filepath.Join(t.TempDir(), "myproj")
	testenv.WriteTree(t, proj, map[string]string{
		".git/HEAD":          "ref: refs/heads/main\n",
		"tools/go.mod":       "module tools\n",
		"tools/deep/main.go": "package main\n",
	})
	file := filepath.Join(proj, "tools/deep/main.go")
	h := startEditor(t, Options{Path: file})
	h.waitText("package main")

	// Of the default markers, tools/go.mod is the nearest above
	// tools/deep (.git is further up): the project is the module.
	tools := filepath.Join(proj, "tools")
	h.until("root at the module", func(e *session) bool { return e.root == tools })
	rows := h.waitText("[tools]")
	require.Contains(t, rows[len(rows)-3], "[tools]", "the status line names the project")
	var trusted string
	h.e.call(func() { trusted = h.e.trust.report.Folder })
	real, err := filepath.EvalSymlinks(tools)
	require.NoError(t, err)
	require.Equal(t, real, trusted)

	// The language server's root is its own marker's directory.
	h.until("server initialized", func(e *session) bool {
		data, _ := os.ReadFile(logPath)
		return strings.Contains(string(data), "root ")
	})
	data, err := os.ReadFile(logPath)
	require.NoError(t, err)
	require.Contains(t, string(data), "root "+string(fileuri.FromPath(tools))+"\n")

	h.ctrl('p')
	h.typeText("main")
	rows = h.waitText(`files "main": 1 of`)
	require.True(t, anyContains(rows, "deep/main.go"), strings.Join(rows, "\n"))
	h.key(tcell.KeyEscape)

	h.alt('x')
	h.waitText("command (")
	h.typeText("compile pwd")
	h.key(tcell.KeyEnter)
	h.waitText("exited with code 0")
	var out []string
	h.e.call(func() { out = append(out, h.e.cur.lines.all()...) })
	require.Equal(t, tools, out[1])

	h.ctrl('d')
	h.waitText(tools + ":")
	h.waitText("go.mod")
}

// With the default markers a .git folder above the opened file makes the
// project: grep searches the whole checkout.
func TestGrepSearchesTheProjectRoot(t *testing.T) {
	proj := filepath.Join(t.TempDir(), "checkout")
	testenv.WriteTree(t, proj, map[string]string{
		".git/HEAD":       "ref: refs/heads/main\n",
		"runtime/run.go":  "package runtime\n",
		"docs/notes.txt":  "the needle is here\n",
		"docs/other.txt":  "nothing\n",
		"runtime/more.go": "package runtime // needle\n",
	})
	h := startEditor(t, Options{Path: filepath.Join(proj, "runtime/run.go")})
	h.waitText("package runtime")
	h.until("root at the checkout", func(e *session) bool { return e.root == proj })
	h.waitText("[checkout]")

	h.ctrl('f')
	h.typeText("needle")
	rows := h.waitText("2 matches")
	require.True(t, anyContains(rows, "docs/notes.txt"), strings.Join(rows, "\n"))
	require.True(t, anyContains(rows, "runtime/more.go"), strings.Join(rows, "\n"))
}

// A file under no marker keeps its own directory as the root, and
// set_root refuses once the editor has started.
func TestRootWithoutMarkerIsTheFileDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "loose")
	testenv.WriteTree(t, dir, map[string]string{"a.txt": "alpha\n"})
	h := startEditor(t, Options{Path: filepath.Join(dir, "a.txt")})
	h.waitText("alpha")
	h.waitText("[loose]")
	var root string
	var err error
	h.e.call(func() {
		root = h.e.root
		err = h.e.setRoot(filepath.Dir(dir))
	})
	require.Equal(t, dir, root)
	require.ErrorIs(t, err, errRootFixed)
}

// The reported case with the real gopls: a file opened deep in a checkout
// whose gopls is the checkout's own .bin/gopls. The trust question is
// about the checkout, and once it is trusted gopls starts from its .bin
// and answers across packages: M-? lists the references in both.
func TestDeepFileUsesTheCheckoutsLanguageServer(t *testing.T) {
	gopls := testenv.Peer(t, testenv.Gopls)
	freshTrust(t)
	// gopls needs go; PATH holds no gopls, so only the checkout's can run.
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	t.Setenv("PATH", filepath.Dir(goBin)+":/usr/bin:/bin")
	if _, err := exec.LookPath("gopls"); err == nil {
		t.Skip("a gopls beside go or in /usr/bin: cannot tell the checkout's from it")
	}
	proj := filepath.Join(t.TempDir(), "checkout")
	testenv.WriteTree(t, proj, map[string]string{
		"go.mod":        "module example.com/m\n\ngo 1.22\n",
		"lib/lib.go":    "package lib\n\nfunc Target() int { return 1 }\n",
		"deep/use/u.go": "package use\n\nimport \"example.com/m/lib\"\n\nvar X = lib.Target()\n",
	})
	require.NoError(t, os.MkdirAll(filepath.Join(proj, ".bin"), 0o755))
	require.NoError(t, os.Symlink(gopls, filepath.Join(proj, ".bin", "gopls")))
	file := filepath.Join(proj, "deep/use/u.go")
	h := startEditor(t, Options{Path: file})
	h.waitText("var X = lib.Target()")
	h.untilPrompt("checkout has project-local programs (.bin/gopls)")
	h.typeText("y")
	h.key(tcell.KeyEnter)
	h.untilLong("gopls from the checkout's .bin", func(e *session) bool {
		for _, b := range e.bufs {
			if b.name == "*messages*" && strings.Contains(b.Text(), "lsp: started "+filepath.Join(proj, ".bin", "gopls")) {
				return true
			}
		}
		return false
	})
	h.gotoLine("5:14")
	h.alt('?')
	h.untilLong("the references in both packages", func(e *session) bool {
		return e.cur.name == "*references*" && strings.HasPrefix(e.cur.Line(0), "references: 2")
	})
	rows := h.rows()
	require.True(t, anyContains(rows, "lib/lib.go:3"), strings.Join(rows, "\n"))
	require.True(t, anyContains(rows, "deep/use/u.go:5"), strings.Join(rows, "\n"))
}

// One client per server and root: two modules under one project each get
// their own gopls, started at the module, and a second file of the first
// module shares its client.
func TestEachModuleGetsItsOwnServer(t *testing.T) {
	logPath := useFakeLSP(t)
	proj := filepath.Join(t.TempDir(), "two")
	testenv.WriteTree(t, proj, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"a/go.mod":  "module a\n",
		"a/x.go":    "package a\n",
		"a/x2.go":   "package a\n",
		"b/go.mod":  "module b\n",
		"b/y.go":    "package b\n",
		"README":    "two modules\n",
	})
	h := startEditor(t, Options{Path: proj})
	h.waitText("README")
	roots := func() []string {
		data, _ := os.ReadFile(logPath)
		var out []string
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "root ") {
				out = append(out, strings.TrimPrefix(line, "root "))
			}
		}
		return out
	}
	for i, f := range []string{"a/x.go", "b/y.go", "a/x2.go"} {
		h.alt('x')
		h.waitText("command (")
		h.typeText("open " + filepath.Join(proj, f))
		h.key(tcell.KeyEnter)
		h.waitText("package " + f[:1])
		want := min(i+1, 2)
		h.untilLong(fmt.Sprintf("%d servers started", want), func(e *session) bool { return len(roots()) >= want })
	}
	require.ElementsMatch(t, []string{string(fileuri.FromPath(filepath.Join(proj, "a"))), string(fileuri.FromPath(filepath.Join(proj, "b")))}, roots(),
		"one server per module; a/x2.go shares a's")
}
