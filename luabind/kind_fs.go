package luabind

import (
	"slices"
	"strconv"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/kinds/fsjob"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// pmacs.workers.fs: listings, stats and the mutations (refused under
// --safe), whose failures read like luv's ("ENOENT: ...").

func init() {
	codeFirst := kindLua{codeFirst: true}
	registerKind("fs", kindBinding{
		kinds: map[runtime.Kind]kindLua{
			fsjob.RenameKind: codeFirst, fsjob.ChmodKind: codeFirst,
			fsjob.RemoveKind: codeFirst, fsjob.MkdirKind: codeFirst,
			fsjob.ReadDirKind: {codeFirst: true, value: func(b *Binding, out runtime.Outcome, _ any) lua.LValue {
				if l, ok := fsjob.ListingOf(out); ok {
					return listingToLua(b.ls, l)
				}
				return lua.LTrue
			}},
			fsjob.StatKind: {codeFirst: true, value: func(b *Binding, out runtime.Outcome, _ any) lua.LValue {
				if e, ok := fsjob.EntryOf(out); ok {
					return entryToLua(b.ls, e)
				}
				return lua.LTrue
			}},
		},
		install: func(b *Binding, t *installTables) {
			t.set(t.sub(t.workers, "fs"), map[string]lua.LGFunction{
				"read_dir": b.fsReadDir, "stat": b.fsStat, "rename": b.fsRename,
				"chmod": b.fsChmod, "remove": b.fsRemove, "mkdir": b.fsMkdir,
			})
		},
	})
}

// fsOpts reads a filesystem function's opts table at n: the dispatch keys,
// roots (see fsRoots) and extra ones.
func (b *Binding) fsOpts(L *lua.LState, fname string, n int, extra ...string) (runtime.DispatchOptions, fsjob.Scope, fields) {
	o, f := b.opts(L, fname, n, false, append(slices.Clone(extra), "roots")...)
	return o, fsjob.Scope{Roots: b.fsRoots(L, fname, f)}, f
}

func (b *Binding) fsReadDir(L *lua.LState) int {
	const fname = "pmacs.workers.fs.read_dir"
	path := checkString(L, fname, 1, "path")
	b.safeRead(L, fname, path, true)
	o, sc, f := b.fsOpts(L, fname, 2, "per_entry")
	tol := fsops.Fatal
	if f.boolean("per_entry", false) {
		tol = fsops.PerEntry
	}
	return b.push(L, o, fsjob.ReadDirKind, false, func() runtime.JobID { return fsjob.ReadDir(b.rt, path, tol, sc, o) })
}

func (b *Binding) fsStat(L *lua.LState) int {
	const fname = "pmacs.workers.fs.stat"
	path := checkString(L, fname, 1, "path")
	b.safeRead(L, fname, path, false)
	o, sc, _ := b.fsOpts(L, fname, 2)
	return b.push(L, o, fsjob.StatKind, false, func() runtime.JobID { return fsjob.Stat(b.rt, path, sc, o) })
}

func (b *Binding) fsRename(L *lua.LState) int {
	const fname = "pmacs.workers.fs.rename"
	b.unsafe(L, fname, safeNoWrite)
	from := checkString(L, fname, 1, "from")
	to := checkString(L, fname, 2, "to")
	o, sc, f := b.fsOpts(L, fname, 3, "overwrite")
	overwrite := f.boolean("overwrite", false)
	return b.push(L, o, fsjob.RenameKind, false, func() runtime.JobID { return fsjob.Rename(b.rt, from, to, overwrite, sc, o) })
}

func (b *Binding) fsChmod(L *lua.LState) int {
	const fname = "pmacs.workers.fs.chmod"
	b.unsafe(L, fname, safeNoWrite)
	path := checkString(L, fname, 1, "path")
	mode := checkMode(L, fname, 2)
	o, sc, _ := b.fsOpts(L, fname, 3)
	return b.push(L, o, fsjob.ChmodKind, false, func() runtime.JobID { return fsjob.Chmod(b.rt, path, mode, sc, o) })
}

func (b *Binding) fsRemove(L *lua.LState) int {
	const fname = "pmacs.workers.fs.remove"
	b.unsafe(L, fname, safeNoWrite)
	path := checkString(L, fname, 1, "path")
	o, sc, _ := b.fsOpts(L, fname, 2)
	return b.push(L, o, fsjob.RemoveKind, false, func() runtime.JobID { return fsjob.Remove(b.rt, path, sc, o) })
}

func (b *Binding) fsMkdir(L *lua.LState) int {
	const fname = "pmacs.workers.fs.mkdir"
	b.unsafe(L, fname, safeNoWrite)
	path := checkString(L, fname, 1, "path")
	o, sc, _ := b.fsOpts(L, fname, 2)
	return b.push(L, o, fsjob.MkdirKind, false, func() runtime.JobID { return fsjob.Mkdir(b.rt, path, sc, o) })
}

// checkMode takes a mode as an integer (0 to 0o7777; Lua has no octal
// literals, so 420 is 0644) or as an octal string ("644", "0755").
func checkMode(L *lua.LState, fname string, n int) uint32 {
	const bad = "%s: argument #%d (mode) expected an integer from 0 to 4095 or an octal string like \"644\", got %s"
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		if v < 0 || v > 0o7777 || float64(v) != float64(int64(v)) {
			raise(L, bad, fname, n, v.String())
		}
		return uint32(v)
	case lua.LString:
		m, err := strconv.ParseUint(string(v), 8, 32)
		if err != nil || len(v) == 0 || len(v) > 5 || m > 0o7777 {
			raise(L, bad, fname, n, strconv.Quote(string(v)))
		}
		return uint32(m)
	default:
		raise(L, bad, fname, n, typeName(v))
	}
	return 0
}

func entryToLua(L *lua.LState, e fsops.Entry) *lua.LTable {
	t := L.CreateTable(0, 6)
	t.RawSetString("name", lua.LString(e.Name))
	t.RawSetString("kind", lua.LString(e.Kind.String()))
	t.RawSetString("size", lua.LNumber(e.Size))
	t.RawSetString("mode", lua.LNumber(e.Mode))
	t.RawSetString("mtime", lua.LNumber(float64(e.MTime)/float64(time.Second)))
	if e.Target != "" {
		t.RawSetString("target", lua.LString(e.Target))
	}
	return t
}

func listingToLua(L *lua.LState, l fsops.Listing) *lua.LTable {
	entries := L.CreateTable(len(l.Entries), 0)
	for _, e := range l.Entries {
		entries.Append(entryToLua(L, e))
	}
	errs := L.CreateTable(len(l.Errors), 0)
	for _, ee := range l.Errors {
		t := L.CreateTable(0, 3)
		t.RawSetString("name", lua.LString(ee.Name))
		t.RawSetString("message", lua.LString(ee.Err.Error()))
		if code := fsops.Errno(ee.Err); code != "" {
			t.RawSetString("code", lua.LString(code))
		}
		errs.Append(t)
	}
	out := L.CreateTable(0, 2)
	out.RawSetString("entries", entries)
	out.RawSetString("errors", errs)
	return out
}
