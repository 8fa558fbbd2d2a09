//go:build linux

package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/journal"
)

// Acceptance (1): the real binary in a real terminal. Text typed into a
// file (non-ASCII, and a CRLF file) is journalled within the debounce;
// once the journal on disk replays to exactly that text the editor is
// killed with SIGKILL (no chance to flush anything); started again on the
// file, it asks, and y recovers the text: saved, the file holds byte for
// byte the text the buffer held before the kill.
func TestKillNineThenRecoverUnderTmux(t *testing.T) {
	testenv.Peer(t, testenv.Tmux)
	bin := smokeBinary(t)
	cases := []struct {
		name, text, want string
	}{
		{"lf", "héllo wörld\nzweite Zeile\n", "héllo wörld ünïcödé ✓\nnew line € 日本\nzweite Zeile\n"},
		{"crlf", "héllo wörld\r\nzweite Zeile\r\n", "héllo wörld ünïcödé ✓\r\nnew line € 日本\r\nzweite Zeile\r\n"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			state := filepath.Join(dir, "state")
			file := filepath.Join(dir, c.name+".txt")
			require.NoError(t, os.WriteFile(file, []byte(c.text), 0o644))
			start := func(round int) *tmuxSession {
				s := &tmuxSession{t: t, socket: fmt.Sprintf("pmacs-recover-%d-%d-%d", os.Getpid(), i, round)}
				out, err := s.run("-f", "/dev/null", "new-session", "-d", "-s", "smoke", "-x", "120", "-y", "24",
					"env", "TERM=xterm-256color", "LANG=C.UTF-8", "XDG_STATE_HOME="+state,
					"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), bin, file)
				require.NoError(t, err, "tmux new-session: %s", out)
				t.Cleanup(func() { _, _ = s.run("kill-server") })
				return s
			}

			s := start(1)
			s.waitText("héllo wörld")
			s.send("End")
			s.send("-l", " ünïcödé ✓")
			s.send("Enter")
			s.send("-l", "new line € 日本")
			s.waitText("new line € 日本")

			// The journal is written 300 ms after the typing pauses: wait
			// until what is on disk recovers the text typed.
			jdir := filepath.Join(state, "pmacs", "journal")
			deadline := time.Now().Add(waitTimeout)
			for {
				ft, _, err := readFileText(file, nil)
				require.NoError(t, err)
				o := findJournal(jdir, file, ft, baseOf(ft))
				if o != nil && o.err == nil && string(joinText(&o.rec.lines, o.rec.eol, o.rec.crlf, o.rec.ends)) == c.want {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the journal never held the typed text; pane:\n%s", s.capture())
				}
				time.Sleep(20 * time.Millisecond)
			}
			pidText, err := s.run("display-message", "-p", "-t", "smoke", "#{pane_pid}")
			require.NoError(t, err)
			pid, err := strconv.Atoi(strings.TrimSpace(pidText))
			require.NoError(t, err)
			require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
			s.waitFor("the killed editor's session to end", func(string) bool {
				_, err := s.run("has-session", "-t", "smoke")
				return err != nil
			})
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			require.Equal(t, c.text, string(data), "nothing was saved before the kill")

			s = start(2)
			s.waitText("has unsaved edits from")
			s.send("y")
			s.waitText("recovered " + file)
			s.waitText("new line € 日本")
			s.send("C-s")
			s.waitText("wrote " + file)
			data, err = os.ReadFile(file)
			require.NoError(t, err)
			require.Equal(t, c.want, string(data))
			// Saved: the journal is gone.
			s.waitFor("the journal removed", func(string) bool {
				_, err := os.Stat(filepath.Join(jdir, journal.Name(file)))
				return os.IsNotExist(err)
			})
		})
	}
}
