package luabind

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	lua "github.com/yuin/gopher-lua"
)

// require is the binding's: gopher-lua's loads a module with its own
// compiler, so a for-in loop in the module could not wait in its iterator
// (see the package doc). This one compiles every module through compile,
// like the script, and otherwise keeps Lua 5.1's rules: package.loaded
// caches a module's value, package.loaders is asked in order, and a module
// not found is an error listing every place searched.
//
// It departs from Lua 5.1 in two places. A module that raises is not
// cached, not even as the "loop or previous error" sentinel: the next
// require runs it again, so fixing the file and requiring it again works.
// And a module required again while it loads (a cycle) is an error naming
// the chain, not the sentinel's puzzle.
//
// The loaders, in order: package.preload, the host's embedded modules
// (Options.Modules), then files, in Options.ModuleDirs and then on
// package.path. Under --safe only the embedded modules load: files lie
// outside the script's roots, and package is not opened.
//
// A module's main chunk runs inside require, a Go call, so it cannot wait
// (a wait there raises, naming require); the functions it defines can, as
// they run in the task that calls them.

// maxRequireDepth bounds modules loading one another: each is a nested Go
// call. It is the same bound as nested resumes (maxNesting).
const maxRequireDepth = maxNesting

// modules is the state of require.
type modules struct {
	fsys fs.FS    // Options.Modules
	dirs []string // Options.ModuleDirs
	// loaded is package.loaded: the registry's _LOADED, which holds the
	// libraries opened (and pmacs) under --safe too, where package is not.
	loaded *lua.LTable
	// pkg is the package table (nil under --safe): package.loaders and
	// package.path are read from it at each require, as Lua does.
	pkg *lua.LTable
	// loading names the modules whose main chunk runs now, outermost
	// first. A module's chunk cannot wait, so loads nest strictly and one
	// list serves every task.
	loading []string
}

// installRequire replaces require, and under --safe module, and gives
// package.loaders the binding's loaders in place of gopher-lua's file
// loader.
func (b *Binding) installRequire(opts Options) {
	L := b.ls
	g := L.G.Global
	b.mods = modules{fsys: opts.Modules, dirs: slices.Clone(opts.ModuleDirs)}
	b.mods.loaded, _ = L.GetField(L.Get(lua.RegistryIndex), "_LOADED").(*lua.LTable)
	if pkg, ok := g.RawGetString("package").(*lua.LTable); ok && !b.safe {
		b.mods.pkg = pkg
		loaders := L.CreateTable(3, 0)
		if old, ok := pkg.RawGetString("loaders").(*lua.LTable); ok {
			if pre, ok := old.RawGetInt(1).(*lua.LFunction); ok {
				loaders.Append(pre) // package.preload
			}
		}
		loaders.Append(L.NewFunction(b.loadEmbedded))
		loaders.Append(L.NewFunction(b.loadFile))
		pkg.RawSetString("loaders", loaders)
		L.SetField(L.Get(lua.RegistryIndex), "_LOADERS", loaders)
	}
	if b.mods.loaded == nil {
		b.mods.loaded = L.NewTable()
		L.SetField(L.Get(lua.RegistryIndex), "_LOADED", b.mods.loaded)
	}
	g.RawSetString("require", L.NewFunction(b.luaRequire))
	if b.safe {
		g.RawSetString("module", L.NewFunction(b.refuseModules("module")))
	}
}

// luaRequire is require(name).
func (b *Binding) luaRequire(L *lua.LState) int {
	name := L.CheckString(1)
	m := &b.mods
	if v := m.loaded.RawGetString(name); lua.LVAsBool(v) {
		L.Push(v)
		return 1
	}
	if i := slices.Index(m.loading, name); i >= 0 {
		chain := append(slices.Clone(m.loading[i:]), name)
		raise(L, "require: module '%s' is required again while it loads (a cycle: %s)", name, strings.Join(chain, " -> "))
	}
	if len(m.loading) >= maxRequireDepth {
		raise(L, "require: modules nested too deeply (over %d requiring one another): %s", maxRequireDepth, name)
	}
	loader := b.findModule(L, name)
	m.loading = append(m.loading, name)
	defer func() { m.loading = m.loading[:len(m.loading)-1] }()
	L.Push(loader)
	L.Push(lua.LString(name))
	L.Call(1, 1)
	v := L.Get(-1)
	L.Pop(1)
	if v != lua.LNil {
		m.loaded.RawSetString(name, v)
	}
	if m.loaded.RawGetString(name) == lua.LNil {
		m.loaded.RawSetString(name, lua.LTrue)
	}
	L.Push(m.loaded.RawGetString(name))
	return 1
}

// findModule returns the function that loads module name: the first a
// loader gives. None is an error listing what each loader searched.
func (b *Binding) findModule(L *lua.LState, name string) *lua.LFunction {
	if b.safe {
		fn, _ := b.embedded(L, name)
		if fn == nil {
			b.unsafe(L, "require", fmt.Sprintf("module '%s' is not one of the host's embedded modules, and %s", name, safeNoModules))
		}
		return fn
	}
	loaders, ok := b.mods.pkg.RawGetString("loaders").(*lua.LTable)
	if !ok {
		raise(L, "require: package.loaders must be a table")
	}
	var searched []string
	for i := 1; ; i++ {
		loader := loaders.RawGetInt(i)
		if loader == lua.LNil {
			break
		}
		L.Push(loader)
		L.Push(lua.LString(name))
		L.Call(1, 1)
		ret := L.Get(-1)
		L.Pop(1)
		switch r := ret.(type) {
		case *lua.LFunction:
			return r
		case lua.LString:
			searched = append(searched, strings.TrimPrefix(string(r), "\n\t"))
		}
	}
	raise(L, "module '%s' not found:\n\t%s", name, strings.Join(searched, "\n\t"))
	return nil
}

// modulePaths are the file names module name may have beneath a directory
// of modules, as package.path's usual ?.lua and ?/init.lua.
func modulePaths(name string) []string {
	p := strings.ReplaceAll(name, ".", "/")
	return []string{p + ".lua", p + "/init.lua"}
}

// embedded compiles module name from the host's modules; with no such
// module it returns nil and what was searched.
func (b *Binding) embedded(L *lua.LState, name string) (*lua.LFunction, string) {
	var searched []string
	for _, p := range modulePaths(name) {
		searched = append(searched, "no embedded module file '"+p+"'")
		if b.mods.fsys == nil || !fs.ValidPath(p) {
			continue
		}
		src, err := fs.ReadFile(b.mods.fsys, p)
		if err != nil {
			continue
		}
		proto, err := compile(bytes.NewReader(src), "embedded:"+p)
		if err != nil {
			raise(L, "error loading module '%s' from embedded file '%s':\n\t%v", name, p, err)
		}
		return L.NewFunctionFromProto(proto), ""
	}
	return nil, strings.Join(searched, "\n\t")
}

// loadEmbedded is the loader of the host's embedded modules.
func (b *Binding) loadEmbedded(L *lua.LState) int {
	fn, msg := b.embedded(L, L.CheckString(1))
	if fn != nil {
		L.Push(fn)
	} else {
		L.Push(lua.LString(msg))
	}
	return 1
}

// loadFile is the loader of modules in files: in the module directories,
// then on package.path.
func (b *Binding) loadFile(L *lua.LState) int {
	name := L.CheckString(1)
	var candidates []string
	for _, dir := range b.mods.dirs {
		for _, p := range modulePaths(name) {
			candidates = append(candidates, filepath.Join(dir, filepath.FromSlash(p)))
		}
	}
	pp, ok := b.mods.pkg.RawGetString("path").(lua.LString)
	if !ok {
		raise(L, "require: package.path must be a string")
	}
	file := strings.ReplaceAll(name, ".", string(os.PathSeparator))
	for _, tmpl := range strings.Split(string(pp), ";") {
		if tmpl != "" {
			candidates = append(candidates, strings.ReplaceAll(tmpl, "?", file))
		}
	}
	var searched []string
	for _, p := range candidates {
		src, err := os.ReadFile(p)
		if err != nil {
			if notAFile(err) {
				searched = append(searched, "no file '"+p+"'")
			} else {
				searched = append(searched, fmt.Sprintf("cannot read '%s': %v", p, unwrapPathError(err)))
			}
			continue
		}
		proto, err := compile(bytes.NewReader(src), p)
		if err != nil {
			raise(L, "error loading module '%s' from file '%s':\n\t%v", name, p, err)
		}
		L.Push(L.NewFunctionFromProto(proto))
		return 1
	}
	L.Push(lua.LString(strings.Join(searched, "\n\t")))
	return 1
}

// notAFile reports a read error that means no module file is there, as a
// missing file does to Lua's own search.
func notAFile(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR)
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
