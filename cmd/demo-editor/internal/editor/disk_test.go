package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// startOnFile starts the editor on dir/name holding text, and waits until
// it shows and the project watch has scanned dir.
func startOnFile(t *testing.T, name, text string) (*harness, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	h := startEditor(t, Options{Path: path})
	h.until("the file loaded and the project watched", func(e *session) bool {
		_, ready := watchesRunning(e)
		return ready == 1 && e.cur.path == path && !e.cur.loading
	})
	return h, path
}

func (h *harness) curText() string {
	var s string
	h.e.call(func() { s = strings.Join(h.e.cur.lines.all(), "\n") })
	return s
}

// TestIdleEditorFollowingTheDiskWantsNoFrame covers the idle loop: an
// editor whose project is watched (a task parked on the watch's stream)
// wants no frame while nothing changes, so it sleeps instead of drawing
// every frame target.
func TestIdleEditorFollowingTheDiskWantsNoFrame(t *testing.T) {
	h, _ := startOnFile(t, "a.txt", "one\n")
	h.until("the loop wants no frame", func(e *session) bool { return !e.frameWanted() })
	var alive bool
	h.e.call(func() { alive = h.e.lb.Busy() })
	require.True(t, alive, "the watch's task is alive, parked")
}

// TestExternalChangeReloadsAnUnmodifiedBuffer covers reload on an outside
// change: a buffer without unsaved changes shows what another program
// wrote, without a key, its cursor and scroll kept.
func TestExternalChangeReloadsAnUnmodifiedBuffer(t *testing.T) {
	var sb strings.Builder
	for i := range 200 {
		sb.WriteString("line " + string(rune('a'+i%26)) + "\n")
	}
	h, path := startOnFile(t, "a.txt", sb.String())
	h.e.call(func() {
		h.e.cur.setCursor(pos{Row: 120, Col: 3})
		h.e.scrollToCursor(h.e.cur)
	})
	var top int
	h.e.call(func() { top = h.e.cur.top })
	require.Positive(t, top)
	require.NoError(t, os.WriteFile(path, []byte("changed elsewhere\n"+sb.String()), 0o644))
	h.until("the new text", func(e *session) bool { return e.cur.lines.row(0) == "changed elsewhere" })
	h.e.call(func() {
		require.Equal(t, pos{Row: 120, Col: 3}, h.e.cur.cursor)
		require.Equal(t, top, h.e.cur.top)
		require.False(t, h.e.cur.Modified())
	})
}

// TestExternalChangeToAModifiedBufferAsks covers an outside change to a
// buffer with unsaved changes: nothing is reloaded; the message says so
// and a prompt offers reload, keep or diff; d shows the buffer against the
// disk as a unified diff, and r reloads.
func TestExternalChangeToAModifiedBufferAsks(t *testing.T) {
	h, path := startOnFile(t, "a.txt", "alpha\nbeta\n")
	h.typeText("mine ")
	h.until("the edit", func(e *session) bool { return e.cur.lines.row(0) == "mine alpha" })
	require.NoError(t, os.WriteFile(path, []byte("alpha\nbeta\ntheirs\n"), 0o644))
	h.waitText("a.txt changed on disk: r reload, k keep, d diff")
	require.Equal(t, "mine alpha\nbeta", h.curText(), "a modified buffer is not reloaded")
	h.typeText("d")
	h.waitText("*diff a.txt*")
	rows := h.waitText("+mine alpha")
	require.True(t, anyContains(rows, "-alpha"), strings.Join(rows, "\n"))
	require.True(t, anyContains(rows, "-theirs"), strings.Join(rows, "\n"))
	require.True(t, anyContains(rows, "--- "+path+" (disk)"), strings.Join(rows, "\n"))

	h.e.call(func() { h.e.show(h.e.findBuffer(path)) })
	h.alt('R')
	h.waitText("is modified: reload it from the disk anyway? (y/n)")
	h.typeText("y")
	h.until("the file's text", func(e *session) bool { return strings.Join(e.cur.lines.all(), "\n") == "alpha\nbeta\ntheirs" })
}

// TestSaveNeverClobbersAnExternalChange covers saving over another
// program's change: C-s refuses, saying how to go on, and leaves the disk
// as the other program wrote it; M-x save-force writes the buffer.
func TestSaveNeverClobbersAnExternalChange(t *testing.T) {
	h, path := startOnFile(t, "a.txt", "alpha\n")
	h.typeText("mine ")
	h.until("the edit", func(e *session) bool { return e.cur.lines.row(0) == "mine alpha" })
	require.NoError(t, os.WriteFile(path, []byte("theirs\n"), 0o644))
	h.waitText("r reload, k keep, d diff")
	h.typeText("k")
	h.until("kept", func(e *session) bool { return e.prompt == nil })

	h.ctrl('s')
	h.until("the refusal", func(e *session) bool {
		return strings.Contains(e.msg, "file changed on disk since it was read: M-x save-force to overwrite, M-R to reload")
	})
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "theirs\n", string(got), "the other program's text is kept")
	h.e.call(func() { require.True(t, h.e.cur.Modified()) })

	h.alt('x')
	h.waitText("command (")
	h.typeText("save-force\r")
	h.until("written", func(e *session) bool { return strings.HasPrefix(e.msg, "wrote "+path) })
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "mine alpha\n", string(got))

	// Our own save is no outside change: the next save goes through.
	h.typeText("x")
	h.until("the second edit", func(e *session) bool { return e.cur.lines.row(0) == "mine xalpha" })
	h.ctrl('s')
	h.until("written again", func(e *session) bool { return !e.cur.Modified() })
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "mine xalpha\n", string(got))
}

// TestFileOutsideTheProjectIsCheckedWhenShown covers files no watch sees:
// one outside the project root, changed by another program while another
// buffer was shown, is reloaded when shown again.
func TestFileOutsideTheProjectIsCheckedWhenShown(t *testing.T) {
	h, path := startOnFile(t, "a.txt", "inside\n")
	other := filepath.Join(t.TempDir(), "b.txt")
	require.NoError(t, os.WriteFile(other, []byte("before\n"), 0o644))
	h.ctrl('o')
	h.waitText("open: ")
	h.ctrl('u')
	h.typeText(other + "\r")
	h.until("b.txt shown", func(e *session) bool { return e.cur.path == other && !e.cur.loading })
	h.e.call(func() { h.e.show(h.e.findBuffer(path)) })
	h.until("a.txt shown", func(e *session) bool { return e.cur.path == path })
	require.NoError(t, os.WriteFile(other, []byte("after, and longer\n"), 0o644))
	h.e.call(func() { h.e.show(h.e.findBuffer(other)) })
	h.until("b.txt reloaded", func(e *session) bool { return e.cur.path == other && e.cur.lines.row(0) == "after, and longer" })
}

// TestCheckDiskHashesWhenTheStatLeavesDoubt covers the save check's
// comparison: a file rewritten with the same size and its mtime put back
// is seen as changed while the mtime lies within the granularity window of
// the read (the content is hashed), and a mere touch is not a change.
func TestCheckDiskHashesWhenTheStatLeavesDoubt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(path, []byte("aaaa\n"), 0o644))
	ft, _, err := readFileText(path, nil)
	require.NoError(t, err)
	s := ft.stamp
	st, _ := checkDisk(path, s)
	require.Equal(t, diskSame, st)

	require.NoError(t, os.WriteFile(path, []byte("bbbb\n"), 0o644))
	require.NoError(t, os.Chtimes(path, s.mtime, s.mtime))
	st, _ = checkDisk(path, s)
	require.Equal(t, diskChanged, st, "same size and mtime, read within the window: hashed")

	require.NoError(t, os.WriteFile(path, []byte("aaaa\n"), 0o644))
	later := s.mtime.Add(time.Hour)
	require.NoError(t, os.Chtimes(path, later, later))
	st, fresh := checkDisk(path, s)
	require.Equal(t, diskSame, st, "a touch changes no text")
	require.Equal(t, later.Unix(), fresh.mtime.Unix())

	require.NoError(t, os.Remove(path))
	st, _ = checkDisk(path, s)
	require.Equal(t, diskGone, st)
	_ = tcell.KeyEnter
}

// onlyWatching reports that no task or job of the binding is alive but the
// watches following the disk (the project's, a directory view's outside
// it) and the tasks iterating them: what "idle" means for a test now that
// the editor always follows the disk.
func onlyWatching(e *session) bool {
	running, _ := watchesRunning(e)
	s := e.lb.Stats()
	return s.Tasks == running && s.Jobs == running
}

// stopProjectWatch cancels the project watch, for a test of *workers* that
// counts and selects the rows of its own jobs.
func (h *harness) stopProjectWatch() {
	h.t.Helper()
	h.e.call(func() {
		if id, ok := h.e.rt.ActiveForKey("disk:watch"); ok {
			h.e.rt.Cancel(id)
		}
	})
	h.until("the project watch gone", func(e *session) bool {
		running, _ := watchesRunning(e)
		return running == 0
	})
}
