// Command demo-editor is the pmacs-go demo editor. With --script it runs a
// Lua script headless: the script is the first task, frames are driven until
// no task and no job remains, and the exit status says whether it succeeded.
//
//	demo-editor [--safe] --script FILE.lua [args...]
package main

import (
	"fmt"
	"os"
)

func main() {
	cfg, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "demo-editor: %v\n", err)
		usage()
		os.Exit(2)
	}
	if cfg.script == "" {
		usage()
		os.Exit(2)
	}
	os.Exit(RunScript(cfg.script, cfg.args, cfg.safe, os.Stdout, os.Stderr))
}

func usage() {
	fmt.Fprint(os.Stderr, `usage: demo-editor [--safe] --script FILE.lua [args...]

  --script FILE.lua  run FILE.lua headless with args in the global 'arg'
  --safe             open only the base, table, string, math and coroutine
                     libraries (no io, os, package or debug)
`)
}
