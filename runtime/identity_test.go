package runtime

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

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
