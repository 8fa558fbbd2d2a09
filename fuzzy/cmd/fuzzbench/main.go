// Command fuzzbench compares package fuzzy with `fzf --filter` on the same candidate lists
// and prints a table of milliseconds per query.
//
//	fuzzbench -compare [-fzf PATH] [-n 1000000] [-runs 5]
//	fuzzbench -filter QUERY < list
//
// With -filter it behaves like `fzf --filter QUERY`: it reads candidates from standard
// input, one per line, and prints every match, best first. -compare times three things per
// query, each the median of -runs runs (wall time, and in parentheses CPU time: the child's
// user+system time for a process, this process's for the cached search, -1 where unknown):
//
//   - fzf: `fzf --filter QUERY < file`, output counted and dropped: process start, reading
//     and splitting the list, matching on all cores, sorting every match, writing them out.
//   - ours (process): `fuzzbench -filter QUERY < file`, the same work done by this package,
//     so the two columns compare like with like.
//   - ours (cached): Search on a Store built once, top 200 with positions: what an editor
//     that keeps its file list pays per keystroke.
//
// The inputs are the file list of `go env GOROOT`/src and a synthetic list of -n paths.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pmacs-go/pmacs-go/fuzzy"
	"github.com/pmacs-go/pmacs-go/fuzzy/internal/pathgen"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// GoRootQueries and SyntheticQueries are typed the way a user looks for a file: name
// prefixes, initials, path fragments, and a few of the extended forms.
var (
	goRootQueries    = []string{"http", "gofmt", "rtsched", "netip", "encjson", "synatom", "_test.go$", "osexec", "strconv", "cmd/compile ssa"}
	syntheticQueries = []string{"render", "cfgld", "srv/http", "luaplg", "bufwin", "tree_node", "JsonEnc", "syntx", "authsess", "'cache .go$"}
)

func main() {
	filter := flag.String("filter", "", "act like fzf --filter QUERY on standard input")
	compare := flag.Bool("compare", false, "print the comparison table")
	fzfPath := flag.String("fzf", "", "fzf binary (default: .bin/fzf at the module root, then PATH)")
	n := flag.Int("n", 1_000_000, "size of the synthetic list")
	runs := flag.Int("runs", 5, "runs per measurement (the median is reported)")
	flag.Parse()
	var err error
	switch {
	case *filter != "":
		err = runFilter(*filter, os.Stdin, os.Stdout)
	case *compare:
		err = runCompare(*fzfPath, *n, *runs)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fuzzbench:", err)
		os.Exit(1)
	}
}

func runFilter(query string, in *os.File, out io.Writer) error {
	// Reading a regular file in one call into a buffer of its size avoids ReadAll's
	// repeated growth on a 40 MB list.
	var data []byte
	var err error
	if st, serr := in.Stat(); serr == nil && st.Mode().IsRegular() {
		data = make([]byte, st.Size())
		_, err = io.ReadFull(in, data)
	} else {
		data, err = io.ReadAll(in)
	}
	if err != nil {
		return fmt.Errorf("read input: %w", err)
	}
	var s fuzzy.Store
	s.AddLines(data)
	res, err := fuzzy.Search(context.Background(), &s, fuzzy.ParsePattern(query), fuzzy.Options{NoPositions: true})
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 64<<10)
	for _, m := range res.Matches {
		w.Write(s.Text(m.Index))
		w.WriteByte('\n')
	}
	return w.Flush()
}

func findFzf(flagPath string) (string, error) {
	if flagPath != "" {
		return flagPath, nil
	}
	p, err := testenv.FindPeer(testenv.Fzf)
	if err != nil {
		return "", fmt.Errorf("%w, or pass -fzf", err)
	}
	return p, nil
}

func runCompare(fzfPath string, n, runs int) error {
	fzf, err := findFzf(fzfPath)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own binary: %w", err)
	}
	goroot, err := pathgen.GoRootFiles()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "fuzzbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	fmt.Printf("fzf: %s; runs per cell: %d (median)\n\n", fzf, runs)
	fmt.Printf("| input | query | matches (fzf / ours) | fzf --filter ms (cpu) | ours process ms (cpu) | ratio wall (cpu) | ours cached top 200 ms (cpu) |\n")
	fmt.Printf("| --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
	inputs := []struct {
		name    string
		items   []string
		queries []string
	}{
		{fmt.Sprintf("GOROOT/src (%d)", len(goroot)), goroot, goRootQueries},
		{fmt.Sprintf("synthetic (%d)", n), pathgen.Synthetic(n), syntheticQueries},
	}
	for _, in := range inputs {
		file := filepath.Join(dir, "list")
		if err := os.WriteFile(file, []byte(strings.Join(in.items, "\n")+"\n"), 0o644); err != nil {
			return err
		}
		store := fuzzy.NewStore(in.items)
		var sumF, sumP, sumC, sumFC, sumPC, sumCC float64
		for _, q := range in.queries {
			fm, fc, fCount, err := timeProcess(runs, file, fzf, "--filter", q)
			if err != nil {
				return err
			}
			pm, pc, pCount, err := timeProcess(runs, file, self, "-filter", q)
			if err != nil {
				return err
			}
			var cached, cachedCPU []float64
			total := 0
			for r := 0; r < runs; r++ {
				cpu0, _ := processCPU()
				start := time.Now()
				res, err := fuzzy.Search(context.Background(), store, fuzzy.ParsePattern(q), fuzzy.Options{Limit: 200})
				if err != nil {
					return err
				}
				cached = append(cached, ms(time.Since(start)))
				cpu1, ok := processCPU()
				if ok {
					cachedCPU = append(cachedCPU, ms(cpu1-cpu0))
				}
				total = res.Total
			}
			cm, cc := median(cached), -1.0
			if len(cachedCPU) > 0 {
				cc = median(cachedCPU)
			}
			if total != pCount {
				return fmt.Errorf("query %q: in-process total %d, filter printed %d", q, total, pCount)
			}
			sumF, sumP, sumC, sumFC, sumPC, sumCC = sumF+fm, sumP+pm, sumC+cm, sumFC+fc, sumPC+pc, sumCC+cc
			fmt.Printf("| %s | `%s` | %d / %d | %.1f (%.1f) | %.1f (%.1f) | %.2fx (%.2fx) | %.2f (%.2f) |\n",
				in.name, q, fCount, pCount, fm, fc, pm, pc, pm/fm, pc/fc, cm, cc)
		}
		k := float64(len(in.queries))
		fmt.Printf("| %s | **mean per query** | | %.1f (%.1f) | %.1f (%.1f) | %.2fx (%.2fx) | %.2f (%.2f) |\n",
			in.name, sumF/k, sumFC/k, sumP/k, sumPC/k, sumP/sumF, sumPC/sumFC, sumC/k, sumCC/k)
	}
	return nil
}

// timeProcess runs the command with file on standard input and returns the median wall
// time and the median CPU time (user+system) in milliseconds, and the number of lines it
// printed.
func timeProcess(runs int, file, name string, args ...string) (float64, float64, int, error) {
	var times, cpus []float64
	lines := 0
	for r := 0; r < runs; r++ {
		in, err := os.Open(file)
		if err != nil {
			return 0, 0, 0, err
		}
		cmd := exec.Command(name, args...)
		cmd.Stdin = in
		counter := &lineCounter{}
		cmd.Stdout = counter
		start := time.Now()
		err = cmd.Run()
		elapsed := time.Since(start)
		in.Close()
		// fzf --filter exits 1 when nothing matches.
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
			return 0, 0, 0, fmt.Errorf("%s %v: %w", name, args, err)
		}
		times = append(times, ms(elapsed))
		cpus = append(cpus, ms(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()))
		lines = counter.n
	}
	return median(times), median(cpus), lines, nil
}

type lineCounter struct{ n int }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.n += bytes.Count(p, []byte{'\n'})
	return len(p), nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}
