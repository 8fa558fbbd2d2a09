package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// go test's benchmark lines are read with their custom metrics, the
// GOMAXPROCS suffix dropped, and other lines ignored.
func TestParseBenchOutputReadsCustomMetrics(t *testing.T) {
	out := []byte(`goos: linux
BenchmarkFrame10kSettles/budget=4ms-2   	       5	  41234567 ns/op	         4.330 ms/p99-frame	   1490000 B/op	   30100 allocs/op
BenchmarkDispatchSettle-2   	  100000	      1012 ns/op	      1012 p50-ns	       251.0 bare-p50-ns	     368 B/op	       6 allocs/op
PASS
ok  	github.com/pmacs-go/pmacs-go/luabind	7.1s
`)
	res := parseBenchOutput(out)
	require.Len(t, res, 2)
	v, err := metric(res, "BenchmarkFrame10kSettles/budget=4ms", "ms/p99-frame")
	require.NoError(t, err)
	require.Equal(t, 4.33, v)
	v, err = metric(res, "BenchmarkDispatchSettle", "allocs/op")
	require.NoError(t, err)
	require.Equal(t, 6.0, v)
	_, err = metric(res, "BenchmarkDispatchSettle", "ms/p99-frame")
	require.ErrorContains(t, err, "reported no ms/p99-frame")
	_, err = metric(res, "BenchmarkMissing", "ns/op")
	require.ErrorContains(t, err, "did not run")
}

// grepbench -tsv rows become cases; a malformed row is an error, not a
// silently missing case.
func TestParseGrepbench(t *testing.T) {
	cs, err := parseGrepbench([]byte("rare literal\t78.4\t82.1\t70\t80\t12\t12\ncommon literal\t117\t140\t200\t210\t90000\t90001\n"))
	require.NoError(t, err)
	require.Equal(t, []grepCase{{"rare literal", 78.4, 82.1, 12, 12}, {"common literal", 117, 140, 90000, 90001}}, cs)
	_, err = parseGrepbench([]byte("rare literal\t78.4\n"))
	require.ErrorContains(t, err, "unexpected row")
	_, err = parseGrepbench(nil)
	require.ErrorContains(t, err, "no rows")
}

// The editor tests' log lines give the live grep and large file figures.
func TestParseEditorFigures(t *testing.T) {
	o, r, err := parseLiveGrep([]byte("    grepbench_test.go:50: live grep `func` over /usr/lib/go/src: 320.5ms to done (grep \"func\": 1 done); rg --smart-case func, 146235 lines read: 82.2ms\n"))
	require.NoError(t, err)
	require.Equal(t, 320.5, o)
	require.Equal(t, 82.2, r)
	_, _, err = parseLiveGrep([]byte("--- SKIP"))
	require.Error(t, err)

	rows, err := parseBigFile([]byte(`  os.ReadFile alone: 30ms, peak resident +57 MB (0.96x)
  editor, best of three: first paint 38.2ms (goal 300ms), loaded 1s, first keystroke 2ms, coloured 3s, peak resident +143 MB (2.39x) (goal 4x), after 3 searches +216 MB (3.60x), keystroke p99 3ms (goal 16ms)
`))
	require.NoError(t, err)
	require.Len(t, rows, 3)
	require.Equal(t, 2.39, rows[0].ours)
	require.Equal(t, 0.96, rows[0].anchor)
	require.Equal(t, 3.60, rows[1].ours)
	require.Equal(t, 38.2, rows[2].ours)

	rows = parseHugeFile([]byte(`    hugefile_bench_test.go:195: 1 GB log file (1073741824 bytes); load average 3.85 5.65 4.72
    hugefile_bench_test.go:196:   os.ReadFile alone: 895.8ms, peak resident +1025 MB (1.00x)
    hugefile_bench_test.go:201:   a 64 KiB file of the same rows: first paint 35.5ms
    hugefile_bench_test.go:202:   huge file, best of three: first paint 39.1ms (goal 100ms), scroll to end 593.7µs (goal 100ms), loaded 1.6s, peak resident +1040 MB (1.02x), resident once loaded +1040 MB (1.02x)
`))
	require.Len(t, rows, 4)
	require.Equal(t, []float64{39.1, 35.5}, []float64{rows[0].ours, rows[0].anchor}, "first paint beside the small file's")
	require.Equal(t, 0.5937, rows[1].ours, "scroll to end")
	require.Equal(t, []float64{1600, 895.8}, []float64{rows[2].ours, rows[2].anchor}, "loaded beside os.ReadFile")
	require.Equal(t, []float64{1.02, 1.00}, []float64{rows[3].ours, rows[3].anchor}, "peak resident")
	for _, r := range parseHugeFile([]byte("--- SKIP: TestHugeFileFigures")) {
		require.True(t, math.IsNaN(r.ours), "%s: no figure when the test did not run", r.metric)
	}
}

// A goal is met only when the figure is there and within it; a ratio goal
// needs the anchor.
func TestGoals(t *testing.T) {
	for _, c := range []struct {
		r        row
		has, met bool
	}{
		{row{ours: 3, kind: atMost, goal: 4}, true, true},
		{row{ours: 5, kind: atMost, goal: 4}, true, false},
		{row{ours: math.NaN(), kind: atMost, goal: 4}, true, false},
		{row{ours: 100, anchor: 200, kind: ratioAtMost, goal: 0.8}, true, true},
		{row{ours: 190, anchor: 200, kind: ratioAtMost, goal: 0.8}, true, false},
		{row{ours: 1, kind: ratioAtMost, goal: 0.8}, true, false},
		{row{ours: 7, kind: atLeast, goal: 7}, true, true},
		{row{ours: 6, kind: atLeast, goal: 7}, true, false},
		{row{ours: 6}, false, false},
	} {
		has, met := c.r.met()
		require.Equal(t, c.has, has, "%+v", c.r)
		require.Equal(t, c.met, met, "%+v", c.r)
	}
}

// The keystroke table's scenario rows are read by name; the header row is
// not a scenario, and a malformed duration is an error.
func TestParseGrepFrames(t *testing.T) {
	out := []byte(`        scenario                                           |      p50      p99      max | frames |      p50      p99      max |      p50      p99      max
        idle: type into a prompt                           |   0.33ms   1.60ms   2.25ms |      2 |   0.18ms   0.64ms   0.64ms |   0.17ms   0.63ms   0.63ms
        grep: move selection while "func" streams (x3)     |   0.39ms  45.78ms  45.78ms |    183 |   0.75ms  17.39ms  98.19ms |   0.70ms   1.50ms   1.62ms
`)
	sc, err := parseGrepFrames(out)
	require.NoError(t, err)
	require.Len(t, sc, 2)
	s := sc[`grep: move selection while "func" streams (x3)`]
	require.Equal(t, frameScenario{frames: 183, wallP99: 17.39, wallMax: 98.19, cpuP99: 1.50}, s)
	_, err = parseGrepFrames([]byte("  x | 1ms 2ms 3ms | 4 | 1ms 2qq 1ms | 1ms 1ms 1ms\n"))
	require.ErrorContains(t, err, "2qq")
}
