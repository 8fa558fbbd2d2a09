package walk_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/pmacs-go/pmacs-go/walk"
)

// exampleTree makes a small work tree: a .gitignore, a hidden file, a nested directory.
func exampleTree() (string, func()) {
	root, err := os.MkdirTemp("", "walk-example")
	if err != nil {
		panic(err)
	}
	for name, body := range map[string]string{
		".gitignore":      "*.o\n",
		"main.go":         "package main\n",
		"main.o":          "",
		".env":            "SECRET=1\n",
		"cmd/tool/run.go": "package main\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, []byte(body), 0o644)
	}
	_ = os.Mkdir(filepath.Join(root, ".git"), 0o755)
	return root, func() { os.RemoveAll(root) }
}

// A file finder takes the list of files under a root, in chunks while the walk runs, and
// the directories' modification times to keep a cache of the list fresh.
func ExampleList() {
	root, cleanup := exampleTree()
	defer cleanup()

	var files []string
	dirs := map[string]bool{}
	err := walk.List(context.Background(), root, walk.Options{}, func(c walk.Chunk) error {
		files = append(files, c.Files...) // emit calls never overlap: no lock needed
		for _, d := range c.Dirs {
			dirs[d.Rel] = !d.ModTime.IsZero()
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	sort.Strings(files)
	fmt.Println(files)
	fmt.Println(len(dirs), "directories, all with a time:", dirs[""] && dirs["cmd"] && dirs["cmd/tool"])
	// Output:
	// [cmd/tool/run.go main.go]
	// 3 directories, all with a time: true
}

// A parallel consumer does its work in the visit, on the walk's goroutines, with per-worker
// state indexed by the worker number: here, the total size of the files.
func ExampleWalk() {
	root, cleanup := exampleTree()
	defer cleanup()

	opts := walk.Options{Hidden: true, SkipDirs: []string{".git"}, Fanout: 2}
	sizes := make([]int64, opts.Fanout)
	var mu sync.Mutex
	var names []string
	err := walk.Walk(context.Background(), root, opts, func(worker int, d *walk.Dir, batch []string) error {
		for _, name := range batch {
			fi, err := os.Lstat(d.Path() + "/" + name)
			if err != nil {
				continue // removed since the walk saw it
			}
			sizes[worker] += fi.Size()
			mu.Lock()
			names = append(names, d.Join(name))
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	sort.Strings(names)
	fmt.Println(names, sizes[0]+sizes[1], "bytes")
	// Output:
	// [.env .gitignore cmd/tool/run.go main.go] 39 bytes
}
