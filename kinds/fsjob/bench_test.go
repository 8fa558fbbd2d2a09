package fsjob

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// percentile returns the p-th percentile (0..100) of ds, sorting it.
func percentile(ds []time.Duration, p float64) time.Duration {
	slices.Sort(ds)
	return ds[int(float64(len(ds)-1)*p/100)]
}

// BenchmarkReadDir100kThroughRuntime: listing a 100,000-entry directory
// through the runtime (worker, msgpack, Tick) against bare os.ReadDir plus
// an Lstat per entry, interleaved (issue 5: at most 1.2x), and the latency
// from Cancel to the job settling Cancelled (issue 5: within 2 ms).
func BenchmarkReadDir100kThroughRuntime(b *testing.B) {
	dir := b.TempDir()
	for i := range 100_000 {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("entry-%06d", i)))
		require.NoError(b, err)
		f.Close()
	}
	rt, err := runtime.New(runtime.Options{})
	require.NoError(b, err)
	defer rt.Close()
	list := func() fsops.Listing {
		id := ReadDir(rt, dir, fsops.Fatal, Scope{}, runtime.DispatchOptions{})
		for !rt.IsComplete(id) {
			<-rt.Ready()
			rt.Tick()
		}
		o, _ := rt.TakeResult(id)
		l, _ := ListingOf(o)
		return l
	}
	require.Len(b, list().Entries, 100_000)
	var ours, bare time.Duration
	var ms0, ms1 goruntime.MemStats
	var allocs uint64
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		ents, err := os.ReadDir(dir)
		require.NoError(b, err)
		for _, e := range ents {
			_, err := os.Lstat(filepath.Join(dir, e.Name()))
			require.NoError(b, err)
		}
		bare += time.Since(start)

		goruntime.ReadMemStats(&ms0)
		start = time.Now()
		l := list()
		ours += time.Since(start)
		goruntime.ReadMemStats(&ms1)
		allocs += ms1.Mallocs - ms0.Mallocs
		require.Len(b, l.Entries, 100_000)
	}
	b.StopTimer()
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N*100_000), "runtime-ns/entry")
	b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N*100_000), "bare-ns/entry")
	b.ReportMetric(float64(ours)/float64(bare), "ratio")
	b.ReportMetric(float64(allocs)/float64(b.N*100_000), "allocs/entry")

	var cancelLat []time.Duration
	for range 20 {
		id := ReadDir(rt, dir, fsops.Fatal, Scope{}, runtime.DispatchOptions{})
		time.Sleep(20 * time.Millisecond) // mid-listing
		start := time.Now()
		rt.Cancel(id)
		for !rt.IsComplete(id) {
			<-rt.Ready()
			rt.Tick()
		}
		o, _ := rt.TakeResult(id)
		if o.State == runtime.Cancelled {
			cancelLat = append(cancelLat, time.Since(start))
		}
	}
	if len(cancelLat) > 0 {
		b.ReportMetric(float64(percentile(cancelLat, 50).Microseconds())/1000, "cancel-p50-ms")
		b.ReportMetric(float64(percentile(cancelLat, 100).Microseconds())/1000, "cancel-max-ms")
	}
}
