package editor

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/journal"
)

// ---- buffers ----

func (e *session) luaOpen(L *lua.LState) int {
	path := strArg(L, "open", 1, "path")
	b, err := e.openFile(path)
	if err != nil {
		return pushErr(L, err)
	}
	return push(L, lua.LNumber(b.id))
}

func (e *session) luaCreate(L *lua.LState) int {
	name := strArg(L, "create", 1, "name")
	opts := optTable(L, "create", 2, "opts", "readonly", "list")
	if b := e.findBuffer(name); b != nil && b.path == "" {
		return push(L, lua.LNumber(b.id))
	}
	b := e.newScratch(e.uniqueName(name))
	b.readOnly = optBool(opts, "readonly", true)
	b.cursorLine = optBool(opts, "list", true)
	return push(L, lua.LNumber(b.id))
}

func (e *session) luaFind(L *lua.LState) int {
	if b := e.findBuffer(strArg(L, "find", 1, "name")); b != nil {
		return push(L, lua.LNumber(b.id))
	}
	return push(L, lua.LNil)
}

func (e *session) luaBuffers(L *lua.LState) int {
	out := L.CreateTable(len(e.order), 0)
	for _, id := range e.order {
		b := e.bufs[id]
		t := L.CreateTable(0, 5)
		t.RawSetString("id", lua.LNumber(b.id))
		t.RawSetString("name", lua.LString(b.name))
		if b.path != "" {
			t.RawSetString("path", lua.LString(b.path))
		}
		if b.lang != "" {
			t.RawSetString("language", lua.LString(b.lang))
		}
		t.RawSetString("modified", lua.LBool(b.Modified()))
		out.Append(t)
	}
	return push(L, out)
}

// luaClose is ed.close(buf, {keep_journal = bool}): the buffer's journal
// is removed unless keep_journal.
func (e *session) luaClose(L *lua.LState) int {
	b := e.bufArg(L, "close", 1)
	opts := optTable(L, "close", 2, "opts", "keep_journal")
	if err := e.closeBufferKeep(b, optBool(opts, "keep_journal", false)); err != nil {
		return pushErr(L, err)
	}
	return push(L, lua.LTrue)
}

func (e *session) luaName(L *lua.LState) int {
	return push(L, lua.LString(e.bufArg(L, "name", 1).name))
}

func (e *session) luaPath(L *lua.LState) int {
	if p := e.bufArg(L, "path", 1).path; p != "" {
		return push(L, lua.LString(p))
	}
	return push(L, lua.LNil)
}

func (e *session) luaLanguage(L *lua.LState) int {
	if l := e.bufArg(L, "language", 1).lang; l != "" {
		return push(L, lua.LString(l))
	}
	return push(L, lua.LNil)
}

func (e *session) luaModified(L *lua.LState) int {
	return push(L, lua.LBool(e.bufArg(L, "modified", 1).Modified()))
}

// luaValid is ed.valid(buf): whether buf is open. Every other primitive
// raises on a closed buffer, and a task that waited may hold the id of one
// closed meanwhile, before its "close" hook has run.
func (e *session) luaValid(L *lua.LState) int {
	return push(L, lua.LBool(e.bufs[intArg(L, "valid", 1, "buf")] != nil))
}

func (e *session) luaLoading(L *lua.LState) int {
	return push(L, lua.LBool(e.bufArg(L, "loading", 1).loading))
}

// luaSave saves buf; its second argument is on_done or a table
// {on_done = fn, make_dirs = bool}.
func (e *session) luaSave(L *lua.LState) int {
	b := e.bufArg(L, "save", 1)
	var onDone *lua.LFunction
	makeDirs, force := false, false
	switch v := L.Get(2).(type) {
	case *lua.LNilType:
	case *lua.LFunction:
		onDone = v
	case *lua.LTable:
		t := optTable(L, "save", 2, "opts", "on_done", "make_dirs", "force")
		onDone = optFn(L, "save", t, "on_done")
		makeDirs = optBool(t, "make_dirs", false)
		force = optBool(t, "force", false)
	default:
		argErr(L, "save", 2, "on_done", "a function or a table {on_done, make_dirs, force}")
	}
	e.save(b, onDone, makeDirs, force)
	return 0
}

func (e *session) luaReadonly(L *lua.LState) int {
	return push(L, lua.LBool(e.bufArg(L, "readonly", 1).readOnly))
}

// luaSetPath makes a file buffer visit another path (save as): the text
// stays, it counts as modified until saved, and its name and language
// follow the path. It returns nil and a message when another buffer visits
// that path; a scratch buffer raises.
func (e *session) luaSetPath(L *lua.LState) int {
	b := e.bufArg(L, "set_path", 1)
	path := strArg(L, "set_path", 2, "path")
	if b.path == "" {
		L.RaiseError("pmacs.editor.set_path: buffer %d (%s) is a view, not a file", b.id, b.name)
	}
	if strings.HasSuffix(path, "/") {
		return pushErr(L, fmt.Errorf("set_path %s: a path ending in / names a directory, not a file", path))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return pushErr(L, fmt.Errorf("set_path %s: %w", path, err))
	}
	if abs == b.path {
		return push(L, lua.LTrue)
	}
	for _, o := range e.bufs {
		if o != b && o.path == abs {
			return pushErr(L, fmt.Errorf("set_path %s: buffer %s already visits it", abs, o.name))
		}
	}
	b.name = "" // so that uniqueName does not see the old name as taken
	b.path, b.name, b.lang = abs, e.uniqueName(filepath.Base(abs)), languageFor(abs)
	// Nothing on disk at the new path matches the text yet, and the user
	// chose to write there (save as asks before it overwrites).
	b.savedStep = math.MaxUint64
	b.disk = diskStamp{}
	return push(L, lua.LTrue)
}

// luaReload is ed.reload(buf, on_done): reads buf's file again, replacing
// the text (and forgetting its undo history: the text is the file's now).
// The buffer is marked loading while the read runs, so no key edits a text
// about to be replaced; a read that fails leaves the text as it was.
func (e *session) luaReload(L *lua.LState) int {
	b := e.bufArg(L, "reload", 1)
	var onDone *lua.LFunction
	if L.Get(2) != lua.LNil {
		onDone = fnArg(L, "reload", 2, "on_done")
	}
	e.reload(b, onDone)
	return 0
}

// reload re-reads b's file on a helper goroutine; onDone (may be nil) is
// called with (true) or (false, message).
func (e *session) reload(b *buffer, onDone *lua.LFunction) {
	fail := func(msg string) {
		e.reportError(msg, "")
		if onDone != nil {
			e.callLua(onDone, "reload on_done", lua.LFalse, lua.LString(msg))
		}
	}
	switch {
	case b.path == "":
		fail(fmt.Sprintf("reload: %s has no file", b.name))
		return
	case b.loading:
		fail(fmt.Sprintf("reload: %s is still loading", b.name))
		return
	case b.saving:
		fail(fmt.Sprintf("reload: %s is being saved", b.name))
		return
	}
	b.loading = true
	path := b.path
	journalled := b.jn != nil
	e.goIO(func() func() {
		ft, exists, err := readFileText(path, nil)
		if err == nil && !exists {
			err = fmt.Errorf("reload %s: the file no longer exists", path)
		}
		var base journal.Base
		if err == nil && journalled {
			base = baseOf(ft)
		}
		return func() {
			if e.bufs[b.id] != b {
				return // closed while it was read
			}
			b.loading = false
			if err != nil {
				fail(err.Error())
				return
			}
			b.load(ft)
			e.journalLoaded(b, base)
			b.disk = ft.stamp
			b.readOnly = ft.binary || ft.readOnly
			// The text changed under the scripts' feet: "change" tells them
			// (take_edits says "resync"), so a language server gets the
			// whole text and the syntax tree is parsed again.
			e.message(fmt.Sprintf("reloaded %s", path))
			if onDone != nil {
				e.callLua(onDone, "reload on_done", lua.LTrue)
			}
		}
	})
}

// luaFileLines is ed.file_lines(path, rows, on_done): reads rows (0-based)
// of a file on a helper goroutine, for a list that quotes lines of files
// no buffer holds (references); on_done(lines) gets a table from row to
// text (rows past the end are left out), or on_done(nil, message).
func (e *session) luaFileLines(L *lua.LState) int {
	path := strArg(L, "file_lines", 1, "path")
	t, ok := L.Get(2).(*lua.LTable)
	if !ok {
		argErr(L, "file_lines", 2, "rows", "a list of row numbers")
	}
	var rows []int
	for i := 1; i <= t.Len(); i++ {
		n, ok := t.RawGetInt(i).(lua.LNumber)
		if !ok || n < 0 || float64(n) != float64(int(n)) {
			L.RaiseError("pmacs.editor.file_lines: argument #2 (rows) item %d expected a row number (an integer from 0), got %s", i, t.RawGetInt(i).String())
		}
		rows = append(rows, int(n))
	}
	onDone := fnArg(L, "file_lines", 3, "on_done")
	e.goIO(func() func() {
		// Only a regular file: opening a FIFO would wait for a writer that
		// may never come, and a device has no lines.
		var ft fileText
		exists := true
		st, err := os.Stat(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			exists, err = false, nil
		case err == nil && !st.Mode().IsRegular():
			err = fmt.Errorf("file_lines %s: not a regular file", path)
		case err == nil:
			ft, exists, err = readFileText(path, nil)
		}
		if err == nil && !exists {
			err = fmt.Errorf("file_lines %s: no such file", path)
		}
		return func() {
			if err != nil {
				e.callLua(onDone, "file_lines on_done", lua.LNil, lua.LString(err.Error()))
				return
			}
			out := e.L.CreateTable(0, len(rows))
			for _, r := range rows {
				if r < ft.lines.len() {
					out.RawSetInt(r, lua.LString(ft.lines.row(r)))
				}
			}
			e.callLua(onDone, "file_lines on_done", out)
		}
	})
	return 0
}
