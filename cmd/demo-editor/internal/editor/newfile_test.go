package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// lastMessage is the message line's whole text (the screen cuts it to the
// terminal width).
func (h *harness) lastMessage() string {
	var m string
	h.e.call(func() { m = h.e.msg })
	return m
}

// Issue 14: a missing path opens as a new file and says so; saving it
// under a missing directory asks first, and creates the directory only on
// "y"; "PATH/" for a missing directory is an error, not a file buffer
// named after it.
func TestMissingPathsSayNewFileAndAskForDirectories(t *testing.T) {
	root := t.TempDir()
	h := startEditor(t, Options{Path: root})
	h.waitText("..")

	h.ctrl('o')
	h.waitText("open: ")
	h.ctrl('u')
	h.typeText(filepath.Join(root, "plain.txt") + "\r")
	h.waitText("plain.txt")
	h.until("the new-file message", func(e *session) bool {
		return e.msg == "new file "+filepath.Join(root, "plain.txt")+" (the first save creates it)"
	})

	sub := filepath.Join(root, "sub", "deeper")
	path := filepath.Join(sub, "new.txt")
	h.ctrl('o')
	h.ctrl('u')
	h.typeText(path + "\r")
	h.until("the new-file message", func(e *session) bool { return strings.HasPrefix(e.msg, "new file "+path+";") })
	require.Contains(t, h.lastMessage(), "its directory does not exist either")

	h.typeText("hi")
	h.ctrl('s')
	h.until("the question", func(e *session) bool {
		return e.prompt != nil && e.prompt.label == "directory "+sub+" does not exist: create it and save? (y/n) "
	})
	h.typeText("n")
	h.waitScreen("the refusal", func(rows []string) bool { return messageLine(rows) == "not saved" })
	require.NoDirExists(t, filepath.Join(root, "sub"))

	h.ctrl('s')
	h.until("the question", func(e *session) bool {
		return e.prompt != nil && e.prompt.label == "directory "+sub+" does not exist: create it and save? (y/n) "
	})
	h.typeText("y")
	h.waitText("wrote " + path)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "hi\n", string(got))

	// A trailing slash names a directory.
	h.ctrl('o')
	h.ctrl('u')
	missing := filepath.Join(root, "nodir")
	h.typeText(missing + "/\r")
	h.waitScreen("the error", func(rows []string) bool { return messageLine(rows) == "open: no directory "+missing })
	var named bool
	h.e.call(func() { named = h.e.findBuffer("nodir") != nil })
	require.False(t, named, "no buffer is named after the missing directory")
}
