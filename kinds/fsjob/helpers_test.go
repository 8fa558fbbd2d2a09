package fsjob

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// The tests below were written against the runtime's methods; these
// wrappers keep them readable: a DispatchOptions of the test's own carries
// a job's roots beside its key, as the runtime's did.

type DispatchOptions struct {
	Key   string
	Roots []string
}

type testRT struct{ *runtime.Runtime }

func newRT(t testing.TB, pool int) testRT { return testRT{kindtest.New(t, pool)} }

func (o DispatchOptions) split() (Scope, runtime.DispatchOptions) {
	return Scope{Roots: o.Roots}, runtime.DispatchOptions{Key: o.Key}
}

func (rt testRT) DispatchReadDir(path string, tol fsops.Tolerance, o DispatchOptions) runtime.JobID {
	sc, d := o.split()
	return ReadDir(rt.Runtime, path, tol, sc, d)
}

func (rt testRT) DispatchStat(path string, o DispatchOptions) runtime.JobID {
	sc, d := o.split()
	return Stat(rt.Runtime, path, sc, d)
}

func (rt testRT) DispatchRename(from, to string, overwrite bool, o DispatchOptions) runtime.JobID {
	sc, d := o.split()
	return Rename(rt.Runtime, from, to, overwrite, sc, d)
}

func (rt testRT) DispatchChmod(path string, mode uint32, o DispatchOptions) runtime.JobID {
	sc, d := o.split()
	return Chmod(rt.Runtime, path, mode, sc, d)
}

func (rt testRT) DispatchRemove(path string, o DispatchOptions) runtime.JobID {
	sc, d := o.split()
	return Remove(rt.Runtime, path, sc, d)
}

func (rt testRT) DispatchMkdir(path string, o DispatchOptions) runtime.JobID {
	sc, d := o.split()
	return Mkdir(rt.Runtime, path, sc, d)
}

func makeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteTree(t, dir, files)
	return dir
}

func outcomeOf(t testing.TB, rt testRT, id runtime.JobID) runtime.Outcome {
	t.Helper()
	return kindtest.Outcome(t, rt.Runtime, id)
}

func jobErr(t testing.TB, err error) *runtime.JobError { t.Helper(); return kindtest.JobErr(t, err) }

// tickUntil ticks until done, given every TickOutcome, returns true.
func tickUntil(t testing.TB, rt testRT, limit time.Duration, done func(runtime.TickOutcome) bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !done(rt.Tick()) {
		require.True(t, time.Now().Before(deadline), "runtime tick deadline exceeded")
		kindtest.WaitReady(rt.Runtime, time.Millisecond)
	}
}
