package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/journal"
)

// installJournalAPI adds the crash-recovery primitives (journal.go).
func (e *session) installJournalAPI(api *lua.LTable) {
	e.L.SetFuncs(api, map[string]lua.LGFunction{
		"journal": e.luaJournal, "recover": e.luaRecover, "discard_journal": e.luaDiscardJournal,
		"journals": e.luaJournals, "remove_journal": e.luaRemoveJournal, "set_journaling": e.luaSetJournaling,
	})
}

// luaJournal is ed.journal(buf): the journal found when buf's file was
// opened, waiting for recover or discard_journal, as a table; nil for
// none.
func (e *session) luaJournal(L *lua.LState) int {
	b := e.bufArg(L, "journal", 1)
	if b.jn == nil || b.jn.offer == nil {
		return push(L, lua.LNil)
	}
	o := b.jn.offer
	t := L.CreateTable(0, 10)
	t.RawSetString("file", lua.LString(o.file))
	t.RawSetString("path", lua.LString(b.path))
	if o.err != nil {
		t.RawSetString("error", lua.LString(o.err.Error()))
		return push(L, t)
	}
	t.RawSetString("matches", lua.LBool(o.matches))
	t.RawSetString("snapshot", lua.LBool(o.snapshot))
	t.RawSetString("edits", lua.LNumber(o.edits))
	t.RawSetString("describe", lua.LString(o.describe()))
	if !o.header.Created.IsZero() {
		t.RawSetString("created", lua.LNumber(o.header.Created.Unix()))
	}
	if o.dropped > 0 {
		t.RawSetString("dropped", lua.LNumber(o.dropped))
		t.RawSetString("reason", lua.LString(o.reason))
	}
	if o.altPath != "" {
		t.RawSetString("recover_to", lua.LString(o.altPath))
	}
	return push(L, t)
}

// luaRecover is ed.recover(buf): buf takes the text its journal holds, or,
// when the file changed since, a new buffer visiting the journal's
// recover_to path does; it returns that buffer, or nil and why.
func (e *session) luaRecover(L *lua.LState) int {
	nb, err := e.recover(e.bufArg(L, "recover", 1))
	if err != nil {
		return pushErr(L, err)
	}
	return push(L, lua.LNumber(nb.id))
}

// luaDiscardJournal is ed.discard_journal(buf): the waiting journal is
// removed (on a helper goroutine) and journalling goes on as usual.
func (e *session) luaDiscardJournal(L *lua.LState) int {
	if err := e.discardJournal(e.bufArg(L, "discard_journal", 1)); err != nil {
		return pushErr(L, err)
	}
	return push(L, lua.LTrue)
}

// luaJournals is ed.journals(on_done): lists the journal directory on a
// helper goroutine and calls on_done(list) on the main one, or on_done(nil,
// message).
func (e *session) luaJournals(L *lua.LState) int {
	fn := fnArg(L, "journals", 1, "on_done")
	dir := e.jdir
	if dir == "" {
		e.callLua(fn, "journals on_done", lua.LNil, lua.LString(fmt.Sprintf("journals: no state directory: %v", e.jdirErr)))
		return 0
	}
	type row struct {
		entry journal.Entry
		state string
	}
	e.goIO(func() func() {
		entries, err := journal.List(dir)
		rows := make([]row, len(entries))
		for i, en := range entries {
			rows[i].entry = en
			switch st, serr := os.Stat(en.Header.Path); {
			case en.Err != nil:
				rows[i].state = "unreadable"
			case serr != nil:
				rows[i].state = "missing"
			case st.Size() == en.Header.Base.Size && st.ModTime().Equal(en.Header.Base.ModTime):
				rows[i].state = "unchanged"
			default:
				rows[i].state = "changed"
			}
		}
		return func() {
			if err != nil {
				e.callLua(fn, "journals on_done", lua.LNil, lua.LString(err.Error()))
				return
			}
			list := e.L.CreateTable(len(rows), 0)
			for _, r := range rows {
				t := e.L.CreateTable(0, 8)
				t.RawSetString("file", lua.LString(r.entry.File))
				t.RawSetString("size", lua.LNumber(r.entry.Size))
				t.RawSetString("time", lua.LNumber(r.entry.ModTime.Unix()))
				t.RawSetString("state", lua.LString(r.state))
				if r.entry.Err != nil {
					t.RawSetString("error", lua.LString(r.entry.Err.Error()))
				} else {
					t.RawSetString("path", lua.LString(r.entry.Header.Path))
					if b := e.findBuffer(r.entry.Header.Path); b != nil && b.path == r.entry.Header.Path {
						t.RawSetString("buf", lua.LNumber(b.id))
					}
				}
				list.Append(t)
			}
			e.callLua(fn, "journals on_done", list)
		}
	})
	return 0
}

// luaRemoveJournal is ed.remove_journal(file, on_done): removes a journal
// file ed.journals listed (on a helper goroutine); on_done (optional) gets
// true, or nil and why. Only a journal file in the journal directory may
// be named.
func (e *session) luaRemoveJournal(L *lua.LState) int {
	file := strArg(L, "remove_journal", 1, "file")
	var fn *lua.LFunction
	if L.Get(2) != lua.LNil {
		fn = fnArg(L, "remove_journal", 2, "on_done")
	}
	if e.jdir == "" || filepath.Dir(file) != e.jdir || !strings.HasSuffix(file, journal.Ext) || strings.HasPrefix(filepath.Base(file), ".") {
		L.RaiseError("pmacs.editor.remove_journal: %q is not a journal in %s", file, e.jdir)
	}
	for _, b := range e.bufs {
		jn := b.jn
		if jn == nil {
			continue
		}
		if (jn.onDisk || jn.busy) && journalFile(e.jdir, jn.path) == file {
			return pushErr(L, fmt.Errorf("remove_journal: %s is the journal of the open buffer %s", file, b.name))
		}
		if jn.offer != nil && jn.offer.file == file {
			jn.offer = nil // it no longer waits for a decision
		}
	}
	e.goIO(func() func() {
		err := journal.RemoveFile(file)
		return func() {
			if fn == nil {
				if err != nil {
					e.reportError(err.Error(), "")
				}
				return
			}
			if err != nil {
				e.callLua(fn, "remove_journal on_done", lua.LNil, lua.LString(err.Error()))
				return
			}
			e.callLua(fn, "remove_journal on_done", lua.LTrue)
		}
	})
	return push(L, lua.LTrue)
}

// luaSetJournaling is ed.set_journaling(on): whether the buffers opened
// from now on keep a journal; it returns the previous setting.
func (e *session) luaSetJournaling(L *lua.LState) int {
	prev := !e.journalOff
	e.journalOff = !lua.LVAsBool(L.Get(1))
	return push(L, lua.LBool(prev))
}
