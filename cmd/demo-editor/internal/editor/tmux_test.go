package editor

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/stretchr/testify/require"
)

// smokeBinary is the package built for the smoke test: the real command.
// PMACS_EDITOR_SMOKE_PKG names another main package (one that calls Run)
// to try the test against before the command is wired up.
//
// It is built once per run of the package's tests (a build takes tens of
// seconds on a loaded machine, and four tests run it).
func smokeBinary(t *testing.T) string {
	t.Helper()
	pkg := os.Getenv("PMACS_EDITOR_SMOKE_PKG")
	if pkg == "" {
		pkg = "github.com/pmacs-go/pmacs-go/cmd/demo-editor"
	}
	smokeBuild.Do(func() {
		smokeBuild.bin = filepath.Join(testStateDir, "bin", "demo-editor")
		smokeBuild.out, smokeBuild.err = exec.Command("go", "build", "-o", smokeBuild.bin, pkg).CombinedOutput()
	})
	bin := smokeBuild.bin
	require.NoError(t, smokeBuild.err, "go build: %s", smokeBuild.out)
	// The interactive mode takes --init; a command that does not know it
	// yet cannot run the editor.
	help, _ := exec.Command(bin, "--help").CombinedOutput()
	if !bytes.Contains(help, []byte("-init")) {
		t.Skipf("%s has no interactive mode (its usage does not mention --init):\n%s", pkg, help)
	}
	return bin
}

// smokeBuild is the one build of smokeBinary.
var smokeBuild struct {
	sync.Once
	bin string
	out []byte
	err error
}

// tmuxSession drives one detached tmux session on a private server.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func (s *tmuxSession) run(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	return string(out), err
}

func (s *tmuxSession) send(keys ...string) {
	s.t.Helper()
	out, err := s.run(append([]string{"send-keys", "-t", "smoke"}, keys...)...)
	require.NoError(s.t, err, "send-keys: %s", out)
}

func (s *tmuxSession) capture() string {
	out, _ := s.run("capture-pane", "-p", "-t", "smoke")
	return out
}

func (s *tmuxSession) waitFor(what string, cond func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		screen := s.capture()
		if cond(screen) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s; pane:\n%s", what, screen)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *tmuxSession) waitText(text string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q", text), func(screen string) bool { return strings.Contains(screen, text) })
}

// Acceptance: a smoke test of the real binary in a real terminal (tmux):
// it opens a file, edits and saves it, selects, copies (through OSC 52 to
// tmux's clipboard) and pastes, searches the buffer, splits the screen, greps, shows *workers*, and quits.
func TestSmokeRealBinaryUnderTmux(t *testing.T) {
	testenv.Peer(t, testenv.Tmux)
	bin := smokeBinary(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "hello.txt")
	require.NoError(t, os.WriteFile(file, []byte("hello smoke\n"), 0o644))

	s := &tmuxSession{t: t, socket: fmt.Sprintf("pmacs-smoke-%d", os.Getpid())}
	out, err := s.run("-f", "/dev/null", "new-session", "-d", "-s", "smoke", "-x", "80", "-y", "24",
		"env", "TERM=xterm-256color", "XDG_STATE_HOME="+os.Getenv("XDG_STATE_HOME"), bin, file)
	require.NoError(t, err, "tmux new-session: %s", out)
	t.Cleanup(func() { _, _ = s.run("kill-server") })

	s.waitText("hello smoke")
	s.waitText("^Q quit") // the help line fits an 80-column terminal

	s.send("End", "!", "!")
	s.waitText("hello smoke!!")
	s.send("C-s")
	s.waitText("wrote " + file)
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, "hello smoke!!\n", string(got))

	// Select the line with shift, copy it (to tmux's clipboard too, over
	// OSC 52), and paste it at the end.
	_, _ = s.run("set-option", "-g", "set-clipboard", "on")
	s.send("S-Home")
	s.send("C-c")
	s.waitText("copied 13 bytes")
	s.send("End", "C-v")
	s.waitText("hello smoke!!hello smoke!!")
	s.waitFor("the copy in tmux's paste buffer", func(string) bool {
		out, err := s.run("show-buffer")
		return err == nil && out == "hello smoke!!"
	})
	s.send("C-z")
	s.waitFor("the paste undone", func(screen string) bool { return !strings.Contains(screen, "hello smoke!!hello") })

	// In-buffer search: a job over the buffer's text, the match counted
	// and stepped to with F3 after the prompt closes.
	s.send("Home")
	s.waitText(" 1:1 ")
	s.send("M-f")
	s.waitText("search:")
	s.send("-l", "smoke")
	s.waitText("[1/1 match, literal]")
	s.send("Enter", "F3")
	s.waitText("match 1/1 (wrapped)")

	// A split: both windows show the file, the upper one with its own
	// status line; M-1 goes back to one window.
	s.send("M-2")
	s.waitFor("two windows", func(screen string) bool { return strings.Count(screen, "hello smoke!!") == 2 })
	s.send("M-1")
	s.waitFor("one window", func(screen string) bool { return strings.Count(screen, "hello smoke!!") == 1 })

	s.send("C-f")
	s.waitText("grep:")
	s.send("-l", "smoke")
	s.waitText("hello.txt:1: hello smoke!!")
	s.send("Escape")
	s.waitFor("the grep closed", func(screen string) bool { return !strings.Contains(screen, "grep:") })

	s.send("C-w")
	s.waitText("Active jobs:")
	s.waitText("Recent completions:")

	s.send("C-q")
	s.waitFor("the editor to exit", func(string) bool {
		_, err := s.run("has-session", "-t", "smoke")
		return err != nil
	})
}

// The real binary runs the user's init file from $XDG_CONFIG_HOME/pmacs,
// shows an error in it with its line while the editor starts, and
// --clean starts without it.
func TestUserConfigAndCleanUnderTmux(t *testing.T) {
	testenv.Peer(t, testenv.Tmux)
	bin := smokeBinary(t)
	file := filepath.Join(t.TempDir(), "hello.txt")
	require.NoError(t, os.WriteFile(file, []byte("hello config\n"), 0o644))
	home := t.TempDir()
	config := filepath.Join(home, "pmacs", "init.lua")
	require.NoError(t, os.MkdirAll(filepath.Dir(config), 0o755))

	start := func(name string, args ...string) *tmuxSession {
		s := &tmuxSession{t: t, socket: fmt.Sprintf("pmacs-config-%s-%d", name, os.Getpid())}
		cmd := append([]string{"-f", "/dev/null", "new-session", "-d", "-s", "smoke", "-x", "100", "-y", "24",
			"env", "TERM=xterm-256color", "XDG_STATE_HOME=" + os.Getenv("XDG_STATE_HOME"), "XDG_CONFIG_HOME=" + home, bin}, args...)
		out, err := s.run(cmd...)
		require.NoError(t, err, "tmux new-session: %s", out)
		t.Cleanup(func() { _, _ = s.run("kill-server") })
		return s
	}

	require.NoError(t, os.WriteFile(config, []byte("local ctx = ...\nctx.ed.set_help(\"MY CONFIG RAN\")\n"), 0o644))
	s := start("user", file)
	s.waitText("hello config")
	s.waitText("MY CONFIG RAN")

	s = start("clean", "--clean", file)
	s.waitText("hello config")
	screen := s.waitText("^Q quit")
	require.NotContains(t, screen, "MY CONFIG RAN")

	require.NoError(t, os.WriteFile(config, []byte("local ctx = ...\n\nctx.nothing.here = 1\n"), 0o644))
	s = start("broken", file)
	s.waitText("hello config")
	s.waitText("init.lua:3:")
}
