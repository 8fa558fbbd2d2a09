//go:build linux

package proc_test

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/pmacs-go/pmacs-go/proc"
)

// Run a program and take its output line by line; a non-zero exit is a
// value.
func ExampleRun() {
	ex, err := proc.Run(context.Background(), proc.Spec{
		Argv: []string{"sh", "-c", `printf 'one\r\ntwo\n'; echo oops >&2; printf tail; exit 2`},
		Lines: func(lines []proc.Line) error {
			for _, l := range lines {
				if l.Stream == proc.Stderr {
					continue // interleaving with stdout is up to the scheduler
				}
				fmt.Printf("%s %q partial=%v\n", l.Stream, l.Text, l.Partial)
			}
			return nil
		},
	})
	fmt.Println(ex.Code, err)
	// Output:
	// stdout "one" partial=false
	// stdout "two" partial=false
	// stdout "tail" partial=true
	// 2 <nil>
}

// Feed a program through a stdin pipe; closing it ends the input.
func ExampleStart_stdinPipe() {
	p, err := proc.Start(context.Background(), proc.Spec{
		Argv:      []string{"tr", "a-z", "A-Z"},
		StdinPipe: true,
		Lines: func(lines []proc.Line) error {
			for _, l := range lines {
				fmt.Println(string(l.Text))
			}
			return nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, _ = io.WriteString(p.Stdin(), "hello\nworld\n")
	_ = p.Stdin().Close()
	ex, err := p.Wait()
	fmt.Println(ex.Code, err)
	// Output:
	// HELLO
	// WORLD
	// 0 <nil>
}

// A start failure carries its errno name for scripts.
func ExampleCode() {
	_, err := proc.Run(context.Background(), proc.Spec{Argv: []string{"no-such-program-pmacs"}})
	fmt.Println(proc.Code(err) + ": " + err.Error())
	// Output:
	// ENOENT: spawn "no-such-program-pmacs": no such file or directory
}

// A timeout stops the whole group and is told apart from a cancellation.
func ExampleSpec_timeout() {
	ex, err := proc.Run(context.Background(), proc.Spec{
		Argv:    []string{"sleep", "10"},
		Timeout: 20 * time.Millisecond,
	})
	fmt.Println(proc.Code(err), ex.Signal)
	// Output:
	// ETIMEDOUT SIGTERM
}

// A program's main makes itself the reaper of its programs' orphans at
// start, and ends everything it started last, after closing what started
// it, so that nothing outlives it, running or as a zombie.
func ExampleEndAll() {
	_ = proc.BecomeSubreaper()
	// ... run the editor, close its runtime and clients ...
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := proc.EndAll(ctx); err != nil {
		fmt.Println(err)
	}
}
