//go:build linux

package proc

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/proctest"
)

// teardownBound is the bound on every teardown: 3 s.
const teardownBound = 3 * time.Second

// pidFile is where a test script writes a descendant's pid.
func pidFile(t *testing.T) string { return filepath.Join(t.TempDir(), "pid") }

// Issue 25, teardown: a program that exits and leaves a setsid grandchild
// holding its stdout ends that grandchild too; Wait returns and, within
// 3 s, the grandchild is neither running nor a zombie.
func TestSetsidGrandchildEndsWhenTheProgramExits(t *testing.T) {
	pf := pidFile(t)
	var out []got
	p, err := Start(context.Background(), Spec{Argv: sh(`setsid sleep 1000 & echo $! > ` + pf + `; echo done`),
		Lines: collect(&out)})
	require.NoError(t, err)
	gc := proctest.Track(t, pf)
	gc.WaitFor(t, "setsid sleep", proctest.Detached("sleep"))
	ex, err := p.Wait()
	require.NoError(t, err)
	require.Equal(t, Exit{Code: 0}, ex)
	require.Equal(t, []got{{Stream: Stdout, Text: "done"}}, out)
	proctest.Gone(t, teardownBound, gc)
}

// Issue 25, teardown: cancel, timeout and Kill end a setsid grandchild
// that holds stdout, beside the group; Wait returns within 3 s.
func TestStopEndsSetsidGrandchild(t *testing.T) {
	for _, how := range []string{"cancel", "timeout", "kill"} {
		t.Run(how, func(t *testing.T) {
			pf := pidFile(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			spec := Spec{Argv: sh(`setsid sleep 1000 & echo $! > ` + pf + `; sleep 1000`),
				Lines: func([]Line) error { return nil }}
			if how == "timeout" {
				spec.Timeout = 200 * time.Millisecond
			}
			p, err := Start(ctx, spec)
			require.NoError(t, err)
			gc := proctest.Track(t, pf)
			gc.WaitFor(t, "setsid sleep", proctest.Detached("sleep"))
			start := time.Now()
			switch how {
			case "cancel":
				cancel()
			case "kill":
				p.Kill()
			}
			_, _ = p.Wait()
			require.Less(t, time.Since(start), teardownBound+spec.Timeout)
			proctest.Gone(t, teardownBound, gc)
		})
	}
}

// Issue 25, teardown: a child that left the group and cleared its
// environment (so it carries no tree cookie) is still found through its
// parent while the program runs, and ends with it on cancel.
func TestCancelEndsChildThatClearedItsEnvironment(t *testing.T) {
	pf := pidFile(t)
	sleep, err := exec.LookPath("sleep")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := Start(ctx, Spec{Argv: sh(`setsid env -i ` + sleep + ` 1000 & echo $! > ` + pf + `; sleep 1000`)})
	require.NoError(t, err)
	gc := proctest.Track(t, pf)
	gc.WaitFor(t, "setsid env -i sleep", proctest.Detached("sleep"))
	cancel()
	_, _ = p.Wait()
	proctest.Gone(t, teardownBound, gc)
}

// Issue 25, teardown ("a stdout that is never closed"): a process that
// escaped the tree (no cookie, no parent in it) and keeps writing to the
// program's stdout does not hold Wait: once the tree is killed, the pipes
// are read for at most WaitDelay more.
func TestEscapedWriterCannotHoldWait(t *testing.T) {
	pf := pidFile(t)
	shPath, err := exec.LookPath("sh")
	require.NoError(t, err)
	// env -i clears the cookie; the subshell's exit breaks the parent chain.
	script := `(setsid env -i ` + shPath + ` -c 'echo $$ > ` + pf + `; while :; do echo flood; done' &); echo started`
	p, err := Start(context.Background(), Spec{Argv: sh(script), WaitDelay: 100 * time.Millisecond,
		Lines: func([]Line) error { return nil }})
	require.NoError(t, err)
	proctest.Track(t, pf) // killed when the test ends
	done := make(chan struct{})
	go func() {
		_, _ = p.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(teardownBound):
		t.Fatal("Wait did not return while an escaped process kept writing")
	}
}
