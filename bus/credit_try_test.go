package bus

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TryAcquire takes credit only when Acquire would not wait, with the same
// oversize rule, and never blocks.
func TestCreditTryAcquireNeverWaits(t *testing.T) {
	c := NewCredit(10)
	require.True(t, c.TryAcquire(0))
	require.True(t, c.TryAcquire(6))
	require.False(t, c.TryAcquire(5), "6+5 is over the limit")
	require.Equal(t, 6, c.InFlight(), "a refusal takes nothing")
	require.True(t, c.TryAcquire(4))
	c.Release(10)
	require.True(t, c.TryAcquire(25), "an oversized request is admitted once nothing is in flight")
	require.False(t, c.TryAcquire(1))
	require.Equal(t, 25, c.InFlight())
}
