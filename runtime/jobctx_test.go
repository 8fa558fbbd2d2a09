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
