//go:build linux

package editor

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/proctest"
)

// Issue 25, teardown: the editor's quit (its close) returns within 3 s
// whatever the programs it started do (a setsid grandchild holding stdout,
// SIGTERM ignored, a stdout full that nobody reads), and then none of their
// grandchildren is running or a zombie.
func TestQuitEndsEveryProgramTree(t *testing.T) {
	scr := tcell.NewSimulationScreen("UTF-8")
	e, err := newEditor(Options{Path: t.TempDir(), Screen: scr})
	require.NoError(t, err)
	closed := false
	t.Cleanup(func() {
		if !closed {
			e.close()
		}
	})
	var ps []proctest.Proc
	for _, kind := range []string{proctest.Grandchild, proctest.IgnoreTerm, proctest.FullPipe} {
		pf := filepath.Join(t.TempDir(), "pid")
		prefix, comm := proctest.Hostile(kind, pf)
		runLua(t, e, fmt.Sprintf(`pmacs.workers.spawn{cmd = {"sh", "-c", %q}}`, prefix+"exec sleep 1000"))
		p := proctest.Track(t, pf)
		p.WaitFor(t, "the descendant in place", proctest.Detached(comm))
		ps = append(ps, p)
	}
	start := time.Now()
	e.close()
	closed = true
	require.Less(t, time.Since(start), 3*time.Second)
	proctest.Gone(t, 3*time.Second, ps...)
}
