package editor

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// command runs an M-x command line and returns the message it leaves.
func (h *harness) command(line string) string {
	h.t.Helper()
	h.alt('x')
	h.waitText("command (")
	h.typeText(line)
	h.key(tcell.KeyEnter)
	var msg string
	h.until("the command's message", func(e *session) bool {
		msg = e.msg
		return e.prompt == nil && msg != ""
	})
	return msg
}

// Issue 14: M-x arguments are checked and a wrong one gets a message that
// says what was expected, never a traceback, a silent no-op or a silent
// clamp.
func TestCommandArgumentsAreValidated(t *testing.T) {
	h := startEditor(t, Options{Path: t.TempDir()})
	h.waitText("..")
	target := func() time.Duration {
		var d time.Duration
		h.e.call(func() { d = h.e.rt.FrameTarget() })
		return d
	}
	before := target()

	for line, want := range map[string]string{
		"sum -3":            "sum: -3 is out of range (n, 0 to 134217727)",
		"sum lots":          `sum: "lots" is not a whole number (n, 0 to 134217727)`,
		"sleep 1.5":         `sleep: "1.5" is not a whole number (milliseconds, 0 to 86400000)`,
		"frame-target abc":  `frame-target: "abc" is not a whole number (milliseconds, 1 to 1000)`,
		"frame-target 5000": "frame-target: 5000 is out of range (milliseconds, 1 to 1000)",
		"frame-target 0":    "frame-target: 0 is out of range (milliseconds, 1 to 1000)",
		"grep now":          `grep takes no argument, got "now"`,
		"open":              "open: needs a path",
		"shell":             "shell: needs a command",
		"bogus 1":           "no command bogus (known: calls, close, code-action, compile, diff-disk, dired, doc-highlight, format, format-on-save, frame-target, git-blame, git-status, grep, implementation, inlay-hints, line-numbers, lsp-info, mcp-connect, next-hunk, open, outline, prev-hunk, project-replace, recover, reload, rename, replace, revert-hunk, save-all, save-force, semantic-highlighting, shell, sleep, stage-hunk, sum, symbols, trust, type-definition, untrust, workers, workspace-symbols)",
	} {
		require.Equal(t, want, h.command(line), "M-x %s", line)
		var isErr bool
		h.e.call(func() { isErr = h.e.msgErr })
		require.True(t, isErr, "M-x %s is shown as an error", line)
	}
	require.Equal(t, before, target(), "no rejected value changed the frame target")

	require.Equal(t, "frame target 20 ms", h.command("frame-target 20"))
	require.Equal(t, 20*time.Millisecond, target())
	require.Equal(t, "sum 1..10 = 55", waitMessage(h, "sum 10", "sum 1..10"))

	h.ctrl('e')
	rows := h.waitText("*messages*")
	require.False(t, anyContains(rows, "stack traceback"), "no command raised:\n%s", strings.Join(rows, "\n"))
}

// waitMessage runs a command and waits for a later message starting with
// prefix (a job's result).
func waitMessage(h *harness, line, prefix string) string {
	h.t.Helper()
	h.command(line)
	var msg string
	h.until("the job's message", func(e *session) bool {
		msg = e.msg
		return strings.HasPrefix(msg, prefix)
	})
	return msg
}
