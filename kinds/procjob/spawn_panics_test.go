//go:build linux

package procjob

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/proc"
)

// A panic in the callback proc's reader goroutines call with a spawn's
// output (lines for spawn, chunks for system) fails the job with
// internal_error and the panic value, kills the program, and leaves the
// loop running: those goroutines are not the executor's, and a panic on
// them ended the process.
func TestPanicInSpawnOutputCallbackFailsTheJob(t *testing.T) {
	setHook(t, &spawnOutputHook, func() { panic("boom in the output callback") })
	rt := newRT(t, 2)
	spawn := rt.DispatchSpawn(proc.Spec{Argv: []string{"sh", "-c", "echo one; exec sleep 100"}}, DispatchOptions{})
	res := drainSpawn(t, rt, spawn)
	requirePanicFailure(t, res.outcome, KindSpawn, "output callback", "boom in the output callback")
	require.Empty(t, res.lines)

	system := rt.DispatchSystem(proc.Spec{Argv: []string{"sh", "-c", "echo one; exec sleep 100"}}, 0, DispatchOptions{})
	requirePanicFailure(t, outcomeOf(t, rt, system), KindSystem, "output callback", "boom in the output callback")
	requireLoopGoesOn(t, rt)
}
