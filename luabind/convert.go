package luabind

import (
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// toLua converts a completed job's value; taken is what the kind's take
// handed over before TakeResult.
func (b *Binding) toLua(kind runtime.Kind, out runtime.Outcome, taken any) lua.LValue {
	if k, ok := kindsLua[kind]; ok && k.value != nil {
		return k.value(b, out, taken)
	}
	return lua.LTrue
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

// batchToLua makes the list a batch is in Lua, sized up front so the array
// part is allocated once.
func batchToLua(L *lua.LState, sb *runtime.StreamBatch) *lua.LTable {
	if k := kindsLua[sb.Kind]; k.batch != nil {
		return k.batch(L, sb)
	}
	t := L.CreateTable(sb.Len(), 0)
	if sb.Items != nil {
		if k := kindsLua[sb.Kind]; k.items != nil {
			k.items(L, t, sb.Items)
		}
	}
	return t
}

func matchToLua(L *lua.LState, m *grep.Match) *lua.LTable {
	t := L.CreateTable(0, 6)
	t.RawSetString("file", lua.LString(m.File))
	t.RawSetString("line", lua.LNumber(m.Line))
	t.RawSetString("text", lua.LString(m.Text))
	t.RawSetString("match_start", lua.LNumber(m.MatchStart))
	t.RawSetString("match_end", lua.LNumber(m.MatchEnd))
	spans := L.CreateTable(len(m.Spans), 0)
	for _, s := range m.Spans {
		p := L.CreateTable(2, 0)
		p.Append(lua.LNumber(s[0]))
		p.Append(lua.LNumber(s[1]))
		spans.Append(p)
	}
	t.RawSetString("spans", spans)
	return t
}

func ms(d time.Duration) lua.LNumber { return lua.LNumber(float64(d) / float64(time.Millisecond)) }

func snapshotToLua(L *lua.LState, s runtime.WorkersSnapshot) *lua.LTable {
	active := L.NewTable()
	for _, a := range s.Active {
		t := L.NewTable()
		t.RawSetString("id", lua.LNumber(a.ID))
		t.RawSetString("kind", lua.LString(a.Kind.String()))
		t.RawSetString("age_ms", ms(a.Age))
		if a.Key != "" {
			t.RawSetString("key", lua.LString(a.Key))
		}
		t.RawSetString("cancel_requested", lua.LBool(a.CancelRequested))
		t.RawSetString("stream", lua.LBool(a.Stream))
		if a.Progress != "" {
			t.RawSetString("progress", lua.LString(a.Progress))
		}
		active.Append(t)
	}
	completed := L.NewTable()
	for _, c := range s.Completed {
		t := L.NewTable()
		t.RawSetString("id", lua.LNumber(c.ID))
		t.RawSetString("kind", lua.LString(c.Kind.String()))
		t.RawSetString("duration_ms", ms(c.Duration))
		t.RawSetString("settled_age_ms", ms(c.SettledAge))
		if c.Key != "" {
			t.RawSetString("key", lua.LString(c.Key))
		}
		t.RawSetString("outcome", lua.LString(c.State.String()))
		if c.Err != nil {
			t.RawSetString("error", lua.LString(c.Err.Error()))
		}
		if c.Result != "" {
			t.RawSetString("result", lua.LString(c.Result))
		}
		completed.Append(t)
	}
	fatal := L.NewTable()
	for _, f := range s.Fatal {
		t := L.NewTable()
		t.RawSetString("root", lua.LString(f.Root))
		t.RawSetString("reason", lua.LString(f.Reason))
		fatal.Append(t)
	}
	out := L.NewTable()
	out.RawSetString("active", active)
	out.RawSetString("completed", completed)
	out.RawSetString("fatal", fatal)
	return out
}
