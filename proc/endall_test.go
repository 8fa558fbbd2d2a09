//go:build linux

package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/internal/proctest"
)

// endAllHelperEnv makes the test binary start programs that leave
// descendants of every kind, write their pids to files in a directory, and call
// EndAll (see TestMain and TestEndAllEndsEveryDescendant).
const endAllHelperEnv = "PMACS_PROC_ENDALL_HELPER"

// runEndAllHelper is the helper process: it leaves an escaped, cookie-less
// orphan, a cookie-carrying orphan, a running program and a child started
// outside proc, then ends them all with EndAll.
func runEndAllHelper(dir string) int {
	if err := BecomeSubreaper(); err != nil {
		return 3
	}
	shPath, _ := exec.LookPath("sh")
	sleepPath, _ := exec.LookPath("sleep")
	// An orphan without the cookie, reparented here: its program waits
	// until it has cleared its environment, so the program's own end does
	// not find it.
	_, _ = Run(context.Background(), Spec{Argv: sh(`(setsid env -i ` + shPath + ` -c 'echo $$ > ` + dir +
		`/a; exec ` + sleepPath + ` 1000' &); until [ -s ` + dir + `/a ]; do sleep 0.01; done`)})
	// An orphan with the cookie whose program has not ended yet.
	_, _ = Start(context.Background(), Spec{Argv: sh(`(setsid sleep 1000 & echo $! > ` + dir + `/b); sleep 1000`)})
	// A program that runs, and its group.
	_, _ = Start(context.Background(), Spec{Argv: sh(`sleep 1000 & echo $! > ` + dir + `/c; wait`)})
	// A child this process started without proc.
	cmd := exec.Command("sleep", "1000")
	if cmd.Start() == nil {
		_ = os.WriteFile(dir+"/d", []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644)
	}
	// The test follows the pids before they are ended: it says when.
	for _, f := range []string{"a", "b", "c", "go"} {
		for i := 0; i < 10000; i++ {
			if b, err := os.ReadFile(dir + "/" + f); err == nil && (f == "go" || strings.HasSuffix(string(b), "\n")) {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := EndAll(ctx); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	// Every child has been reaped: nothing is left to wait for.
	var ws unix.WaitStatus
	if _, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil); err != unix.ECHILD {
		os.Stderr.WriteString("a child is left after EndAll\n")
		return 4
	}
	return 0
}

// Issue 25, teardown: EndAll, called at program exit, ends every process
// carrying a cookie of this process, every program still running and every
// child (also those started without proc, and cookie-less orphans
// reparented to the subreaper), and reaps them all: none is left running
// or a zombie.
func TestEndAllEndsEveryDescendant(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), endAllHelperEnv+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	var ps []proctest.Proc
	for _, f := range []string{"a", "b", "c", "d"} {
		ps = append(ps, proctest.Track(t, filepath.Join(dir, f)))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o644))
	err = cmd.Wait()
	require.NoError(t, err, "helper: %s", stderr.String())
	// The helper was their subreaper and reaped them: none may be left,
	// not even a zombie handed on to this process.
	proctest.Gone(t, teardownBound, ps...)
}

// reapHelperEnv makes the test binary a subreaper that runs ReapOrphans
// (see TestMain and TestReapOrphansReapsWhatExitsOnItsOwn).
const reapHelperEnv = "PMACS_PROC_REAP_HELPER"

// runReapHelper leaves an orphan that escaped its program's tree and exits
// on its own 300 ms later, while a program runs; ReapOrphans must reap the
// orphan and leave the program to its own Wait.
func runReapHelper(dir string) int {
	if err := BecomeSubreaper(); err != nil {
		return 3
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ReapOrphans(ctx)
	sleepPath, _ := exec.LookPath("sleep")
	running, err := Start(context.Background(), Spec{Argv: []string{"sleep", "0.6"}})
	if err != nil {
		return 4
	}
	_, _ = Run(context.Background(), Spec{Argv: sh(`(setsid env -i ` + sleepPath + ` 0.3 & echo $! > ` + dir + `/a)`)})
	b, err := os.ReadFile(dir + "/a")
	if err != nil {
		return 5
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	for i := 0; ; i++ {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			break
		}
		if i > 3000 {
			os.Stderr.WriteString("the orphan was not reaped\n")
			return 1
		}
		time.Sleep(time.Millisecond)
	}
	if ex, err := running.Wait(); err != nil || ex.Code != 0 {
		os.Stderr.WriteString("the running program's Wait: " + fmt.Sprint(ex, err) + "\n")
		return 1
	}
	return 0
}

// Issue 25, teardown ("no zombie"): a subreaper running ReapOrphans reaps
// an orphan that escaped its program's tree and exited on its own (as
// gopls's detached telemetry helper does while gopls runs), without taking
// a running program's exit from its Wait.
func TestReapOrphansReapsWhatExitsOnItsOwn(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), reapHelperEnv+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), "helper: %s", stderr.String())
}
