package grep_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/pmacs-go/pmacs-go/grep"
)

// exampleTree writes a small project into a fresh temporary directory and
// returns its path; the caller removes it.
func exampleTree() string {
	root, err := os.MkdirTemp("", "grep-example")
	if err != nil {
		panic(err)
	}
	files := map[string]string{
		"main.go":        "package main\n\n// TODO: flags\nfunc main() {}\n",
		"util/util.go":   "package util\n\n// TODO: tests\n// todo in lower case\n",
		"build/out.go":   "// TODO: generated, ignored\n",
		".gitignore":     "build/\n",
		"notes/plan.txt": "nothing to do here\n",
	}
	_ = os.Mkdir(filepath.Join(root, ".git"), 0o755) // a work tree, so .gitignore applies
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			panic(err)
		}
	}
	return root
}

// Search calls emit from several goroutines, one file per call, so a caller
// that collects matches guards them; sorting gives a stable order.
func ExampleSearch() {
	root := exampleTree()
	defer os.RemoveAll(root)

	var mu sync.Mutex
	var lines []string
	stats, err := grep.Search(context.Background(), grep.Spec{Root: root, Pattern: "TODO"},
		func(ms []grep.Match) error {
			mu.Lock()
			defer mu.Unlock()
			for _, m := range ms {
				lines = append(lines, fmt.Sprintf("%s:%d: %s [%d,%d)", m.File, m.Line, m.Text, m.MatchStart, m.MatchEnd))
			}
			return nil
		})
	if err != nil {
		panic(err)
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	fmt.Println(stats.FilesMatched, "files,", stats.Matches, "matches")
	// Output:
	// main.go:3: // TODO: flags [3,7)
	// util/util.go:3: // TODO: tests [3,7)
	// 2 files, 2 matches
}

// A pattern that is not valid RE2 is an error matching ErrBadPattern, found
// before any file is read.
func ExampleSearch_badPattern() {
	_, err := grep.Search(context.Background(), grep.Spec{Root: ".", Pattern: "(", Regex: true},
		func([]grep.Match) error { return nil })
	fmt.Println(errors.Is(err, grep.ErrBadPattern))
	// Output: true
}

// Returning an error from emit stops the search; Search returns that error.
func ExampleSearch_stop() {
	root := exampleTree()
	defer os.RemoveAll(root)

	errEnough := errors.New("enough")
	_, err := grep.Search(context.Background(), grep.Spec{Root: root, Pattern: "TODO"},
		func([]grep.Match) error { return errEnough })
	fmt.Println(errors.Is(err, errEnough))
	// Output: true
}
