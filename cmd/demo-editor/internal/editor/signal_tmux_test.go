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

	"github.com/pmacs-go/pmacs-go/internal/proctest"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// Issue 25, teardown: the interactive editor (the real binary in a real
// terminal) ended by SIGTERM or SIGHUP (the terminal gone) exits 128 plus
// the signal, and leaves nothing of the programs it ran: 3 s later neither
// a spawned program nor its setsid grandchild is running or a zombie.
func TestSignalEndsTheEditorAndItsPrograms(t *testing.T) {
	testenv.Peer(t, testenv.Tmux)
	bin := smokeBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			gcFile, shFile := filepath.Join(dir, "gc"), filepath.Join(dir, "sh")
			initFile := filepath.Join(dir, "init.lua")
			require.NoError(t, os.WriteFile(initFile, []byte(fmt.Sprintf(
				`pmacs.workers.spawn{cmd = {"sh", "-c", %q}}`+"\n",
				"setsid sleep 1000 & echo $! > "+gcFile+"; echo $$ > "+shFile+"; exec sleep 1000")), 0o644))

			s := &tmuxSession{t: t, socket: fmt.Sprintf("pmacs-signal-%d", os.Getpid())}
			out, err := s.run("-f", "/dev/null", "new-session", "-d", "-s", "smoke", "-x", "80", "-y", "24",
				"env", "TERM=xterm-256color", bin, "--init", initFile, dir)
			require.NoError(t, err, "tmux new-session: %s", out)
			t.Cleanup(func() { _, _ = s.run("kill-server") })
			_, _ = s.run("set-option", "-t", "smoke", "remain-on-exit", "on")

			tree := []proctest.Proc{proctest.Track(t, shFile), proctest.Track(t, gcFile)}
			tree[1].WaitFor(t, "setsid sleep", proctest.Detached("sleep"))
			out, err = s.run("display-message", "-p", "-t", "smoke", "#{pane_pid}")
			require.NoError(t, err, out)
			pid, err := strconv.Atoi(strings.TrimSpace(out))
			require.NoError(t, err, out)
			require.NoError(t, syscall.Kill(pid, sig))

			// The pane stays (remain-on-exit) to tell how the editor ended:
			// an exit status, not a death by the signal. tmux may mark the
			// pane dead (its terminal closed) before it has the status.
			var dead []string
			s.waitFor("the editor to exit", func(string) bool {
				out, err := s.run("display-message", "-p", "-t", "smoke", "#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}")
				dead = strings.Split(strings.TrimSpace(out), "|")
				return err == nil && len(dead) == 3 && dead[0] == "1" && dead[1]+dead[2] != ""
			})
			proctest.Gone(t, 3*time.Second, tree...)
			require.Equal(t, []string{"1", strconv.Itoa(128 + int(sig)), ""}, dead, "dead, status, signal")
		})
	}
}
