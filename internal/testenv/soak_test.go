package testenv

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A soak runs for the duration PMACS_SOAK names, skips without one, and
// fails on a value that is no duration instead of running for zero.
func TestSoakDurationReadsTheEnvironment(t *testing.T) {
	t.Setenv(SoakEnv, "3s")
	var ok fakeT
	require.Equal(t, 3*time.Second, SoakDuration(&ok))
	require.Empty(t, ok.skipped)
	require.Empty(t, ok.failed)

	t.Setenv(SoakEnv, "")
	var unset fakeT
	SoakDuration(&unset)
	require.Contains(t, unset.skipped, "set PMACS_SOAK to a duration")
	require.Empty(t, unset.failed)

	t.Setenv(SoakEnv, "five minutes")
	var bad fakeT
	SoakDuration(&bad)
	require.Contains(t, bad.failed, "PMACS_SOAK")
	require.Contains(t, bad.failed, "five minutes")
	require.Empty(t, bad.skipped)
}
