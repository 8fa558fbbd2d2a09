package runtime_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/fsjob"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// A failed job's Err wraps the handler's own error: errors.Is reaches
// grep.ErrBadPattern and fs.ErrNotExist, errors.As the standard
// *fs.PathError, and the *JobError still carries the code Lua reads.
func TestFailedOutcomeWrapsHandlersError(t *testing.T) {
	rt := kindtest.New(t, 2)
	dir := t.TempDir()

	bad := kindtest.Drain(t, rt, rt.DispatchGrep(grep.Spec{Root: dir, Pattern: "(", Regex: true}, runtime.DispatchOptions{}),
		time.Millisecond, 5*time.Second)
	require.Equal(t, runtime.Failed, bad.Outcome.State)
	require.ErrorIs(t, bad.Outcome.Err, grep.ErrBadPattern)

	missing := kindtest.Outcome(t, rt, fsjob.Stat(rt, filepath.Join(dir, "nope"), fsjob.Scope{}, runtime.DispatchOptions{}))
	require.Equal(t, runtime.Failed, missing.State)
	require.ErrorIs(t, missing.Err, fs.ErrNotExist)
	var pe *fs.PathError
	require.ErrorAs(t, missing.Err, &pe)
	require.Equal(t, filepath.Join(dir, "nope"), pe.Path)
	require.Equal(t, "ENOENT", kindtest.JobErr(t, missing.Err).Code)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b"), nil, 0o644))
	refused := kindtest.Outcome(t, rt, fsjob.Rename(rt, filepath.Join(dir, "a"), filepath.Join(dir, "b"), false, fsjob.Scope{}, runtime.DispatchOptions{}))
	require.ErrorIs(t, refused.Err, fs.ErrExist)
	var le *os.LinkError
	require.ErrorAs(t, refused.Err, &le)
	require.Equal(t, "EEXIST", kindtest.JobErr(t, refused.Err).Code)
	require.Equal(t, "EEXIST", fsops.Errno(refused.Err))
}

// A cancelled job's Err is its context's cause, and always matches
// context.Canceled: Runtime.Cancel gives context.Canceled itself, a
// supersede ErrSuperseded, Close ErrClosed.
func TestCancelledOutcomeCarriesCause(t *testing.T) {
	rt := kindtest.New(t, 2)
	cancelled := demojob.DispatchSleep(rt, time.Hour, runtime.DispatchOptions{})
	rt.Cancel(cancelled)
	require.Equal(t, context.Canceled, kindtest.Outcome(t, rt, cancelled).Err)

	first := demojob.DispatchSleep(rt, time.Hour, runtime.DispatchOptions{Key: "k"})
	second := demojob.DispatchSleep(rt, time.Hour, runtime.DispatchOptions{Key: "k"})
	o := kindtest.Outcome(t, rt, first)
	require.Equal(t, runtime.Cancelled, o.State)
	require.ErrorIs(t, o.Err, runtime.ErrSuperseded)
	require.ErrorIs(t, o.Err, context.Canceled)
	rt.Cancel(second)
	require.NotErrorIs(t, kindtest.Outcome(t, rt, second).Err, runtime.ErrSuperseded)

	ext, ctx := rt.RegisterExternal(kindExternal, "")
	rt.Close()
	require.Equal(t, context.Canceled, ctx.Err(), "Err keeps the context contract")
	require.Equal(t, runtime.ErrClosed, context.Cause(ctx))
	_ = ext
}
