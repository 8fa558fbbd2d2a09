package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

func pick[T any](cfg config, quick, full T) T {
	if cfg.quick {
		return quick
	}
	return full
}

// framesSection: 10,000 Lua tasks settle through budgeted frames (4 ms), as
// BenchmarkFrame10kSettles runs them, with the collector on (ours) and off
// (the anchor: what the frames cost without the collector's interference).
func framesSection(cfg config) ([]row, error) {
	const name = "BenchmarkFrame10kSettles/budget=4ms"
	pattern := "^BenchmarkFrame10kSettles$/^budget=4ms$"
	rounds := pick(cfg, 5, 20)
	bt := fmt.Sprintf("%dx", rounds)
	on, err := runBench(cfg, nil, "./luabind", pattern, bt)
	if err != nil {
		return nil, err
	}
	off, err := runBench(cfg, []string{"GOGC=off"}, "./luabind", pattern, bt)
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, m := range []struct {
		unit, label string
		goal        float64
	}{
		{"ms/p99-frame", "10k settles, frame p99", 4},
		{"ms/longest-frame", fmt.Sprintf("10k settles, longest frame of %d rounds", rounds), 8},
	} {
		a, err := metric(on, name, m.unit)
		if err != nil {
			return rows, err
		}
		b, err := metric(off, name, m.unit)
		if err != nil {
			return rows, err
		}
		rows = append(rows, row{section: "frames", metric: m.label, unit: "ms", ours: a, anchor: b, anchorN: "GOGC=off", kind: atMost, goal: m.goal})
	}
	// The same frames without the idle-time collection (internal/idlegc):
	// what it is for.
	noIdle, err := runBench(cfg, nil, "./luabind", "^BenchmarkFrame10kSettles$/^budget=4ms,no-idle-gc$", bt)
	if err != nil {
		return rows, err
	}
	v, err := metric(noIdle, "BenchmarkFrame10kSettles/budget=4ms,no-idle-gc", "ms/p99-frame")
	if err != nil {
		return rows, err
	}
	rows = append(rows, row{section: "frames", metric: "10k settles, frame p99 without idle collection", unit: "ms", ours: v})
	for _, m := range []struct{ unit, label string }{{"allocs/op", "allocations per settle"}, {"B/op", "bytes per settle"}} {
		a, err := metric(on, name, m.unit)
		if err != nil {
			return rows, err
		}
		rows = append(rows, row{section: "frames", metric: m.label, ours: a / 10_000})
	}
	return rows, nil
}

// dispatchSection: a no-op job's dispatch to settle, p50, against a bare
// goroutine-pool hand-off measured in the same benchmark.
func dispatchSection(cfg config) ([]row, error) {
	const name = "BenchmarkDispatchSettle"
	res, err := runBench(cfg, nil, "./runtime", "^"+name+"$", pick(cfg, "100000x", "400000x"))
	if err != nil {
		return nil, err
	}
	p50, err := metric(res, name, "p50-ns")
	if err != nil {
		return nil, err
	}
	bare, err := metric(res, name, "bare-p50-ns")
	if err != nil {
		return nil, err
	}
	allocs, err := metric(res, name, "allocs/op")
	if err != nil {
		return nil, err
	}
	bytes, err := metric(res, name, "B/op")
	if err != nil {
		return nil, err
	}
	return []row{
		{section: "dispatch", metric: "dispatch to settle, p50", unit: "ns", ours: p50, anchor: bare, anchorN: "bare pool", kind: ratioAtMost, goal: 2},
		{section: "dispatch", metric: "allocations per job", ours: allocs, kind: atMost, goal: 3},
		{section: "dispatch", metric: "bytes per job", unit: "B", ours: bytes},
	}, nil
}

// externalSection: the main goroutine's cost of values from outside. A
// 70,000-integer value settled through CompleteExternalOK (copied on the
// main goroutine, no goal: the path for small values) and through
// OwnExternal on another goroutine then CompleteExternalOwned; and the
// frames while an MCP tool's 16 MiB of text, 100,000 items or 70,000
// integers reach Lua (BenchmarkLuaMCPFrames, 2 ms budget).
func externalSection(cfg config) ([]row, error) {
	res, err := runBench(cfg, nil, "./runtime", "^BenchmarkExternal(Owned)?SemanticTokens70k$", pick(cfg, "20x", "100x"))
	if err != nil {
		return nil, err
	}
	plain, err := metric(res, "BenchmarkExternalSemanticTokens70k", "ns/op")
	if err != nil {
		return nil, err
	}
	owned, err := metric(res, "BenchmarkExternalOwnedSemanticTokens70k", "ns/op")
	if err != nil {
		return nil, err
	}
	rows := []row{
		{section: "external", metric: "70,000 integers, copied on the main goroutine", unit: "ms", ours: plain / 1e6},
		{section: "external", metric: "70,000 integers, owned elsewhere, settled on main", unit: "ms", ours: owned / 1e6, kind: atMost, goal: 4},
	}
	mcp, err := runBench(cfg, nil, "./luabind", "^BenchmarkLuaMCPFrames$/^(text16MiB|items100k|ints70k)$", pick(cfg, "2x", "5x"))
	if err != nil {
		return rows, err
	}
	for _, c := range []struct{ name, label string }{
		{"text16MiB", "MCP result of 16 MiB of text"}, {"items100k", "MCP result of 100,000 items"}, {"ints70k", "MCP result of 70,000 integers"},
	} {
		p99, err := metric(mcp, "BenchmarkLuaMCPFrames/"+c.name, "p99-ms")
		if err != nil {
			return rows, err
		}
		longest, err := metric(mcp, "BenchmarkLuaMCPFrames/"+c.name, "max-ms")
		if err != nil {
			return rows, err
		}
		rows = append(rows,
			row{section: "external", metric: c.label + ", frame p99", unit: "ms", ours: p99, kind: atMost, goal: 4},
			row{section: "external", metric: c.label + ", longest frame", unit: "ms", ours: longest})
	}
	return rows, nil
}

// grepSection runs grep/cmd/grepbench: our grep and rg as child processes
// over GOROOT/src, warm cache, the median of several runs each; then the
// same over five copies of GOROOT/src (grepbench -scale 5 makes them once).
func grepSection(cfg config) ([]row, error) {
	dir, err := os.MkdirTemp("", "pmacs-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "grepbench")
	build := exec.Command("go", "build", "-o", bin, "./grep/cmd/grepbench")
	build.Dir = cfg.root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build grepbench: %w: %s", err, tail(string(out), 400))
	}
	var rows []row
	same, all := 0, 0
	for _, sc := range []struct {
		scale int
		label string
		runs  int
	}{
		{1, "GOROOT/src", pick(cfg, 3, 7)},
		{5, "GOROOT/src x5", pick(cfg, 3, 5)},
	} {
		cmd := exec.Command(bin, "-tsv", "-runs", strconv.Itoa(sc.runs), "-scale", strconv.Itoa(sc.scale))
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return rows, fmt.Errorf("grepbench -scale %d: %w", sc.scale, err)
		}
		cases, err := parseGrepbench(out)
		if err != nil {
			return rows, err
		}
		for _, c := range cases {
			rows = append(rows, row{section: "grep", metric: sc.label + ", " + c.name, unit: "ms", ours: c.ours, anchor: c.rg, anchorN: "rg", kind: ratioAtMost, goal: 0.8})
			all++
			if c.lines == c.rgLines {
				same++
			}
		}
	}
	rows = append(rows, row{section: "grep", metric: "cases with rg's line count", ours: float64(same), anchor: float64(all), anchorN: "cases", kind: atLeast, goal: float64(all)})
	return rows, nil
}

type grepCase struct {
	name           string
	ours, rg       float64
	lines, rgLines int
}

// parseGrepbench reads grepbench -tsv: name, ours ms, rg ms, ours CPU ms,
// rg CPU ms, our lines, rg's lines.
func parseGrepbench(out []byte) ([]grepCase, error) {
	var cs []grepCase
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 7 {
			return nil, fmt.Errorf("grepbench: unexpected row %q", sc.Text())
		}
		var c grepCase
		var err1, err2, err3, err4 error
		c.name = f[0]
		c.ours, err1 = strconv.ParseFloat(f[1], 64)
		c.rg, err2 = strconv.ParseFloat(f[2], 64)
		c.lines, err3 = strconv.Atoi(f[5])
		c.rgLines, err4 = strconv.Atoi(f[6])
		for _, err := range []error{err1, err2, err3, err4} {
			if err != nil {
				return nil, fmt.Errorf("grepbench: row %q: %w", sc.Text(), err)
			}
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("grepbench printed no rows")
	}
	return cs, nil
}

var liveGrepLine = regexp.MustCompile("live grep `func` over \\S+: (\\S+) to done \\(.*\\); rg --smart-case func, \\d+ lines read: (\\S+)")

// liveGrepSection: the editor's live grep from the last key of `func` to
// "done" over GOROOT/src, beside rg --smart-case (the editor's search is
// smart-case) with its lines read from a pipe, on the same tree (the editor
// test TestLiveGrepGorootTimeToDone measures both and checks the counts
// agree).
func liveGrepSection(cfg config) ([]row, error) {
	runs := pick(cfg, 1, 3)
	var ours, rg []float64
	for range runs {
		out, err := goTest(cfg, []string{"PMACS_EDITOR_BENCH=1"}, "-run", "^TestLiveGrepGorootTimeToDone$", "-v", "./cmd/demo-editor/internal/editor")
		if err != nil {
			return nil, err
		}
		o, r, err := parseLiveGrep(out)
		if err != nil {
			return nil, err
		}
		ours, rg = append(ours, o), append(rg, r)
	}
	return []row{{section: "live-grep", metric: fmt.Sprintf("`func` over GOROOT/src to done, median of %d", runs), unit: "ms",
		ours: median(ours), anchor: median(rg), anchorN: "rg", kind: ratioAtMost, goal: 1.5}}, nil
}

func parseLiveGrep(out []byte) (ours, rg float64, err error) {
	m := liveGrepLine.FindSubmatch(out)
	if m == nil {
		return 0, 0, fmt.Errorf("live grep: no figures in the test's output: %s", tail(string(out), 300))
	}
	o, err1 := time.ParseDuration(string(m[1]))
	r, err2 := time.ParseDuration(string(m[2]))
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("live grep: unreadable durations %q %q", m[1], m[2])
	}
	return ms(o), ms(r), nil
}

var (
	bigReadLine   = regexp.MustCompile(`os\.ReadFile alone: \S+, peak resident \+\d+ MB \(([\d.]+)x\)`)
	bigEditorLine = regexp.MustCompile(`editor, best of three: first paint (\S+) .*peak resident \+\d+ MB \(([\d.]+)x\) \(goal 4x\), after 3 searches \+\d+ MB \(([\d.]+)x\)`)
	hugeReadLine  = regexp.MustCompile(`1 GB log file .*\n.*os\.ReadFile alone: (\S+), peak resident \+\d+ MB \(([\d.]+)x\)`)
	hugeSmallLine = regexp.MustCompile(`a 64 KiB file of the same rows: first paint (\S+)`)
	hugeLine      = regexp.MustCompile(`huge file, best of three: first paint (\S+) \(goal 100ms\), scroll to end (\S+) \(goal 100ms\), loaded (\S+), peak resident \+\d+ MB \(([\d.]+)x\)`)
)

// largeFileSection: a 60 MB Go file opened in the editor three times (the
// editor test TestBigGoFileFigures): peak resident memory over the file's
// size, after opening and after three searches, beside os.ReadFile's.
// Then a 1 GB log opened three times (TestHugeFileFigures): the first paint
// beside a 64 KiB file's, C-End to the frame showing the last row, the
// whole load beside os.ReadFile's, and the peak resident size.
func largeFileSection(cfg config) ([]row, error) {
	out, err := goTest(cfg, []string{"PMACS_EDITOR_BENCH=1"}, "-run", "^(TestBigGoFileFigures|TestHugeFileFigures)$", "-v", "-timeout", "20m", "./cmd/demo-editor/internal/editor")
	if err != nil {
		return nil, err
	}
	rows, err := parseBigFile(out)
	if err != nil {
		return nil, err
	}
	return append(rows, parseHugeFile(out)...), nil
}

// parseHugeFile reads TestHugeFileFigures' lines; its rows have no figure
// (NaN) when it did not run (it skips without 3 GB of free disk).
func parseHugeFile(out []byte) []row {
	rows := []row{
		{section: "large-file", metric: "1 GB file, first paint", unit: "ms", ours: math.NaN(), anchorN: "64 KiB file", kind: atMost, goal: 100},
		{section: "large-file", metric: "1 GB file, scroll to end", unit: "ms", ours: math.NaN(), kind: atMost, goal: 100},
		{section: "large-file", metric: "1 GB file, loaded", unit: "ms", ours: math.NaN(), anchorN: "os.ReadFile"},
		{section: "large-file", metric: "1 GB file, peak resident / size", unit: "x", ours: math.NaN(), anchorN: "os.ReadFile"},
	}
	h, r, s := hugeLine.FindSubmatch(out), hugeReadLine.FindSubmatch(out), hugeSmallLine.FindSubmatch(out)
	if h == nil || r == nil || s == nil {
		return rows
	}
	d := func(b []byte) float64 {
		v, err := time.ParseDuration(string(b))
		if err != nil {
			return math.NaN()
		}
		return ms(v)
	}
	x := func(b []byte) float64 {
		v, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	rows[0].ours, rows[0].anchor = d(h[1]), d(s[1])
	rows[1].ours = d(h[2])
	rows[2].ours, rows[2].anchor = d(h[3]), d(r[1])
	rows[3].ours, rows[3].anchor = x(h[4]), x(r[2])
	return rows
}

func parseBigFile(out []byte) ([]row, error) {
	r := bigReadLine.FindSubmatch(out)
	e := bigEditorLine.FindSubmatch(out)
	if r == nil || e == nil {
		return nil, fmt.Errorf("large file: no figures in the test's output: %s", tail(string(out), 300))
	}
	f := func(b []byte) float64 {
		v, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	paint, err := time.ParseDuration(string(e[1]))
	if err != nil {
		return nil, fmt.Errorf("large file: first paint %q: %w", e[1], err)
	}
	read := f(r[1])
	return []row{
		{section: "large-file", metric: "60 MB file, peak resident / size", unit: "x", ours: f(e[2]), anchor: read, anchorN: "os.ReadFile", kind: atMost, goal: 2},
		{section: "large-file", metric: "60 MB file, resident / size after 3 searches", unit: "x", ours: f(e[3]), anchor: read, anchorN: "os.ReadFile", kind: atMost, goal: 2},
		{section: "large-file", metric: "60 MB file, first paint", unit: "ms", ours: ms(paint)},
	}, nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
