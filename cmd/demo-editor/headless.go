package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/cmd/demo-editor/internal/editor"
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
	clean  bool     // interactive: without the user's own init file
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
		case a == "--clean" || a == "-clean":
			c.clean = true
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
	if c.init != "" || c.clean || positional > 0 {
		return errors.New("--init, --clean and PATH are for the interactive editor, not --script")
	}
	return nil
}

// Exit statuses of the headless runner. A run ended by SIGTERM, SIGHUP or
// SIGINT exits 128 plus the signal's number, as a shell reports it (143,
// 129, 130), once everything it started has ended.
const (
	exitOK     = 0
	exitFailed = 1
	exitSignal = 128
)

// stopSignals end a headless run (or the editor) cleanly: every program it
// started is ended and reaped before it exits.
var stopSignals = []os.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT}

// RunScript runs script headless as the first task with args in the global
// arg, printing what the script prints to stdout. Frames are driven at the
// runtime's frame target (or as soon as worker replies are ready) until no
// task and no job remains. It returns 0 on success, or 1 after writing the
// error, with its traceback, to stderr: when the script fails to load or
// raises (the run then ends at once, stopping what the script started),
// when another task's error was never collected by task:await(), or when
// the remaining tasks wait on each other and can never wake. SIGTERM,
// SIGHUP or SIGINT interrupts the Lua code running, ends the run and
// returns 128 plus the signal's number.
//
// roots are the script's roots (the working directory when there are
// none): each must be a directory, and each is registered with the
// runtime. With safe (--safe) the script starts no program, writes
// nothing, and reads files only beneath its roots (luabind's Options.Safe;
// the runtime confines its filesystem jobs to them too).
//
// Before it returns, whatever the outcome, it closes the binding (the
// language servers and MCP connections: each within 3 s, side by side)
// and the runtime (every program's whole tree is killed and reaped); the
// command then calls proc.EndAll for anything left.
func RunScript(script string, args []string, safe bool, roots []string, stdout, stderr io.Writer) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)

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
	b, err := luabind.New(rt, luabind.Options{Safe: safe, Stdout: stdout, Stderr: stderr,
		Modules: editor.Modules(), ModuleDirs: editor.ModuleDirs()})
	if err != nil {
		fmt.Fprintf(stderr, "demo-editor: %v\n", err)
		return exitFailed
	}
	defer b.Close()

	// A signal interrupts the Lua code running (a script stuck in a loop
	// included) until the run ends, and ends the drive at its next turn:
	// interrupted once, the next task the frame resumes would spin on.
	var caught atomic.Value
	stopped := make(chan struct{})
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		select {
		case sig := <-sigs:
			caught.Store(sig)
			close(stopped)
			editor.StopLua(b.Interrupt, quit)
		case <-quit:
		}
	}()
	signalled := func() int {
		sig, _ := caught.Load().(syscall.Signal)
		fmt.Fprintf(stderr, "demo-editor: stopped by %v\n", unix.SignalName(sig))
		return exitSignal + int(sig)
	}

	first, err := b.RunFile(script, args)
	if caught.Load() != nil {
		return signalled()
	}
	if err != nil {
		fmt.Fprintf(stderr, "demo-editor: %v\n", err)
		return exitFailed
	}
	// A script whose main chunk raised is over: what it started (tasks,
	// jobs, programs) is stopped as the runner closes, not waited for.
	over := func() bool { return first.Done() && first.Err() != nil }
	err = drive(b, rt, stopped, over)
	// A signal wins over whatever it interrupted (the task it made fail
	// ends the drive as a failure of its own would).
	if caught.Load() != nil {
		return signalled()
	}
	if err != nil {
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

// errStopped is drive's error when the run was stopped by a signal.
var errStopped = errors.New("stopped")

// drive runs frames until the binding is idle, until stopped is closed or
// until over (when not nil) reports the run over. It sleeps between frames
// on "worker replies ready OR frame deadline", never spinning, and not at
// all while work is left over: a budgeted frame leaves the replies and the
// resumptions it had no time for, and they must not wait for the frame
// deadline.
func drive(b *luabind.Binding, rt *runtime.Runtime, stopped <-chan struct{}, over func() bool) error {
	timer := time.NewTimer(rt.FrameTarget())
	defer timer.Stop()
	deferred := false
	for b.Busy() && (over == nil || !over()) {
		select {
		case <-stopped:
			return errStopped
		default:
		}
		if b.Stalled() {
			return fmt.Errorf("%d task(s) wait on each other and can never wake:\n%s", b.Stats().Tasks, strings.TrimRight(b.StallReport(), "\n"))
		}
		if !rt.Pending() && !deferred {
			select {
			case <-rt.Ready():
			case <-timer.C:
			case <-stopped:
				return errStopped
			}
		}
		deferred = b.Frame().Deferred > 0
		timer.Reset(rt.FrameTarget())
	}
	return nil
}
