// Command demo-editor is the pmacs-go demo editor.
//
//	demo-editor [--init FILE.lua] [--clean] [PATH]
//	demo-editor [--safe] [--root DIR]... --script FILE.lua [args...]
//
// Without --script it opens PATH (a file or a directory; default ".") in the
// terminal editor, whose features are built in Lua by an embedded init.lua
// that --init replaces. With --script it runs a Lua script headless: the
// script is the first task, frames are driven until no task and no job
// remains, and the exit status says whether it succeeded. --root names the
// script's roots (default: the working directory); --safe lets the script
// start no program, write nothing and read only beneath its roots
// (docs/security.md).
//
// Either way nothing it started outlives it: on exit, after a Lua error
// and on SIGTERM, SIGHUP or SIGINT (exit status 128 plus the signal's
// number), it closes its language servers, MCP connections and programs,
// which ends their whole process trees, and then ends and reaps whatever is
// left (proc.EndAll): no child is left running or as a zombie.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pmacs-go/pmacs-go/cmd/demo-editor/internal/editor"
	"github.com/pmacs-go/pmacs-go/proc"
)

func main() {
	cfg, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "demo-editor: %v\n", err)
		usage()
		os.Exit(2)
	}
	// Every program the editor runs starts through proc, so the editor can
	// be the reaper of their orphans: under an init that never reaps, the
	// grandchildren a cancelled compile leaves would otherwise stay zombies.
	// A kernel without the prctl only loses that clean-up. As a subreaper
	// it must reap what it is given: orphans that exit on their own while
	// the editor runs (gopls's detached telemetry helper) are reaped as
	// they exit, not left as zombies until the exit's sweep.
	if proc.BecomeSubreaper() == nil {
		proc.ReapOrphans(context.Background())
	}
	code := exitOK
	switch {
	case cfg.help:
		usage()
	case cfg.script != "":
		code = RunScript(cfg.script, cfg.args, cfg.safe, cfg.roots, os.Stdout, os.Stderr)
	default:
		code = runEditor(cfg)
	}
	endAll(os.Stderr)
	os.Exit(code)
}

// endAllTimeout bounds the exit's last sweep. What the run closed is gone
// by then; the sweep is for what escaped every program's tree.
const endAllTimeout = time.Second

// endAll ends and reaps whatever the run left (proc.EndAll): a process that
// escaped its program's tree and was reparented here, a child nobody
// reaped. It runs after the binding and the runtime are closed, with the
// stop signals ignored, so that a second SIGTERM cannot cut it short and
// leave orphans.
func endAll(stderr io.Writer) {
	signal.Ignore(stopSignals...)
	ctx, cancel := context.WithTimeout(context.Background(), endAllTimeout)
	defer cancel()
	if err := proc.EndAll(ctx); err != nil {
		fmt.Fprintf(stderr, "demo-editor: %v\n", err)
	}
}

// runEditor runs the interactive editor until the user quits or a signal
// ends it (SIGTERM, SIGHUP when the terminal goes away, SIGINT): then the
// editor closes as it does on quit, and the status is 128 plus the
// signal's number. An --init file that cannot be read is a usage error
// (status 2); one that fails to compile or run is written whole on
// stderr, and the editor starts without it.
func runEditor(cfg config) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var caught atomic.Value
	go func() {
		select {
		case sig := <-sigs:
			caught.Store(sig)
			cancel()
		case <-ctx.Done():
		}
	}()
	err := editor.Run(ctx, editor.Options{Path: cfg.path, InitFile: cfg.init, Clean: cfg.clean, Stderr: os.Stderr})
	if sig, ok := caught.Load().(syscall.Signal); ok {
		return exitSignal + int(sig)
	}
	switch {
	case errors.Is(err, editor.ErrInitFile):
		fmt.Fprintf(os.Stderr, "demo-editor: %v\n", err)
		return 2
	case err != nil && !errors.Is(err, context.Canceled):
		fmt.Fprintf(os.Stderr, "demo-editor: %v\n", err)
		return 1
	}
	return 0
}

func usage() {
	fmt.Fprint(os.Stderr, `usage: demo-editor [--init FILE.lua] [--clean] [PATH]
       demo-editor [--safe] [--root DIR]... --script FILE.lua [args...]

  PATH               the file or directory to open (default: .)
  --init FILE.lua    build the editor's features from FILE.lua instead of the
                     embedded init.lua (a missing FILE exits with status 2;
                     its errors are printed whole on stderr)
  --clean            start without your own init file,
                     $XDG_CONFIG_HOME/pmacs/init.lua (~/.config/pmacs/init.lua)
  --script FILE.lua  run FILE.lua headless with args in the global 'arg'
  --root DIR         with --script: a root of the script, a directory its
                     reads may reach under --safe and the roots an MCP server
                     is told; repeatable (default: the current directory)
  --safe             with --script: start no program (spawn, system, language
                     or MCP servers), write nothing, read files only beneath
                     the roots; only the base, table, string, math and
                     coroutine libraries (no io, os, package or debug)
`)
}
