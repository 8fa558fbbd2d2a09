//go:build linux

package editor

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/procjob"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// Acceptance (issue 13, editor): M-x compile runs a shell command into
// *compile*, which fills as the output comes and shows the exit status;
// Enter on a file:line:col row opens the file there.
func TestCompileFillsBufferAndJumpsToLocation(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo three\n"), 0o644))
	h := startEditor(t, Options{Path: dir})
	h.waitText("a.txt")

	h.alt('x')
	h.waitText("command (")
	h.typeText(`compile echo building; printf 'a.txt:2:5: error: bad\n'; exit 2`)
	h.key(tcell.KeyEnter)
	h.waitText("exited with code 2")
	var lines []string
	h.e.call(func() { lines = append(lines, h.e.cur.lines.all()...) })
	require.Equal(t, "building", lines[1])
	require.Equal(t, "a.txt:2:5: error: bad", lines[2])

	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.key(tcell.KeyEnter)
	h.until("a.txt open at 2:5", func(e *session) bool {
		return e.cur.path == filepath.Join(dir, "a.txt") && e.cur.cursor == pos{Row: 1, Col: 4}
	})
}

// Acceptance: a second compile supersedes the first, which ends cancelled
// (its whole group killed) and shows in *workers* as a spawn job.
func TestCompileSupersedes(t *testing.T) {
	dir := t.TempDir()
	h := startEditor(t, Options{Path: dir})
	h.waitText(dir + ":") // a prompt opened before the directory view shows would end
	h.alt('c')
	h.waitText("compile: make -k")
	for range len("make -k") {
		h.key(tcell.KeyBackspace2)
	}
	h.typeText("echo first; sleep 60")
	h.key(tcell.KeyEnter)
	h.waitText("first")
	h.until("the first compile running as a spawn job", func(e *session) bool {
		active, _ := jobsOfKind(e, procjob.SpawnKind)
		return len(active) == 1
	})

	h.alt('x')
	h.waitText("command (")
	h.typeText("compile echo second")
	h.key(tcell.KeyEnter)
	h.waitText("exited with code 0")
	h.until("the first compile cancelled", func(e *session) bool {
		active, done := jobsOfKind(e, procjob.SpawnKind)
		cancelled := 0
		for _, c := range done {
			if c.State == runtime.Cancelled {
				cancelled++
			}
		}
		return len(active) == 0 && cancelled == 1
	})
	rows := h.rows()
	require.False(t, anyContains(rows, "first"), "the superseded compile's output shows: %s", strings.Join(rows, "\n"))
}

// Acceptance: M-! runs a command and shows its output: one line on the
// message line, more in *shell output*, with a non-zero exit status.
func TestShellCommandShowsOutput(t *testing.T) {
	dir := t.TempDir()
	h := startEditor(t, Options{Path: dir})
	// The directory view shows once its listing lands; a prompt opened
	// before that would end when it shows.
	h.waitText(dir + ":")
	h.alt('!')
	h.waitText("shell command:")
	h.typeText("echo hello")
	h.key(tcell.KeyEnter)
	h.waitScreen("hello on the message line", func(rows []string) bool { return messageLine(rows) == "hello" })

	h.alt('!')
	h.waitText("shell command:")
	h.typeText("printf 'a\\nb\\n'; exit 3")
	h.key(tcell.KeyEnter)
	h.waitText("$ printf")
	rows := h.waitText("[exit 3]")
	require.True(t, anyContains(rows, "a"))
	var lines []string
	h.e.call(func() { lines = append(lines, h.e.cur.lines.all()...) })
	require.Equal(t, []string{`$ printf 'a\nb\n'; exit 3 [exit 3]`, "a", "b"}, lines)
}

// Closing *compile* while its command still prints used to fail the task
// that fills it ("append_lines: no buffer N"); now the command is stopped.
func TestCompileBufferClosedWhileRunning(t *testing.T) {
	dir := t.TempDir()
	h := startEditor(t, Options{Path: dir})
	h.waitText(dir + ":")
	h.alt('x')
	h.waitText("command (")
	h.typeText(`compile echo first; sleep 0.3; echo second; sleep 0.3; echo third`)
	h.key(tcell.KeyEnter)
	// The prompt's own text says "first" too: wait for the output line
	// in *compile*, or a loaded machine closes a buffer not made yet.
	h.until("first in *compile*", func(e *session) bool {
		b := e.findBuffer("*compile*")
		return b != nil && slices.Contains(b.lines.all(), "first")
	})
	var err error
	h.e.call(func() { err = h.e.L.DoString(`pmacs.editor.close(pmacs.editor.find("*compile*"))`) })
	require.NoError(t, err)
	h.until("the compile over", func(e *session) bool {
		active, done := jobsOfKind(e, procjob.SpawnKind)
		return len(active) == 0 && len(done) == 1 && onlyWatching(e)
	})
	var log string
	var state runtime.State
	h.e.call(func() {
		_, done := jobsOfKind(h.e, procjob.SpawnKind)
		state = done[0].State
		log = h.e.messages.Text()
	})
	require.NotContains(t, log, "task failed")
	require.Equal(t, runtime.Cancelled, state, "the command was stopped")
}
