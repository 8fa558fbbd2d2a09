package runtime

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/stretchr/testify/require"
)

// A failed job's Err wraps the handler's own error: errors.Is reaches
// grep.ErrBadPattern and fs.ErrNotExist, errors.As the standard
// *fs.PathError, and the *JobError still carries the code Lua reads.
func TestFailedOutcomeWrapsHandlersError(t *testing.T) {
	rt := newRT(t, 2)
	dir := t.TempDir()

	bad := drainStream(t, rt, rt.DispatchGrep(grep.Spec{Root: dir, Pattern: "(", Regex: true}, DispatchOptions{}),
		time.Millisecond, 5*time.Second)
	require.Equal(t, Failed, bad.outcome.State)
	require.ErrorIs(t, bad.outcome.Err, grep.ErrBadPattern)

	missing := outcomeOf(t, rt, rt.DispatchStat(filepath.Join(dir, "nope"), DispatchOptions{}))
	require.Equal(t, Failed, missing.State)
	require.ErrorIs(t, missing.Err, fs.ErrNotExist)
	var pe *fs.PathError
	require.ErrorAs(t, missing.Err, &pe)
	require.Equal(t, filepath.Join(dir, "nope"), pe.Path)
	require.Equal(t, "ENOENT", jobErr(t, missing.Err).Code)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b"), nil, 0o644))
	refused := outcomeOf(t, rt, rt.DispatchRename(filepath.Join(dir, "a"), filepath.Join(dir, "b"), false, DispatchOptions{}))
	require.ErrorIs(t, refused.Err, fs.ErrExist)
	var le *os.LinkError
	require.ErrorAs(t, refused.Err, &le)
	require.Equal(t, "EEXIST", jobErr(t, refused.Err).Code)
	require.Equal(t, "EEXIST", fsops.Errno(refused.Err))
}

// A cancelled job's Err is its context's cause, and always matches
// context.Canceled: Runtime.Cancel gives context.Canceled itself, a
// supersede ErrSuperseded, Close ErrClosed.
func TestCancelledOutcomeCarriesCause(t *testing.T) {
	rt := newRT(t, 2)
	cancelled := rt.DispatchSleep(time.Hour, DispatchOptions{})
	rt.Cancel(cancelled)
	require.Equal(t, context.Canceled, outcomeOf(t, rt, cancelled).Err)

	first := rt.DispatchSleep(time.Hour, DispatchOptions{Key: "k"})
	second := rt.DispatchSleep(time.Hour, DispatchOptions{Key: "k"})
	o := outcomeOf(t, rt, first)
	require.Equal(t, Cancelled, o.State)
	require.ErrorIs(t, o.Err, ErrSuperseded)
	require.ErrorIs(t, o.Err, context.Canceled)
	rt.Cancel(second)
	require.NotErrorIs(t, outcomeOf(t, rt, second).Err, ErrSuperseded)

	ext, ctx := rt.RegisterExternal(kindReply, "")
	rt.Close()
	require.Equal(t, context.Canceled, ctx.Err(), "Err keeps the context contract")
	require.Equal(t, ErrClosed, context.Cause(ctx))
	_ = ext
}

// The job context obeys what the context package relies on: Err is
// exactly context.Canceled whatever the reason, context.Cause reports the
// reason, and children made with WithCancel, WithCancelCause, WithValue,
// WithTimeout and AfterFunc end with it and see the same cause.
func TestJobCtxKeepsContextContract(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cause error
		want  error
	}{
		{"plain", nil, context.Canceled},
		{"superseded", ErrSuperseded, ErrSuperseded},
		{"closed", ErrClosed, ErrClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c jobCtx
			require.Nil(t, context.Cause(&c))
			cancelChild, stop1 := context.WithCancel(&c)
			defer stop1()
			causeChild, stop2 := context.WithCancelCause(&c)
			defer stop2(nil)
			valueChild := context.WithValue(&c, ctxKey{}, "v")
			timeoutChild, stop3 := context.WithTimeout(&c, time.Hour)
			defer stop3()
			grandchild, stop4 := context.WithCancel(valueChild)
			defer stop4()
			ran := make(chan struct{})
			context.AfterFunc(&c, func() { close(ran) })

			c.cancelCause(tc.cause)
			c.cancelCause(errors.New("a second cause is ignored"))
			require.Equal(t, context.Canceled, c.Err())
			require.Equal(t, tc.want, context.Cause(&c))
			for _, child := range []context.Context{cancelChild, causeChild, valueChild, timeoutChild, grandchild} {
				select {
				case <-child.Done():
				case <-time.After(5 * time.Second):
					t.Fatal("derived context not cancelled")
				}
				require.Equal(t, context.Canceled, child.Err())
				require.Equal(t, tc.want, context.Cause(child))
			}
			require.Equal(t, "v", valueChild.Value(ctxKey{}))
			select {
			case <-ran:
			case <-time.After(5 * time.Second):
				t.Fatal("AfterFunc did not run")
			}
		})
	}
}

// The context a running handler sees reports the supersede as its cause.
func TestHandlerSeesSupersedeAsCause(t *testing.T) {
	rt := newRT(t, 2)
	_, ctx := rt.RegisterExternal(kindReply, "hover")
	rt.RegisterExternal(kindReply, "hover")
	<-ctx.Done()
	require.Equal(t, context.Canceled, ctx.Err())
	require.Equal(t, ErrSuperseded, context.Cause(ctx))
}

// ctxKey is the key of the value the context tests store.
type ctxKey struct{}
