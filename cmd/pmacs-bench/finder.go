package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/pmacs-go/pmacs-go/fuzzy"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// defaultQueries are typed the way users type them: a file's name or a few
// letters of its directories and name, some matching a handful of paths and
// some (tsparse) half the list.
var defaultQueries = []string{"tsparse", "readme", "nethttpserver", "gorunt", "initlua", "stdlibh", "makefile"}

const finderPaths = 1_000_000

// finderFirstSlice and finderThreads are what kinds/findjob ranks a large
// list's first snapshot from (its firstSlice) and the finder's two threads.
const (
	finderFirstSlice = 1 << 16
	finderThreads    = 2
)

// finderSection ranks 1,000,000 real paths (this machine's files under
// GOROOT, /usr and the module cache, repeated under other prefixes to reach
// the count) per keystroke as the finder does: the top 200 with positions
// on two threads, each letter refining the last result, after a first
// ranking of the first 65,536 paths (the find job's early snapshot; its own
// time is the first-snapshot rows, and the keystroke's time includes it). The anchor is
// `fzf --filter` of the whole query over the same list (process start,
// reading and ranking everything); the order check compares the top ten.
func finderSection(cfg config) ([]row, error) {
	paths, distinct, err := testenv.RealPaths(finderPaths)
	if err != nil {
		return nil, err
	}
	store := fuzzy.NewStore(paths)
	var keys, firsts []float64
	ours := map[string][]string{}
	rounds := pick(cfg, 1, 3)
	for range rounds {
		for _, q := range cfg.queries {
			var prev *fuzzy.Result
			for k := 1; k <= len(q); k++ {
				p := fuzzy.ParsePattern(q[:k])
				rank := func(opt fuzzy.Options) (*fuzzy.Result, error) {
					opt.Limit, opt.Threads = 200, finderThreads
					if prev == nil {
						return fuzzy.Search(context.Background(), store, p, opt)
					}
					return prev.Refine(context.Background(), p, opt)
				}
				t0 := time.Now()
				if _, err := rank(fuzzy.Options{First: finderFirstSlice}); err != nil {
					return nil, err
				}
				firsts = append(firsts, ms(time.Since(t0)))
				r, err := rank(fuzzy.Options{})
				if err != nil {
					return nil, err
				}
				keys = append(keys, ms(time.Since(t0)))
				prev = r
			}
			var top []string
			for _, m := range prev.Matches[:min(10, len(prev.Matches))] {
				top = append(top, store.Item(m.Index))
			}
			ours[q] = top
		}
	}
	fzf, err := testenv.FindPeer(testenv.Fzf)
	if err != nil {
		return nil, fmt.Errorf("fzf: %w", err)
	}
	list, err := os.CreateTemp("", "pmacs-bench-paths-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(list.Name())
	bw := bufio.NewWriterSize(list, 1<<20)
	for _, p := range paths {
		bw.WriteString(p)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	list.Close()
	var fzfTimes []float64
	same := 0
	var differ []string
	for _, q := range cfg.queries {
		top, d, err := fzfFilter(fzf, list.Name(), q, 10)
		if err != nil {
			return nil, err
		}
		fzfTimes = append(fzfTimes, ms(d))
		if slices.Equal(top, ours[q]) {
			same++
		} else {
			differ = append(differ, q)
		}
	}
	slices.Sort(keys)
	slices.Sort(firsts)
	label := fmt.Sprintf("1M real paths (%d distinct), per keystroke", distinct)
	rows := []row{
		{section: "finder", metric: label + ", median", unit: "ms", ours: median(keys), anchor: median(fzfTimes), anchorN: "fzf --filter, whole query", kind: atMost, goal: 16},
		{section: "finder", metric: label + ", p90", unit: "ms", ours: percentile(keys, 0.90), kind: atMost, goal: 50},
		{section: "finder", metric: label + ", longest", unit: "ms", ours: keys[len(keys)-1]},
		{section: "finder", metric: "first snapshot (first 65,536 paths), per keystroke, p90", unit: "ms", ours: percentile(firsts, 0.90), kind: atMost, goal: 16},
		{section: "finder", metric: "first snapshot (first 65,536 paths), per keystroke, longest", unit: "ms", ours: firsts[len(firsts)-1]},
		{section: "finder", metric: "queries whose top 10 match fzf's order", ours: float64(same), anchor: float64(len(cfg.queries)), anchorN: "queries", kind: atLeast, goal: float64(len(cfg.queries))},
	}
	if len(differ) > 0 {
		fmt.Fprintf(os.Stderr, "pmacs-bench: finder: top 10 differ from fzf's for %s\n", strings.Join(differ, ", "))
	}
	return rows, nil
}

// fzfFilter runs `fzf --filter q < file` and returns its first n lines and
// its wall time.
func fzfFilter(fzf, file, q string, n int) ([]string, time.Duration, error) {
	in, err := os.Open(file)
	if err != nil {
		return nil, 0, err
	}
	defer in.Close()
	cmd := exec.Command(fzf, "--filter", q)
	cmd.Stdin = in
	t0 := time.Now()
	out, err := cmd.Output()
	d := time.Since(t0)
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
		return nil, 0, fmt.Errorf("fzf --filter %q: %w", q, err)
	}
	lines := strings.SplitN(string(out), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines, d, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p * float64(len(sorted)))
	return sorted[min(i, len(sorted)-1)]
}
