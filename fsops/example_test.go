//go:build unix

package fsops_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pmacs-go/pmacs-go/fsops"
)

// exampleDir makes a small directory for the examples and returns it with
// a function that removes it.
func exampleDir() (string, func()) {
	dir, err := os.MkdirTemp("", "fsops-example")
	if err != nil {
		panic(err)
	}
	for name, body := range map[string]string{"notes.txt": "hello", "todo.txt": "- list"} {
		_ = os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	// Set the modes after creating, whatever the umask.
	_ = os.Chmod(filepath.Join(dir, "notes.txt"), 0o644)
	_ = os.Chmod(filepath.Join(dir, "todo.txt"), 0o600)
	_ = os.Mkdir(filepath.Join(dir, "src"), 0o755)
	_ = os.Symlink("notes.txt", filepath.Join(dir, "readme"))
	return dir, func() { _ = os.RemoveAll(dir) }
}

// ReadDir lists a directory sorted by name, describing each entry without
// following symlinks.
func ExampleReadDir() {
	dir, cleanup := exampleDir()
	defer cleanup()

	l, err := fsops.ReadDir(context.Background(), dir, fsops.PerEntry)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, e := range l.Entries {
		switch e.Kind {
		case fsops.KindSymlink:
			fmt.Printf("%-9s %-7s -> %s\n", e.Name, e.Kind, e.Target)
		case fsops.KindFile:
			fmt.Printf("%-9s %-7s %d bytes, mode %o\n", e.Name, e.Kind, e.Size, e.Mode)
		default:
			fmt.Printf("%-9s %s\n", e.Name, e.Kind)
		}
	}
	fmt.Println("entries that could not be described:", len(l.Errors))
	// Output:
	// notes.txt file    5 bytes, mode 644
	// readme    symlink -> notes.txt
	// src       dir
	// todo.txt  file    6 bytes, mode 600
	// entries that could not be described: 0
}

// Rename without overwrite refuses an existing destination; the error
// matches the standard library's sentinels and types, and Errno names it
// the way a Lua script sees it.
func ExampleRename() {
	dir, cleanup := exampleDir()
	defer cleanup()
	ctx := context.Background()
	notes, todo := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "todo.txt")

	err := fsops.Rename(ctx, notes, todo, false)
	var le *os.LinkError
	switch {
	case errors.Is(err, fs.ErrExist) && errors.As(err, &le):
		fmt.Printf("%s: %s already exists (%s)\n", le.Op, filepath.Base(le.New), fsops.Errno(err))
	case err != nil:
		fmt.Println("error:", err)
	}

	err = fsops.Rename(ctx, filepath.Join(dir, "missing"), todo, false)
	fmt.Println(fsops.Errno(err), errors.Is(err, fs.ErrNotExist))

	if err := fsops.Rename(ctx, notes, todo, true); err == nil {
		b, _ := os.ReadFile(todo)
		fmt.Printf("overwritten: todo.txt now holds %q\n", b)
	}
	// Output:
	// rename: todo.txt already exists (EEXIST)
	// ENOENT true
	// overwritten: todo.txt now holds "hello"
}

// Roots confines the operations to a set of directories: a path that
// leads outside is refused before anything is touched, including through
// a symlink, and the operation acts beneath the root.
func ExampleRoots() {
	dir, cleanup := exampleDir()
	defer cleanup()
	ctx := context.Background()
	_ = os.Symlink("..", filepath.Join(dir, "src", "up"))
	roots := fsops.Roots{filepath.Join(dir, "src")}

	_, err := roots.Stat(ctx, filepath.Join(dir, "src", "up", "notes.txt"))
	fmt.Println(errors.Is(err, fsops.ErrEscapesRoot), fsops.Errno(err))

	e, err := roots.Stat(ctx, filepath.Join(dir, "src", "up"))
	fmt.Println(e.Name, e.Kind, e.Target, err)
	// Output:
	// true EACCES
	// up symlink .. <nil>
}
