package grep_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// benchCases are the benchmark searches over the Go source tree.
var benchCases = []struct {
	name string
	spec grep.Spec
}{
	{"RareLiteral", grep.Spec{Pattern: "ErrUnexpectedEOF"}},
	{"CommonLiteral", grep.Spec{Pattern: "func"}},
	{"Regex", grep.Spec{Pattern: `func \w+\(`, Regex: true}},
	{"IgnoreCaseLiteral", grep.Spec{Pattern: "errunexpectedeof", IgnoreCase: true}},
	{"IgnoreCaseRegex", grep.Spec{Pattern: `FUNC \w+\(`, Regex: true, IgnoreCase: true}},
}

// Benchmark (issue): one whole search of the Go source tree per op, warm cache, default
// fanout; reports matches and the bytes searched (MB/s).
func BenchmarkSearchGoSource(b *testing.B) {
	root := testenv.GoSrcOrSkip(b)
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			spec := c.spec
			spec.Root = root
			spec.SkipDirs = []string{}
			var st grep.Stats
			for b.Loop() {
				var err error
				st, err = grep.Search(context.Background(), spec, func([]grep.Match) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(st.BytesSearched)
			b.ReportMetric(float64(st.Matches), "matches")
			b.ReportMetric(float64(st.FilesSearched), "files")
		})
	}
}

// Benchmark (issue: cancel observed by every fanout goroutine within 1 ms): time from cancel
// to Search's return, which waits for every fanout goroutine, cancelling mid-search.
func BenchmarkCancelLatency(b *testing.B) {
	root := testenv.GoSrcOrSkip(b)
	var worst time.Duration
	var total time.Duration
	i := 0
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		var seen atomic.Int64
		var at time.Time
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = grep.Search(ctx, grep.Spec{Root: root, Pattern: "func", SkipDirs: []string{}},
				func(ms []grep.Match) error { seen.Add(int64(len(ms))); return nil })
		}()
		// Cancel once the search is well under way, at a varying point.
		for seen.Load() < int64(1000+(i%20)*2000) {
			select {
			case <-done:
			default:
				time.Sleep(50 * time.Microsecond)
				continue
			}
			break
		}
		at = time.Now()
		cancel()
		<-done
		d := time.Since(at)
		total += d
		worst = max(worst, d)
		i++
	}
	b.ReportMetric(float64(total.Microseconds())/float64(i)/1000, "ms-mean-cancel")
	b.ReportMetric(float64(worst.Microseconds())/1000, "ms-worst-cancel")
}

// Benchmark: a tree where every line matches, to show the per-match cost.
func BenchmarkSearchEveryLineMatches(b *testing.B) {
	root := b.TempDir()
	tree := map[string]string{}
	for i := range 100 {
		tree[fmt.Sprintf("f%03d.txt", i)] = strings.Repeat("a needle in a line\n", 1000)
	}
	writeTreeB(b, root, tree)
	for b.Loop() {
		if _, err := grep.Search(context.Background(), grep.Spec{Root: root, Pattern: "needle"}, func([]grep.Match) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(100*1000), "matches")
}
