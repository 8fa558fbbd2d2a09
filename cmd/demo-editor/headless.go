package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pmacs-go/pmacs-go/luabind"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// config is the parsed command line.
type config struct {
	script string
	args   []string
	safe   bool
	roots  []string // --root: the script's roots
	init   string   // interactive: the init file replacing the embedded one
	path   string   // interactive: what to open
	help   bool
}

// parseArgs reads the flags up to the script path; everything after the
// path belongs to the script, even words that look like flags. Without a
// script, one positional argument names the path to open.
func parseArgs(argv []string) (config, error) {
	c := config{path: "."}
	positional := 0
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--safe" || a == "-safe":
			c.safe = true
		case a == "--root" || a == "-root":
			if i+1 >= len(argv) {
				return c, errors.New("--root needs a directory")
			}
			i++
			c.roots = append(c.roots, argv[i])
		case strings.HasPrefix(a, "--root=") || strings.HasPrefix(a, "-root="):
			c.roots = append(c.roots, a[strings.IndexByte(a, '=')+1:])
		case a == "--script" || a == "-script":
			if i+1 >= len(argv) {
				return c, errors.New("--script needs a file")
			}
			c.script, c.args = argv[i+1], argv[i+2:]
			return c, c.checkInteractive(positional)
		case strings.HasPrefix(a, "--script=") || strings.HasPrefix(a, "-script="):
			c.script, c.args = a[strings.IndexByte(a, '=')+1:], argv[i+1:]
			return c, c.checkInteractive(positional)
		case a == "--init" || a == "-init":
			if i+1 >= len(argv) {
				return c, errors.New("--init needs a file")
			}
			i++
			c.init = argv[i]
		case strings.HasPrefix(a, "--init=") || strings.HasPrefix(a, "-init="):
			c.init = a[strings.IndexByte(a, '=')+1:]
		case a == "-h" || a == "--help" || a == "-help":
			c.help = true
		case strings.HasPrefix(a, "-") && a != "-":
			return c, fmt.Errorf("unknown argument %q", a)
		default:
			positional++
			if positional > 1 {
				return c, fmt.Errorf("one path to open, got %q as well", a)
			}
			c.path = a
		}
	}
	if c.safe || c.roots != nil {
		return c, errors.New("--safe and --root apply to --script only")
	}
	return c, nil
}

// checkInteractive refuses interactive-only arguments given with --script.
func (c config) checkInteractive(positional int) error {
	if c.init != "" || positional > 0 {
		return errors.New("--init and PATH are for the interactive editor, not --script")
	}
	return nil
}

// Exit statuses of the headless runner.
const (
	exitOK     = 0
	exitFailed = 1
)

// RunScript runs script headless as the first task with args in the global
// arg, printing what the script prints to stdout. Frames are driven at the
// runtime's frame target (or as soon as worker replies are ready) until no
// task and no job remains. It returns 0 on success, or 1 after writing the
// error, with its traceback, to stderr: when the script fails to load or
// raises, when another task's error was never collected by task:await(), or
// when the remaining tasks wait on each other and can never wake.
//
// roots are the script's roots (the working directory when there are
// none): each must be a directory, and each is registered with the
// runtime. With safe (--safe) the script starts no program, writes
// nothing, and reads files only beneath its roots (luabind's Options.Safe;
// the runtime confines its filesystem jobs to them too).
func RunScript(script string, args []string, safe bool, roots []string, stdout, stderr io.Writer) int {
	rt, err := runtime.New(runtime.Options{ConfineFS: safe})
	if err != nil {
		fmt.Fprintf(stderr, "demo-editor: %v\n", err)
		return exitFailed
	}
	defer rt.Close()
	if err := registerRoots(rt, roots); err != nil {
		fmt.Fprintf(stderr, "demo-editor: %v\n", err)
		return exitFailed
	}
	b, err := luabind.New(rt, luabind.Options{Safe: safe, Stdout: stdout, Stderr: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "demo-editor: %v\n", err)
		return exitFailed
	}
	defer b.Close()

	first, err := b.RunFile(script, args)
	if err != nil {
		fmt.Fprintf(stderr, "demo-editor: %v\n", err)
		return exitFailed
	}
	if err := drive(b, rt); err != nil {
		fmt.Fprintf(stderr, "demo-editor: %v\n", err)
		return exitFailed
	}
	// Failures were reported with their tracebacks as they happened.
	if first.Err() != nil || len(b.TakeFailed()) > 0 {
		return exitFailed
	}
	return exitOK
}

// registerRoots registers the script's roots, "." when there are none.
func registerRoots(rt *runtime.Runtime, roots []string) error {
	if len(roots) == 0 {
		roots = []string{"."}
	}
	for _, r := range roots {
		st, err := os.Stat(r)
		if err != nil {
			return fmt.Errorf("--root: %w", err)
		}
		if !st.IsDir() {
			return fmt.Errorf("--root %s: not a directory", r)
		}
		if _, err := rt.RegisterRoot(r); err != nil {
			return fmt.Errorf("--root: %w", err)
		}
	}
	return nil
}

// drive runs frames until the binding is idle. It sleeps between frames on
// "worker replies ready OR frame deadline", never spinning, and not at all
// while work is left over: a budgeted frame leaves the replies and the
// resumptions it had no time for, and they must not wait for the frame
// deadline.
func drive(b *luabind.Binding, rt *runtime.Runtime) error {
	timer := time.NewTimer(rt.FrameTarget())
	defer timer.Stop()
	deferred := false
	for b.Busy() {
		if b.Stalled() {
			return fmt.Errorf("%d task(s) wait on each other and can never wake", b.Stats().Tasks)
		}
		if !rt.Pending() && !deferred {
			select {
			case <-rt.Ready():
			case <-b.MCPReady():
			case <-b.LSPReady():
			case <-timer.C:
			}
		}
		deferred = b.Frame().Deferred > 0
		timer.Reset(rt.FrameTarget())
	}
	return nil
}
