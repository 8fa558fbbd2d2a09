//go:build unix

package fsops

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// Acceptance: entries "sorted by name" even though the sort is an
// interruptible merge sort; every length around the run and merge
// boundaries sorts exactly like slices.Sort.
func TestSortNamesMatchesSlicesSortAtEveryBoundary(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, sortRun - 1, sortRun, sortRun + 1, 2*sortRun + 7, 5 * sortRun, 20_011} {
		names := make([]string, n)
		for i := range names {
			names[i] = strconv.Itoa(r.IntN(n/2 + 1)) // duplicates included
		}
		want := slices.Clone(names)
		slices.Sort(want)
		require.NoError(t, sortNames(context.Background(), names))
		require.Equal(t, want, names, "n=%d", n)
	}
}

// Acceptance: cancellation is honoured during the sort, not only between
// directory batches.
func TestSortNamesStopsWhenCancelled(t *testing.T) {
	names := make([]string, 50_000)
	for i := range names {
		names[i] = strconv.Itoa(len(names) - i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, sortNames(ctx, names), context.Canceled)
}
