package luabind

import (
	"fmt"
	"os"
	"path/filepath"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/lsp"
)

// lspStart is pmacs.lsp.start{cmd =, root =, filetypes =, settings =,
// language_id =, init_options =, resource_operations =, watch_files =}: the client at
// once, or nil and a message when the program cannot start (or an option
// is wrong).
func (b *Binding) lspStart(L *lua.LState) int {
	const fname = "pmacs.lsp.start"
	b.unsafe(L, fname, safeNoProgram)
	f := checkTable(L, fname, 1, "opts", "option", false, "cmd", "root", "filetypes", "settings", "language_id", "init_options", "resource_operations", "watch_files")
	argv := f.strings("cmd")
	if len(argv) == 0 {
		raise(L, "%s: cmd must be a non-empty list of strings (the server program and its arguments)", fname)
	}
	root := f.str("root", false, "")
	if root == "" {
		root, _ = os.Getwd()
	}
	if n := b.programOrFail(L, fname, &argv, root); n > 0 {
		return n
	}
	cfg := lsp.Config{Argv: argv, Dir: root, Root: root, Shape: shapeLSPResult, ShapeDiagnostics: shapeDiagnostics}
	if s, ok := f.get("settings").(*lua.LTable); ok {
		m, ok := jsonArg(L, fname, "settings", s).(map[string]any)
		if !ok {
			f.fail("settings", "a table of named sections", s)
		}
		cfg.Settings = m
	} else if v := f.get("settings"); v != lua.LNil {
		f.fail("settings", "a table", v)
	}
	if v := f.get("init_options"); v != lua.LNil {
		cfg.InitializationOptions = jsonArg(L, fname, "init_options", v)
	}
	cfg.ResourceOperations = f.strings("resource_operations")
	cfg.WatchFiles = f.boolean("watch_files", false)
	langID := f.str("language_id", false, "")
	if fts := f.strings("filetypes"); langID == "" && len(fts) > 0 {
		langID = fts[0]
	}
	lc := &lspClient{name: filepath.Base(argv[0]), langID: langID, root: absPath(root)}
	cfg.ApplyEdit = b.applyEditHook(lc)
	cfg.BeforeLaunch = b.relaunchPolicy(fname, root)
	c, err := lsp.Start(b.rt, cfg)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	lc.c = c
	// Every Tick polls the client; its messages wake the runtime's Ready.
	lc.detach = b.rt.AddPoller(c)
	b.lsp.clients = append(b.lsp.clients, lc)
	lc.ud = &lua.LUserData{Value: lc, Metatable: b.lsp.mt}
	L.Push(lc.ud)
	return 1
}

// relaunchPolicy is lsp.Config.BeforeLaunch for a client lspStart makes:
// the policy is asked again before every restart, so a server whose
// workspace was untrusted since it started, or whose file the policy
// would now refuse, is not started again. The first launch runs what
// the policy has just chosen, so it is not asked twice. A restart runs
// the program chosen at the start; a policy that would now choose
// another file refuses the restart too, since the script never asked
// for that one.
func (b *Binding) relaunchPolicy(api, dir string) func(argv []string) error {
	if b.policy == nil {
		return nil
	}
	first := true
	return func(argv []string) error {
		if first {
			first = false
			return nil
		}
		out, err := b.checkProgram(api, argv, dir)
		if err != nil {
			return err
		}
		if out[0] != argv[0] {
			return fmt.Errorf("%s: the program policy now chooses %s, not %s", api, out[0], argv[0])
		}
		return nil
	}
}
