// Command pmacs-bench runs the project's speed comparisons, each side by side
// with its anchor in the same run, and prints one table: metric, ours,
// anchor, ratio, goal, met.
//
//	go run ./cmd/pmacs-bench [-quick] [-only REGEXP] [-queries a,b,c]
//
// The anchors are what a user would otherwise wait on or what the work
// cannot beat: ripgrep for grep, fzf --filter for the finder, a bare
// goroutine hand-off for dispatch, the collector switched off for frame
// times. The benchmarks that live in test files run through `go test
// -bench` (their custom metrics are read back from its output); the finder
// and the table run in this process. -quick uses fewer rounds and finishes
// in under three minutes once the test binaries are built; a full run takes
// about ten.
//
// Every row says how it was measured; none is skipped in silence: a
// comparison that cannot run (a missing peer, a failed build) prints its
// error in the table, and the command exits 1.
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"
	"time"
)

type config struct {
	quick   bool
	root    string // module root: where go test runs
	queries []string
}

// section is one group of rows; each runs its comparisons and returns its
// rows, or an error that becomes a failed row.
type section struct {
	name string
	run  func(config) ([]row, error)
}

var sections = []section{
	{"frames", framesSection},
	{"dispatch", dispatchSection},
	{"external", externalSection},
	{"grep", grepSection},
	{"live-grep", liveGrepSection},
	{"grep-frames", grepFramesSection},
	{"finder", finderSection},
	{"large-file", largeFileSection},
}

func main() {
	quick := flag.Bool("quick", false, "fewer rounds: under three minutes once built")
	only := flag.String("only", "", "run only the sections whose name matches this regexp ("+sectionNames()+")")
	queries := flag.String("queries", strings.Join(defaultQueries, ","), "finder queries, comma-separated, each typed letter by letter")
	flag.Parse()
	var filter *regexp.Regexp
	if *only != "" {
		var err error
		if filter, err = regexp.Compile(*only); err != nil {
			fmt.Fprintln(os.Stderr, "pmacs-bench: -only:", err)
			os.Exit(2)
		}
	}
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pmacs-bench:", err)
		os.Exit(2)
	}
	cfg := config{quick: *quick, root: root, queries: splitQueries(*queries)}
	if len(cfg.queries) == 0 {
		fmt.Fprintln(os.Stderr, "pmacs-bench: -queries: no query given")
		os.Exit(2)
	}
	start := time.Now()
	fmt.Printf("pmacs-bench: %d cores, GOMAXPROCS %d, load average %s, quick=%v\n\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), loadAverage(), *quick)
	var rows []row
	failed := false
	for _, s := range sections {
		if filter != nil && !filter.MatchString(s.name) {
			continue
		}
		t0 := time.Now()
		rs, err := s.run(cfg)
		if err != nil {
			failed = true
			rs = append(rs, row{section: s.name, metric: "error: " + err.Error()})
		}
		fmt.Fprintf(os.Stderr, "pmacs-bench: %s done in %.1fs\n", s.name, time.Since(t0).Seconds())
		rows = append(rows, rs...)
	}
	printTable(os.Stdout, rows)
	fmt.Printf("\n%d rows, %d goals met of %d, in %.0fs; load average at the end %s\n",
		len(rows), countMet(rows), countGoals(rows), time.Since(start).Seconds(), loadAverage())
	if failed {
		os.Exit(1)
	}
}

func sectionNames() string {
	var n []string
	for _, s := range sections {
		n = append(n, s.name)
	}
	return strings.Join(n, ", ")
}

func splitQueries(s string) []string {
	var q []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			q = append(q, f)
		}
	}
	return q
}

// moduleRoot is the directory holding this module's go.mod, found from the
// working directory upwards.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		if b, err := os.ReadFile(d + "/go.mod"); err == nil && strings.Contains(string(b), "module github.com/pmacs-go/pmacs-go\n") {
			return d, nil
		}
		parent := d[:max(strings.LastIndex(d, "/"), 0)]
		if parent == d || parent == "" {
			return "", fmt.Errorf("run from inside the pmacs-go module (no go.mod of it above %s)", dir)
		}
		d = parent
	}
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
