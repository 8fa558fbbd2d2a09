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

			// A shell in the pane runs the editor in the foreground and
			// writes its exit status: tmux may not have reaped a dead pane's
			// process by the time its status is asked for.
			statusFile := filepath.Join(dir, "status")
			s := &tmuxSession{t: t, socket: fmt.Sprintf("pmacs-signal-%d-%d", os.Getpid(), int(sig))}
			out, err := s.run("-f", "/dev/null", "new-session", "-d", "-s", "smoke", "-x", "80", "-y", "24",
				"env", "TERM=xterm-256color", "sh", "-c", `"$0" --init "$1" "$2"; echo $? > "$3"`,
				bin, initFile, dir, statusFile)
			require.NoError(t, err, "tmux new-session: %s", out)
			t.Cleanup(func() { _, _ = s.run("kill-server") })

			tree := []proctest.Proc{proctest.Track(t, shFile), proctest.Track(t, gcFile)}
			tree[1].WaitFor(t, "setsid sleep", proctest.Detached("sleep"))
			// The spawned program's parent is the editor.
			sh, ok := proctest.Stat(tree[0].Pid)
			require.True(t, ok)
			editor, ok := proctest.Stat(sh.Ppid)
			require.True(t, ok)
			require.Equal(t, "demo-editor", editor.Comm)
			require.NoError(t, syscall.Kill(editor.Pid, sig))

			var status string
			s.waitFor("the editor's exit status", func(string) bool {
				b, err := os.ReadFile(statusFile)
				status = string(b)
				return err == nil && strings.HasSuffix(status, "\n")
			})
			proctest.Gone(t, 3*time.Second, tree...)
			require.Equal(t, strconv.Itoa(128+int(sig))+"\n", status, "the editor's exit status")
		})
	}
}
