//go:build linux

package proc

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Teardown bound: a member of a killed group that does not exit (stuck in
// the kernel, or one that joined the group after the kill) holds
// reapGroup, and so Wait and every Close behind it, no longer than its
// bound: the running member is left, not waited for. A member that has
// exited is still reaped.
func TestReapGroupIsBoundedByItsDeadline(t *testing.T) {
	stuck := exec.Command("sleep", "60")
	stuck.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, stuck.Start())
	t.Cleanup(func() {
		_ = stuck.Process.Kill()
		_ = stuck.Wait()
	})
	done := make(chan struct{})
	go func() {
		reapGroup(stuck.Process.Pid, 100*time.Millisecond)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = stuck.Process.Kill()
		<-done
		t.Fatal("reapGroup waited 30 s for a member that did not exit")
	}
	require.NoError(t, stuck.Process.Signal(syscall.Signal(0)), "the running member is left alone")

	exited := exec.Command("true")
	exited.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, exited.Start())
	pid := exited.Process.Pid
	var info unix.Siginfo
	require.NoError(t, unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil))
	reapGroup(pid, time.Second)
	var ws unix.WaitStatus
	_, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
	require.ErrorIs(t, err, unix.ECHILD, "the exited member was reaped")
	_ = exited.Wait() // reaped already: only releases the handle
}
