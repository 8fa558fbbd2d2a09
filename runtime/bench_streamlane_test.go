package runtime

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/grep"
)

// BenchmarkRenameWhileGrepParked times a rename dispatched on a root whose
// grep is parked on its undrained stream, from dispatch to settle, p50 and
// p99 (issue 11, defect 1: p99 within 50 ms whatever the match count). The
// grep stays parked for the whole run: nothing drains it.
func BenchmarkRenameWhileGrepParked(b *testing.B) {
	for _, c := range []struct {
		name         string
		files, lines int
	}{
		{"matches=100k", 100, 1000},
		{"matches=1M", 1000, 1000},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := matchTree(b, c.files, c.lines)
			rt, err := New(Options{})
			require.NoError(b, err)
			defer rt.Close()
			root, err := rt.RegisterRoot(dir)
			require.NoError(b, err)
			g := rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle"}, DispatchOptions{})
			credit := rt.pending.get(g).stream.credit
			pumpFor(b, rt, 30*time.Second, func() bool { return credit.InFlight()+c.lines > credit.Limit() })

			names := [2]string{filepath.Join(root, "a"), filepath.Join(root, "b")}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				start := monoNow()
				id := rt.startRename(names[i%2], names[(i+1)%2], DispatchOptions{})
				for !rt.IsComplete(id) {
					waitReady(rt, time.Millisecond)
					rt.Tick()
				}
				lat = append(lat, monoNow().sub(start))
				o, _ := rt.TakeResult(id)
				if o.State != Complete {
					b.Fatalf("rename %d: %v %v", i, o.State, o.Err)
				}
			}
			b.StopTimer()
			if rt.IsComplete(g) {
				b.Fatal("the grep ended: it was not parked on its stream")
			}
			p50, p99 := percentile(lat, 50), percentile(lat, 99)
			b.ReportMetric(float64(p50.Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(p99.Nanoseconds()), "p99-ns")
		})
	}
}
