package testenv

import (
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// RealPaths lists this machine's regular files under GOROOT, /usr and the module cache
// (relative to each, under the tree's name), sorted, then repeats the list under the
// prefixes copy1/, copy2/, ... up to n paths: the list cmd/pmacs-bench's finder section
// and fuzzy's BenchmarkTypingRealPaths rank. It returns the list and how many were distinct files.
func RealPaths(n int) ([]string, int, error) {
	var roots []string
	if src, err := GoSrc(); err == nil {
		roots = append(roots, filepath.Dir(src))
	}
	roots = append(roots, "/usr")
	if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
		if d := strings.TrimSpace(string(out)); d != "" {
			roots = append(roots, d)
		}
	}
	var base []string
	for _, root := range roots {
		name := filepath.Base(root)
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if len(base) >= n {
				return fs.SkipAll
			}
			if d.Type().IsRegular() {
				rel, _ := filepath.Rel(root, p)
				base = append(base, name+"/"+rel)
			}
			return nil
		})
	}
	if len(base) < 1000 {
		return nil, 0, fmt.Errorf("testenv: only %d files under %s: too few real paths", len(base), strings.Join(roots, ", "))
	}
	sort.Strings(base)
	base = slices.Compact(base)
	out := make([]string, 0, n)
	out = append(out, base[:min(n, len(base))]...)
	for c := 1; len(out) < n; c++ {
		prefix := fmt.Sprintf("copy%d/", c)
		for _, p := range base {
			if len(out) == n {
				break
			}
			out = append(out, prefix+p)
		}
	}
	return out, len(base), nil
}
