package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A job context behaves as a cancel context: Done closes, Err reports
// Canceled, and contexts derived from it are cancelled with it.
func TestJobCtxCancelsItselfAndDerivedContexts(t *testing.T) {
	var c jobCtx
	require.NoError(t, c.Err())
	child, stopChild := context.WithCancel(&c)
	defer stopChild()
	done := c.Done()
	select {
	case <-done:
		t.Fatal("done before cancel")
	default:
	}
	c.cancel()
	c.cancel()
	<-done
	require.ErrorIs(t, c.Err(), context.Canceled)
	select {
	case <-child.Done():
	case <-time.After(time.Second):
		t.Fatal("derived context not cancelled")
	}
	require.ErrorIs(t, child.Err(), context.Canceled)
}

// Done after cancel is closed; AfterFunc after cancel runs at once; a stopped
// AfterFunc never runs.
func TestJobCtxAfterFunc(t *testing.T) {
	var c jobCtx
	ran := make(chan string, 3)
	stop := c.AfterFunc(func() { ran <- "stopped" })
	c.AfterFunc(func() { ran <- "kept" })
	require.True(t, stop())
	require.False(t, stop())
	c.cancel()
	<-c.Done()
	require.Equal(t, "kept", <-ran)
	late := c.AfterFunc(func() { ran <- "late" })
	require.Equal(t, "late", <-ran)
	require.False(t, late())
	select {
	case s := <-ran:
		t.Fatalf("unexpected run %q", s)
	default:
	}
	_, ok := c.Deadline()
	require.False(t, ok)
	require.Nil(t, c.Value("k"))
}

// The hand-written job context beside the context package's own cancel
// context, in the two shapes a job has. "run": most jobs are made, polled
// by their handler and finished without a cancel or a derived context; the
// job context lives inside the job's entry, so that costs nothing of its
// own, while the baseline allocates its context and cancel func. "cancel
// with child": grep's fanout derives a context, and the job is superseded;
// here the baseline is cheaper, because the context package links its own
// children directly while a foreign parent's child is reached through
// AfterFunc (a registration and a goroutine).
func BenchmarkJobContext(b *testing.B) {
	const polls = 64
	poll := func(b *testing.B, ctx context.Context) {
		for range polls {
			if ctx.Err() != nil {
				b.Fatal("cancelled early")
			}
		}
	}
	b.Run("run/jobCtx", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t := new(Task)
			poll(b, &t.ctx)
		}
	})
	b.Run("run/WithCancelCause", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t := new(Task) // the same entry allocation, for a fair count
			ctx, cancel := context.WithCancelCause(context.Background())
			poll(b, ctx)
			cancel(nil)
			_ = t
		}
	})
	b.Run("cancel-with-child/jobCtx", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t := new(Task)
			poll(b, &t.ctx)
			child, stop := context.WithCancel(&t.ctx)
			t.ctx.cancelCause(ErrSuperseded)
			<-child.Done()
			if context.Cause(child) != ErrSuperseded {
				b.Fatal("cause lost")
			}
			stop()
		}
	})
	b.Run("cancel-with-child/WithCancelCause", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t := new(Task)
			ctx, cancel := context.WithCancelCause(context.Background())
			poll(b, ctx)
			child, stop := context.WithCancel(ctx)
			cancel(ErrSuperseded)
			<-child.Done()
			if context.Cause(child) != ErrSuperseded {
				b.Fatal("cause lost")
			}
			stop()
			_ = t
		}
	})
}
