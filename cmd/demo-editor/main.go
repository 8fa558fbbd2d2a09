// Command demo-editor is the pmacs-go demo editor.
//
//	demo-editor [--init FILE.lua] [PATH]
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
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

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
	// A kernel without the prctl only loses that clean-up.
	_ = proc.BecomeSubreaper()
	switch {
	case cfg.help:
		usage()
	case cfg.script != "":
		os.Exit(RunScript(cfg.script, cfg.args, cfg.safe, cfg.roots, os.Stdout, os.Stderr))
	default:
		os.Exit(runEditor(cfg))
	}
}

// runEditor runs the interactive editor until the user quits or the
// terminal goes away (SIGTERM, SIGHUP). An --init file that cannot be read
// is a usage error (status 2); one that fails to compile or run is written
// whole on stderr, and the editor starts without it.
func runEditor(cfg config) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	err := editor.Run(ctx, editor.Options{Path: cfg.path, InitFile: cfg.init, Stderr: os.Stderr})
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
	fmt.Fprint(os.Stderr, `usage: demo-editor [--init FILE.lua] [PATH]
       demo-editor [--safe] [--root DIR]... --script FILE.lua [args...]

  PATH               the file or directory to open (default: .)
  --init FILE.lua    build the editor's features from FILE.lua instead of the
                     embedded init.lua (a missing FILE exits with status 2;
                     its errors are printed whole on stderr)
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
