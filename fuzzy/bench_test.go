package fuzzy_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pmacs-go/pmacs-go/fuzzy"
	"github.com/pmacs-go/pmacs-go/fuzzy/internal/pathgen"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// The benchmark queries are those fuzzbench -compare uses, typed the way a user looks for a
// file.
var (
	benchGoRootQueries    = []string{"http", "gofmt", "rtsched", "netip", "encjson", "synatom", "_test.go$", "osexec", "strconv", "cmd/compile ssa"}
	benchSyntheticQueries = []string{"render", "cfgld", "srv/http", "luaplg", "bufwin", "tree_node", "JsonEnc", "syntx", "authsess", "'cache .go$"}
)

type benchInput struct {
	name    string
	items   []string
	queries []string
	file    string
}

var (
	benchOnce   sync.Once
	benchInputs []benchInput
	benchErr    error
	benchDir    string
	benchSelf   string
)

// loadBenchInputs writes the GOROOT/src list and 1,000,000 synthetic paths to files once,
// and builds fuzzbench so its -filter mode can be timed as a process like fzf.
func loadBenchInputs(b *testing.B) []benchInput {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "fuzzybench")
		if benchErr != nil {
			return
		}
		goroot, err := pathgen.GoRootFiles()
		if err != nil {
			benchErr = err
			return
		}
		benchInputs = []benchInput{
			{name: "goroot", items: goroot, queries: benchGoRootQueries},
			{name: "synthetic1M", items: pathgen.Synthetic(1_000_000), queries: benchSyntheticQueries},
		}
		for i := range benchInputs {
			in := &benchInputs[i]
			in.file = filepath.Join(benchDir, in.name)
			if benchErr = os.WriteFile(in.file, []byte(strings.Join(in.items, "\n")+"\n"), 0o644); benchErr != nil {
				return
			}
		}
		benchSelf = filepath.Join(benchDir, "fuzzbench")
		out, err := exec.Command("go", "build", "-o", benchSelf, "github.com/pmacs-go/pmacs-go/fuzzy/cmd/fuzzbench").CombinedOutput()
		if err != nil {
			benchErr = errors.New("build fuzzbench: " + err.Error() + ": " + string(out))
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchInputs
}

// runFilterProcess runs one `NAME ARGS < file > /dev/null` and returns its CPU time.
func runFilterProcess(b *testing.B, file, name string, args ...string) time.Duration {
	in, err := os.Open(file)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	cmd := exec.Command(name, args...)
	cmd.Stdin = in
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		b.Fatal(name, args, err)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// BenchmarkVsFzf times, side by side for each input and query:
//
//   - fzf: `fzf --filter QUERY < list > /dev/null`: process start, reading the list,
//     matching on all cores, sorting and writing every match;
//   - ours-process: `fuzzbench -filter QUERY < list > /dev/null`, the same work with this
//     package (reads the list into a Store, Search with no limit, prints every match);
//   - ours-cached: Search on a Store built once (top 200 with positions, GOMAXPROCS
//     goroutines), which is what the finder pays per keystroke.
//
// ns/op is wall time per query; every variant also reports cpu-ms/op (user+system of the
// child, or of the test process for ours-cached), steadier on a loaded machine.
func BenchmarkVsFzf(b *testing.B) {
	inputs := loadBenchInputs(b)
	fzf := ""
	if p, ok := findFzfForBench(); ok {
		fzf = p
	}
	for _, in := range inputs {
		store := fuzzy.NewStore(in.items)
		for _, q := range in.queries {
			if fzf != "" {
				b.Run(in.name+"/"+q+"/fzf", func(b *testing.B) {
					var cpu time.Duration
					for b.Loop() {
						cpu += runFilterProcess(b, in.file, fzf, "--filter", q)
					}
					b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
				})
			}
			b.Run(in.name+"/"+q+"/ours-process", func(b *testing.B) {
				var cpu time.Duration
				for b.Loop() {
					cpu += runFilterProcess(b, in.file, benchSelf, "-filter", q)
				}
				b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			})
			b.Run(in.name+"/"+q+"/ours-cached", func(b *testing.B) {
				p := fuzzy.ParsePattern(q)
				reportCPU(b, func() {
					for b.Loop() {
						if _, err := fuzzy.Search(context.Background(), store, p, fuzzy.Options{Limit: 200}); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		}
	}
}

// reportCPU runs loop and reports the process's CPU time per iteration as cpu-ms/op: on a
// shared machine wall time also counts the time other processes held the cores.
func reportCPU(b *testing.B, loop func()) {
	cpu0, ok0 := processCPU()
	loop()
	cpu1, ok1 := processCPU()
	if ok0 && ok1 && b.N > 0 {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

func findFzfForBench() (string, bool) {
	p, err := testenv.FindPeer(testenv.Fzf)
	return p, err == nil
}

// BenchmarkChunk measures one chunk's worth of work (1024 candidates, one goroutine) with
// queries that match most of them, the worst case for the time a superseded query can
// waste before it looks at its context again. The bound to meet is 1 ms of work (cpu-ms/op)
// per chunk.
func BenchmarkChunk(b *testing.B) {
	store := fuzzy.NewStore(pathgen.Synthetic(1024))
	for _, q := range []string{"e", "render", "srcutilrenderer", "s r e"} {
		b.Run(q, func(b *testing.B) {
			p := fuzzy.ParsePattern(q)
			reportCPU(b, func() {
				for b.Loop() {
					if _, err := fuzzy.Search(context.Background(), store, p, fuzzy.Options{Limit: 200, Threads: 1, NoPositions: true}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkCancelLatency measures the time from cancelling a running search to Search
// returning (reported as µs-to-return), on 1,000,000 paths and on 4,000 lines of 20 KB.
func BenchmarkCancelLatency(b *testing.B) {
	long := make([]string, 4000)
	for i := range long {
		long[i] = strings.Repeat("render/", 20000/7) + "x" + strings.Repeat("y", i%50)
	}
	b.Run("paths", func(b *testing.B) {
		benchCancel(b, fuzzy.NewStore(pathgen.Synthetic(1_000_000)), fuzzy.ParsePattern("render"))
	})
	b.Run("long-lines", func(b *testing.B) {
		benchCancel(b, fuzzy.NewStore(long), fuzzy.ParsePattern("rndr"))
	})
}

func benchCancel(b *testing.B, store *fuzzy.Store, p fuzzy.Pattern) {
	var total time.Duration
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		var cancelledAt time.Time
		timer := time.AfterFunc(2*time.Millisecond, func() {
			cancelledAt = time.Now()
			cancel()
		})
		_, err := fuzzy.Search(ctx, store, p, fuzzy.Options{Limit: 200})
		end := time.Now()
		timer.Stop()
		cancel()
		if err == nil {
			b.Fatal("search finished before the cancel")
		}
		total += end.Sub(cancelledAt)
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-to-return")
}

// BenchmarkRefine compares a keystroke that narrows (Refine over the previous matches) with
// a full search, on 1,000,000 paths.
func BenchmarkRefine(b *testing.B) {
	store := fuzzy.NewStore(pathgen.Synthetic(1_000_000))
	ctx := context.Background()
	prev, err := fuzzy.Search(ctx, store, fuzzy.ParsePattern("rend"), fuzzy.Options{Limit: 200})
	if err != nil {
		b.Fatal(err)
	}
	next := fuzzy.ParsePattern("render")
	b.Run("full", func(b *testing.B) {
		reportCPU(b, func() {
			for b.Loop() {
				if _, err := fuzzy.Search(ctx, store, next, fuzzy.Options{Limit: 200}); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("refine", func(b *testing.B) {
		reportCPU(b, func() {
			for b.Loop() {
				if _, err := prev.Refine(ctx, next, fuzzy.Options{Limit: 200}); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

var (
	realOnce  sync.Once
	realStore *fuzzy.Store
	realErr   error
)

// realPathStore is the list cmd/pmacs-bench's finder section ranks: 1,000,000 real paths
// (this machine's files, repeated under other prefixes), built once.
func realPathStore(b *testing.B) *fuzzy.Store {
	realOnce.Do(func() {
		var paths []string
		paths, _, realErr = testenv.RealPaths(1_000_000)
		if realErr == nil {
			realStore = fuzzy.NewStore(paths)
		}
	})
	if realErr != nil {
		b.Fatal(realErr)
	}
	return realStore
}

// typingQueries are typed letter by letter over the real paths: pmacs-bench's queries and
// others of the same shapes (a name, directories and a name, a term per word), so a
// speed-up must hold beyond the queries the bench command uses.
var typingQueries = []string{
	"tsparse", "readme", "nethttpserver", "gorunt", "initlua", "stdlibh", "makefile",
	"cmdcompile", "x/tools", "encoding json", "pyc", "licens", "gccgo", "share/doc", "mgcmark",
}

// BenchmarkTypingRealPaths types each query letter by letter over 1,000,000 real paths,
// each letter refining the last result (top 200 with positions, 2 goroutines), as the
// finder does; one op types every query. It reports the keystrokes' median, p90 and
// longest time in ms, and the median and p90 of their CPU time (both goroutines), which
// other processes on a shared machine disturb far less than the wall time.
func BenchmarkTypingRealPaths(b *testing.B) {
	store := realPathStore(b)
	ctx := context.Background()
	opt := fuzzy.Options{Limit: 200, Threads: 2}
	var keys, cpus []float64
	for b.Loop() {
		for _, q := range typingQueries {
			var prev *fuzzy.Result
			for k := 1; k <= len(q); k++ {
				p := fuzzy.ParsePattern(q[:k])
				c0, cok := processCPU()
				t0 := time.Now()
				var r *fuzzy.Result
				var err error
				if prev == nil {
					r, err = fuzzy.Search(ctx, store, p, opt)
				} else {
					r, err = prev.Refine(ctx, p, opt)
				}
				if err != nil {
					b.Fatal(err)
				}
				keys = append(keys, float64(time.Since(t0))/float64(time.Millisecond))
				if c1, ok := processCPU(); cok && ok {
					cpus = append(cpus, float64(c1-c0)/float64(time.Millisecond))
				}
				prev = r
			}
		}
	}
	slices.Sort(keys)
	b.ReportMetric(keys[len(keys)/2], "ms-key-median")
	b.ReportMetric(keys[len(keys)*9/10], "ms-key-p90")
	b.ReportMetric(keys[len(keys)-1], "ms-key-max")
	if len(cpus) > 0 {
		slices.Sort(cpus)
		b.ReportMetric(cpus[len(cpus)/2], "cpu-ms-key-median")
		b.ReportMetric(cpus[len(cpus)*9/10], "cpu-ms-key-p90")
	}
}
