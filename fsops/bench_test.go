//go:build unix

package fsops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

const benchEntries = 100_000

// mallocs reads the process-wide allocation count (stops the world: call
// outside timed sections).
func mallocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs
}

// bareReadDir is the baseline the issue names: os.ReadDir plus os.Lstat of
// each entry.
func bareReadDir(dir string) (int, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, de := range des {
		if _, err := os.Lstat(filepath.Join(dir, de.Name())); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

// Issue benchmark: ReadDir of a 100,000-entry directory against bare
// os.ReadDir + os.Lstat in the same run, alternating per iteration so both
// see the same cache state; reports ns/entry, allocs/entry and the ratio.
// It then times the confined listing (Roots.ReadDir) and the
// check-then-list it replaced, each as a ratio to the same bare time.
func BenchmarkReadDir100kVsBare(b *testing.B) {
	dir := makeEntries(b, benchEntries)
	ctx := context.Background()
	var ourNS, bareNS time.Duration
	var ourAllocs, bareAllocs uint64
	b.ResetTimer()
	for range b.N {
		m0 := mallocs()
		t0 := time.Now()
		l, err := ReadDir(ctx, dir, Fatal)
		ourNS += time.Since(t0)
		ourAllocs += mallocs() - m0
		if err != nil || len(l.Entries) != benchEntries {
			b.Fatalf("fsops: %d entries, %v", len(l.Entries), err)
		}

		m0 = mallocs()
		t0 = time.Now()
		n, err := bareReadDir(dir)
		bareNS += time.Since(t0)
		bareAllocs += mallocs() - m0
		if err != nil || n != benchEntries {
			b.Fatalf("bare: %d entries, %v", n, err)
		}
	}
	b.StopTimer()
	// The confined listing: Roots.ReadDir against the check-then-list it
	// replaces (ConfineFollow, then ReadDir), on the same directory.
	roots := Roots{filepath.Dir(dir)}
	var confinedNS, checkedNS time.Duration
	for range b.N {
		t0 := time.Now()
		l, err := roots.ReadDir(ctx, dir, Fatal)
		confinedNS += time.Since(t0)
		if err != nil || len(l.Entries) != benchEntries {
			b.Fatalf("confined: %d entries, %v", len(l.Entries), err)
		}
		t0 = time.Now()
		if err := ConfineFollow(roots, dir); err != nil {
			b.Fatal(err)
		}
		l, err = ReadDir(ctx, dir, Fatal)
		checkedNS += time.Since(t0)
		if err != nil || len(l.Entries) != benchEntries {
			b.Fatalf("checked: %d entries, %v", len(l.Entries), err)
		}
	}
	per := float64(b.N * benchEntries)
	b.ReportMetric(float64(confinedNS)/float64(bareNS), "confined/bare")
	b.ReportMetric(float64(checkedNS)/float64(bareNS), "checked/bare")
	b.ReportMetric(float64(confinedNS)/float64(checkedNS), "confined/checked")
	b.ReportMetric(float64(ourNS.Nanoseconds())/per, "fsops-ns/entry")
	b.ReportMetric(float64(bareNS.Nanoseconds())/per, "bare-ns/entry")
	b.ReportMetric(float64(ourNS)/float64(bareNS), "fsops/bare")
	b.ReportMetric(float64(ourAllocs)/per, "fsops-allocs/entry")
	b.ReportMetric(float64(bareAllocs)/per, "bare-allocs/entry")
}

// Issue benchmark: cancel of a 100,000-entry ReadDir observed within 2 ms.
// Each iteration cancels at a different point of the listing (both the
// name-reading and the describing phases) and measures cancel-to-return.
func BenchmarkReadDir100kCancelLatency(b *testing.B) {
	dir := makeEntries(b, benchEntries)
	t0 := time.Now()
	if _, err := ReadDir(context.Background(), dir, Fatal); err != nil {
		b.Fatal(err)
	}
	full := time.Since(t0)

	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := ReadDir(ctx, dir, Fatal)
			done <- err
		}()
		// Spread cancel points over 5%..95% of a full listing.
		time.Sleep(full * time.Duration(5+(i*37)%91) / 100)
		at := time.Now()
		cancel()
		err := <-done
		if errors.Is(err, ErrCancelled) {
			lat = append(lat, time.Since(at))
		}
	}
	b.StopTimer()
	if len(lat) == 0 {
		b.Fatal("no cancellation landed mid-listing")
	}
	slices.Sort(lat)
	b.ReportMetric(float64(full.Microseconds())/1000, "full-ms")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "cancel-p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "cancel-p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "cancel-max-ms")
	b.ReportMetric(float64(len(lat)), "cancelled")
}
