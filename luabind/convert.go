package luabind

import (
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// toLua converts a completed job's value; taken is what the kind's take
// handed over before TakeResult.
func (b *Binding) toLua(kind runtime.Kind, out runtime.Outcome, taken any) lua.LValue {
	if k := luaOf(kind); k.value != nil {
		return k.value(b, out, taken)
	}
	return lua.LTrue
}

// batchToLua makes the list a batch is in Lua, sized up front so the array
// part is allocated once.
func batchToLua(L *lua.LState, sb *runtime.StreamBatch) *lua.LTable {
	k := luaOf(sb.Kind)
	if k.batch != nil {
		return k.batch(L, sb)
	}
	t := L.CreateTable(sb.Len(), 0)
	if sb.Items != nil {
		if k.items != nil {
			k.items(L, t, sb.Items)
		}
	}
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
