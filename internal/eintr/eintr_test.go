//go:build unix

package eintr_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/internal/eintr"
)

// An interrupted call is repeated; its first other outcome, success or error, is returned.
func TestRetryRepeatsOnlyEINTR(t *testing.T) {
	calls := 0
	err := eintr.Retry(func() error {
		calls++
		if calls < 3 {
			return unix.EINTR
		}
		return unix.ENOENT
	})
	require.ErrorIs(t, err, unix.ENOENT)
	require.Equal(t, 3, calls)

	calls = 0
	n, err := eintr.Value(func() (int, error) {
		calls++
		if calls < 2 {
			return -1, unix.EINTR
		}
		return 7, nil
	})
	require.NoError(t, err)
	require.Equal(t, 7, n)
	require.Equal(t, 2, calls)

	other := errors.New("other")
	calls = 0
	require.ErrorIs(t, eintr.Retry(func() error { calls++; return other }), other)
	require.Equal(t, 1, calls, "an error other than EINTR is not retried")
}
