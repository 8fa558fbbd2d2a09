//go:build unix

package editor

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The server hears "applied" only once every file is edited, the one that
// was not open too: the answer waits for its text. other.go is a named
// pipe here, so its read waits until the test writes it; the answer used
// to go before the read, while the file was not yet edited.
func TestServerApplyEditAnswersAfterEveryFileIsEdited(t *testing.T) {
	logPath := useFakeLSP(t)
	path, other := fakeEditFiles(t, "m.go")
	require.NoError(t, os.Remove(other))
	require.NoError(t, syscall.Mkfifo(other, 0o644))
	h := startEditor(t, Options{Path: path})
	// A test that fails before it writes the pipe must not leave the
	// editor's read blocked in open, and the editor's shutdown waiting on
	// it: a writer that opens and closes ends the read. (Cleanups run last
	// first: this one before the editor's.)
	t.Cleanup(func() {
		if f, err := os.OpenFile(other, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	h.untilSynced()
	h.ctrl('s')
	h.until("other.go opened by the edit, and still being read", func(e *session) bool {
		b := e.findBuffer("other.go")
		return b != nil && b.loading
	})
	// No answer while the file cannot be read. Before, it went at once.
	time.Sleep(300 * time.Millisecond)
	data, err := os.ReadFile(logPath)
	if !os.IsNotExist(err) {
		require.NoError(t, err)
	}
	require.NotContains(t, string(data), `reply "apply-1"`, "the server was answered before other.go was read and edited")

	w, err := os.OpenFile(other, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = w.WriteString("package m\n\nvar x = 1\n")
	require.NoError(t, err)
	require.NoError(t, w.Close())
	requireFakeReply(t, logPath, "apply-1", `reply "apply-1" {"applied":true}`)
	var text string
	h.e.call(func() {
		if b := h.e.findBuffer("other.go"); b != nil && !b.loading {
			text = b.Text()
		}
	})
	require.Equal(t, "package m\n\nvar renamed = 1\n", text, "other.go is read and edited when the answer goes")
}

// A workspace edit that opens a file waits for its read parked on a
// future, which the "loaded" event completes: no frame resumes it to ask
// again (it used to wait in a coroutine.yield loop, a task "waiting on a
// yield" every frame). other.go is a named pipe, so its read lands only
// when the test writes it; then the edit goes on at once.
func TestWorkspaceEditWaitsForAReadOnAFuture(t *testing.T) {
	logPath := useFakeLSP(t)
	path, other := fakeEditFiles(t, "m.go")
	require.NoError(t, os.Remove(other))
	require.NoError(t, syscall.Mkfifo(other, 0o644))
	h := startEditor(t, Options{Path: path})
	t.Cleanup(func() {
		if f, err := os.OpenFile(other, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	h.untilSynced()
	h.ctrl('s')
	h.until("the edit's task parked on a future while other.go is read", func(e *session) bool {
		b := e.findBuffer("other.go")
		if b == nil || !b.loading {
			return false
		}
		onFuture := false
		for _, ti := range e.lb.Tasks() {
			if ti.Waiting == "a yield" {
				return false
			}
			onFuture = onFuture || ti.Waiting == "a future"
		}
		return onFuture
	})

	w, err := os.OpenFile(other, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = w.WriteString("package m\n\nvar x = 1\n")
	require.NoError(t, err)
	require.NoError(t, w.Close())
	requireFakeReply(t, logPath, "apply-1", `reply "apply-1" {"applied":true}`)
	h.until("no task left waiting", onlyWatching)
}
