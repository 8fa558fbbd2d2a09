//go:build linux

package dirent_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/internal/dirent"
)

// A reader loops over Read with one reused buffer until more is false; a
// caller with a context checks it between batches.
func ExampleRead() {
	dir, err := os.MkdirTemp("", "dirent-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o644)
	_ = os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	_ = os.Symlink("a.txt", filepath.Join(dir, "link"))

	fd, err := dirent.Open(dir)
	if err != nil {
		panic(err)
	}
	defer unix.Close(fd)
	buf := make([]byte, 8<<10)
	var entries []dirent.Entry
	for more := true; more; {
		if entries, more, err = dirent.Read(fd, buf, entries); err != nil {
			panic(err)
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	names := map[dirent.Type]string{dirent.File: "file", dirent.Dir: "dir", dirent.Symlink: "symlink", dirent.Other: "other"}
	for _, e := range entries {
		fmt.Println(e.Name, names[e.Type])
	}
	// Output:
	// a.txt file
	// link symlink
	// sub dir
}
