package findjob

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// findTree writes 20,000 empty files in 400 directories two levels deep.
func findTree(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	for d := range 20 {
		for e := range 20 {
			dir := filepath.Join(root, fmt.Sprintf("pkg%d", d), fmt.Sprintf("sub%d", e))
			require.NoError(b, os.MkdirAll(dir, 0o755))
			for f := range 50 {
				require.NoError(b, os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%d.go", f)), nil, 0o644))
			}
		}
	}
	return root
}

func findOnce(b *testing.B, rt testRT, root, q string) Ranking {
	b.Helper()
	id := rt.DispatchFindFiles(FindSpec{Root: root, Query: q}, DispatchOptions{})
	var out Ranking
	pumpFor(b, rt, 10*time.Second, func() bool {
		for _, sb := range rt.TakeStreamBatches() {
			if sb.ID == id && sb.Closed {
				require.Equal(b, Complete, sb.Outcome.State, "%v", sb.Outcome.Err)
				out = rankingOf(sb.Outcome)
				return true
			}
		}
		return false
	})
	return out
}

// BenchmarkFindFilesRefresh compares what a query costs on a 20,000-file
// tree after a file appeared behind the runtime's back in one leaf
// directory (stat every directory, re-list that one), with nothing changed
// (stat every directory), and with a cold cache (walk everything): the
// figures behind re-listing only changed directories rather than walking
// again.
func BenchmarkFindFilesRefresh(b *testing.B) {
	root := findTree(b)
	old := findStatEvery
	findStatEvery = 0
	b.Cleanup(func() { findStatEvery = old })
	b.Run("leaf-changed", func(b *testing.B) {
		rt := newRT(b, 2)
		findOnce(b, rt, root, "zzz")
		dir := filepath.Join(root, "pkg3", "sub7")
		i := 0
		for b.Loop() {
			b.StopTimer()
			p := filepath.Join(dir, fmt.Sprintf("new%d.go", i))
			i++
			require.NoError(b, os.WriteFile(p, nil, 0o644))
			future := time.Now().Add(time.Duration(i) * time.Second)
			require.NoError(b, os.Chtimes(dir, future, future))
			b.StartTimer()
			r := findOnce(b, rt, root, "new")
			require.Equal(b, i, r.Total)
		}
	})
	b.Run("root-changed", func(b *testing.B) {
		rt := newRT(b, 2)
		findOnce(b, rt, root, "zzz")
		i := 0
		for b.Loop() {
			b.StopTimer()
			i++
			require.NoError(b, os.WriteFile(filepath.Join(root, fmt.Sprintf("top%d.go", i)), nil, 0o644))
			future := time.Now().Add(time.Duration(i) * time.Second)
			require.NoError(b, os.Chtimes(root, future, future))
			b.StartTimer()
			r := findOnce(b, rt, root, "top")
			require.Equal(b, i, r.Total)
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		rt := newRT(b, 2)
		findOnce(b, rt, root, "zzz")
		for b.Loop() {
			findOnce(b, rt, root, "zzz")
		}
	})
	b.Run("cold-walk", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			rt := newRT(b, 2)
			b.StartTimer()
			findOnce(b, rt, root, "zzz")
			b.StopTimer()
			rt.Close()
			b.StartTimer()
		}
	})
}

// BenchmarkFindFilesSupersedeLatency measures, on a warm 20,000-file cache,
// how long a find_files runs on after a dispatch under its key superseded
// it: from the superseding dispatch to the first job's settle, as Tick sees
// it (so it includes the loop's wake-up). The first job is caught while it
// stats the tree or ranks it.
func BenchmarkFindFilesSupersedeLatency(b *testing.B) {
	root := findTree(b)
	old := findStatEvery
	findStatEvery = 0
	b.Cleanup(func() { findStatEvery = old })
	rt := newRT(b, 2)
	findOnce(b, rt, root, "x")
	var lat []float64
	cancelled := 0
	for b.Loop() {
		first := rt.DispatchFindFiles(FindSpec{Root: root, Query: "fil"}, DispatchOptions{Key: "k"})
		time.Sleep(500 * time.Microsecond)
		t0 := time.Now()
		rt.DispatchFindFiles(FindSpec{Root: root, Query: "file"}, DispatchOptions{Key: "k"})
		for settled := false; !settled; {
			require.Less(b, time.Since(t0), 10*time.Second)
			for _, id := range rt.Tick().Settled {
				if id == first {
					lat = append(lat, float64(time.Since(t0))/float64(time.Millisecond))
					if _, st, _ := rt.Lookup(first); st == Cancelled {
						cancelled++
					}
					settled = true
				}
			}
			rt.TakeStreamBatches()
			if !settled {
				waitReady(rt, time.Millisecond)
			}
		}
		pumpFor(b, rt, 10*time.Second, func() bool {
			rt.TakeStreamBatches()
			return rt.PendingLen() == 0
		})
	}
	slices.Sort(lat)
	b.ReportMetric(lat[len(lat)/2], "ms-median")
	b.ReportMetric(lat[min(len(lat)-1, len(lat)*99/100)], "ms-p99")
	b.ReportMetric(float64(cancelled)/float64(len(lat)), "cancelled-fraction")
}
