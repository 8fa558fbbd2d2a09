package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// benchResult is one benchmark line of `go test -bench`: its metrics by
// unit ("ns/op", "allocs/op", "ms/p99-frame", ...).
type benchResult map[string]float64

// goTest runs `go test` in the module root with args and extra environment
// and returns its standard output; a failure returns the output's tail in
// the error.
func goTest(cfg config, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{"test", "-count", "1"}, args...)...)
	cmd.Dir = cfg.root
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("go test %s: %w: %s", strings.Join(args, " "), err, tail(out.String()+errb.String(), 600))
	}
	return out.Bytes(), nil
}

// runBench runs the benchmarks matching pattern in pkg for benchtime and
// returns them by name (without the -N GOMAXPROCS suffix).
func runBench(cfg config, env []string, pkg, pattern, benchtime string) (map[string]benchResult, error) {
	out, err := goTest(cfg, env, "-run", "^$", "-bench", pattern, "-benchtime", benchtime, pkg)
	if err != nil {
		return nil, err
	}
	res := parseBenchOutput(out)
	if len(res) == 0 {
		return nil, fmt.Errorf("go test -bench %s %s: no benchmark ran: %s", pattern, pkg, tail(string(out), 400))
	}
	return res, nil
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// parseBenchOutput reads the benchmark lines of go test's output:
// "BenchmarkX/sub-2  <N>  <v> <unit>  <v> <unit> ...".
func parseBenchOutput(out []byte) map[string]benchResult {
	res := map[string]benchResult{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		m := benchResult{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			m[f[i+1]] = v
		}
		res[procSuffix.ReplaceAllString(f[0], "")] = m
	}
	return res
}

// metric is r[unit], or an error naming what is missing.
func metric(res map[string]benchResult, name, unit string) (float64, error) {
	r, ok := res[name]
	if !ok {
		var have []string
		for n := range res {
			have = append(have, n)
		}
		return 0, fmt.Errorf("benchmark %s did not run (ran: %s)", name, strings.Join(have, ", "))
	}
	v, ok := r[unit]
	if !ok {
		return 0, fmt.Errorf("benchmark %s reported no %s", name, unit)
	}
	return v, nil
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return s
}
