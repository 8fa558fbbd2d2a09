package watch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pmacs-go/pmacs-go/watch"
)

// Watch a tree, make a directory in it, and print the change: the watch
// reports it once its first scan is over (Ready).
func ExampleWatch() {
	root, err := os.MkdirTemp("", "watch-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	opts := watch.Options{Ready: func(watch.Stats) { close(ready) }}
	made := make(chan error, 1)
	go func() {
		<-ready
		made <- os.Mkdir(filepath.Join(root, "made"), 0o755)
	}()
	err = watch.Watch(ctx, root, opts, func(batch []watch.Event) error {
		for _, e := range batch {
			rel, _ := filepath.Rel(root, e.Path)
			fmt.Println(e.Op, rel, e.Dir)
		}
		cancel()
		return nil
	})
	fmt.Println(errors.Is(err, context.Canceled), <-made)
	// Output:
	// create made true
	// true <nil>
}
