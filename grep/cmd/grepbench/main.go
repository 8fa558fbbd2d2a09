// Command grepbench times grep.Search over a source tree (by default the Go distribution's
// src directory) against ripgrep with the same flags and thread count, warm cache, several
// runs each, and prints the medians, the ratio, the peak RSS of both, and how fast a cancelled
// search returns.
//
//	go run ./grep/cmd/grepbench [-root DIR] [-runs N] [-threads N] [-scale N] [-tsv]
//
// With -scale N (N > 1) it first copies the tree N times under one temporary directory,
// searches that (N times the files, directories and bytes) and removes it at the end.
//
// With -tsv it prints one tab-separated row per case (name, ours ms, rg ms, ours CPU ms, rg
// CPU ms, our lines, rg's lines) and no cancel figures: the form cmd/pmacs-bench reads.
//
// Both tools run as child processes writing "path:line:text" lines into a pipe that the bench
// drains, so each wall time includes process start and output, and each peak RSS is the
// child's own.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

type benchCase struct {
	name    string
	pattern string
	regex   bool
	fold    bool
	rgArgs  []string
}

var cases = []benchCase{
	{"rare literal", "ErrUnexpectedEOF", false, false, []string{"-F", "ErrUnexpectedEOF"}},
	{"common literal", "func", false, false, []string{"-F", "func"}},
	{"regex", `func \w+\(`, true, false, []string{`(?-u)func \w+\(`}},
	{"ignore-case literal", "errunexpectedeof", false, true, []string{"-i", "-F", "errunexpectedeof"}},
}

func main() {
	// The default is looked up only when needed: a child is always given -root, and running
	// the go command in each child would add its start to every timing of ours.
	root := flag.String("root", "", "tree to search (default $(go env GOROOT)/src)")
	runs := flag.Int("runs", 7, "timed runs per tool and case (after one warm-up run)")
	threads := flag.Int("threads", runtime.NumCPU(), "fanout for Search and -j for rg")
	child := flag.String("child", "", "internal: run one case in this process and print its matches")
	tsv := flag.Bool("tsv", false, "print tab-separated rows for cmd/pmacs-bench instead of the table")
	scale := flag.Int("scale", 1, "search this many copies of the tree, made under a temporary directory")
	flag.Parse()
	*runs = max(*runs, 1)
	if *root == "" && *child == "" {
		*root = defaultRoot()
	}
	if *root == "" {
		fmt.Fprintln(os.Stderr, "grepbench: go env GOROOT failed: give the tree to search with -root")
		os.Exit(2)
	}
	if *child != "" {
		os.Exit(runChild(*root, *child, *threads))
	}
	if _, err := exec.LookPath("rg"); err != nil {
		fmt.Fprintln(os.Stderr, "grepbench: ripgrep (rg) not found in PATH")
		os.Exit(1)
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "grepbench:", err)
		os.Exit(1)
	}
	if *scale > 1 {
		copies, err := copies(*root, *scale)
		if copies != "" {
			defer os.RemoveAll(copies)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "grepbench:", err)
			os.RemoveAll(copies)
			os.Exit(1)
		}
		*root = copies
	}
	if !*tsv {
		if *scale > 1 {
			fmt.Printf("%d copies of the tree: ", *scale)
		}
		fmt.Printf("root %s, %d threads, %d runs each, medians of wall and CPU time (warm cache)\n\n", *root, *threads, *runs)
		fmt.Printf("%-20s %10s %10s %7s %10s %10s %9s %12s %12s %9s\n", "case", "ours", "rg", "ratio",
			"ours cpu", "rg cpu", "cpu ratio", "ours maxRSS", "rg maxRSS", "lines")
	}
	for i, c := range cases {
		ours := []string{self, "-child", strconv.Itoa(i), "-root", *root, "-threads", strconv.Itoa(*threads)}
		rg := append([]string{"rg", "--no-config", "-n", "--no-heading", "--color", "never",
			"--max-filesize", "16M", "--no-ignore-global", "-j", strconv.Itoa(*threads)}, c.rgArgs...)
		rg = append(rg, ".")
		var ot, rt, oc, rc []time.Duration
		var orss, rrss int64
		var lines, rgLines int
		for r := 0; r <= *runs; r++ { // run 0 warms the cache and is not counted
			d, cpu, rss, n := timeChild(ours, *root)
			if r > 0 {
				ot, oc = append(ot, d), append(oc, cpu)
			}
			orss, lines = max(orss, rss), n
			d, cpu, rss, n = timeChild(rg, *root)
			if r > 0 {
				rt, rc = append(rt, d), append(rc, cpu)
			}
			rrss, rgLines = max(rrss, rss), n
		}
		om, rm, ocm, rcm := median(ot), median(rt), median(oc), median(rc)
		if *tsv {
			fmt.Printf("%s\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%d\n", c.name, ms(om), ms(rm), ms(ocm), ms(rcm), lines, rgLines)
			continue
		}
		fmt.Printf("%-20s %8.1fms %8.1fms %6.2fx %8.1fms %8.1fms %8.2fx %8.1f MiB %8.1f MiB %9d\n", c.name,
			ms(om), ms(rm), float64(om)/float64(rm), ms(ocm), ms(rcm), float64(ocm)/float64(rcm),
			float64(orss)/1024, float64(rrss)/1024, lines)
	}
	if *tsv {
		return
	}
	med, worst := cancelLatency(*root, *threads)
	fmt.Printf("\ncancel: Search returned (every fanout goroutine gone) %.3f ms median, %.3f ms worst after cancel, over 20 cancels mid-search\n", ms(med), ms(worst))
}

// copies copies the tree at root n times under a new temporary directory, which it returns
// (also on an error, for the caller to remove). Regular files, directories and symlinks are
// copied; whatever else the tree holds is left out, as both tools skip it. Files are copied
// on every core, then synced so that writeback does not run during the timings.
func copies(root string, n int) (string, error) {
	dir, err := os.MkdirTemp("", "grepbench-")
	if err != nil {
		return "", err
	}
	type job struct{ from, to string }
	var jobs []job
	for i := range n {
		dst := filepath.Join(dir, fmt.Sprintf("copy%d", i+1))
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			to := filepath.Join(dst, rel)
			switch {
			case d.IsDir():
				return os.MkdirAll(to, 0o755)
			case d.Type()&fs.ModeSymlink != 0:
				target, err := os.Readlink(path)
				if err != nil {
					return err
				}
				return os.Symlink(target, to)
			case d.Type().IsRegular():
				jobs = append(jobs, job{path, to})
			}
			return nil
		})
		if err != nil {
			return dir, fmt.Errorf("copying %s: %w", root, err)
		}
	}
	var (
		wg    sync.WaitGroup
		next  atomic.Int64
		first atomic.Pointer[error]
	)
	for range runtime.NumCPU() {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(jobs) && first.Load() == nil; i = int(next.Add(1) - 1) {
				if err := copyFile(jobs[i].from, jobs[i].to); err != nil {
					first.CompareAndSwap(nil, &err)
				}
			}
		})
	}
	wg.Wait()
	if err := first.Load(); err != nil {
		return dir, fmt.Errorf("copying %s: %w", root, *err)
	}
	syscall.Sync()
	return dir, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// defaultRoot is the Go distribution's src directory as the go command reports it, or "" if
// it cannot (then -root is required).
func defaultRoot() string {
	src, err := testenv.GoSrc()
	if err != nil {
		return ""
	}
	return src
}

// timeChild runs argv in dir, drains its output, and returns its wall time, CPU time (user and
// system, a steadier figure on a shared machine), peak RSS (KiB) and output line count.
func timeChild(argv []string, dir string) (time.Duration, time.Duration, int64, int) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		panic(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "grepbench:", err)
		os.Exit(1)
	}
	lines := 0
	br := bufio.NewReaderSize(out, 1<<16)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			lines++
		}
		if err == io.EOF {
			break
		}
		if err != nil && err != bufio.ErrBufferFull {
			break
		}
	}
	_ = cmd.Wait()
	d := time.Since(start)
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return d, cpu, rss, lines
}

// runChild searches for one case and prints its matches as rg does: path:line:text.
func runChild(root, which string, threads int) int {
	i, err := strconv.Atoi(which)
	if err != nil || i < 0 || i >= len(cases) {
		fmt.Fprintln(os.Stderr, "grepbench: bad -child")
		return 2
	}
	c := cases[i]
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	var mu sync.Mutex
	spec := grep.Spec{Root: root, Pattern: c.pattern, Regex: c.regex, IgnoreCase: c.fold, SkipDirs: []string{}, Fanout: threads, ReuseBatch: true}
	_, err = grep.Search(context.Background(), spec, func(ms []grep.Match) error {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range ms {
			w.WriteString(m.File)
			w.WriteByte(':')
			w.WriteString(strconv.FormatUint(uint64(m.Line), 10))
			w.WriteByte(':')
			w.WriteString(m.Text)
			w.WriteByte('\n')
		}
		return nil
	})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "grepbench:", err)
		return 1
	}
	return 0
}

// cancelLatency cancels searches of the common literal at staggered points and measures the
// time from cancel to Search's return, which is after every fanout goroutine has returned.
func cancelLatency(root string, threads int) (time.Duration, time.Duration) {
	var lat []time.Duration
	for i := range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		var cancelledAt time.Time
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = grep.Search(ctx, grep.Spec{Root: root, Pattern: "func", SkipDirs: []string{}, Fanout: threads},
				func([]grep.Match) error { return nil })
		}()
		time.Sleep(time.Duration(5+2*i) * time.Millisecond) // land the cancel at varied points
		cancelledAt = time.Now()
		cancel()
		<-done
		lat = append(lat, time.Since(cancelledAt))
	}
	return median(lat), slices.Max(lat)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
