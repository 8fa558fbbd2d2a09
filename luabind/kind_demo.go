package luabind

import (
	"context"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// pmacs.workers.sleep, sum and emit_n: the demonstration kinds, a timer, a
// computation and a stream of integers.

func init() {
	registerKind("demo", kindBinding{
		kinds: map[runtime.Kind]kindLua{
			demojob.EmitN: {items: numbersToLua[demojob.Ints]},
			demojob.Sum: {value: func(_ *Binding, out runtime.Outcome, _ any) lua.LValue {
				if n, ok := demojob.SumOf(out); ok {
					return lua.LNumber(n)
				}
				return lua.LTrue
			}},
		},
		install: func(b *Binding, t *installTables) {
			t.set(t.workers, map[string]lua.LGFunction{"sleep": b.sleep, "sum": b.sum, "emit_n": b.emitN})
		},
	})
}

// sleep is w.sleep(ms[, opts]): a job that completes after ms. It is an
// external job settled by the binding's timer heap (timers.go): a
// sleeping job holds no worker and no goroutine.
func (b *Binding) sleep(L *lua.LState) int {
	const fname = "pmacs.workers.sleep"
	msv := checkNumber(L, fname, 1, "ms")
	o, _ := b.opts(L, fname, 2, false)
	tm := after(msv, timerJob)
	var ctx context.Context
	n := b.push(L, o, demojob.Sleep, false, func() runtime.JobID {
		id, c := b.rt.RegisterExternal(demojob.Sleep, o.Key)
		ctx = c
		return id
	})
	if ud, ok := L.Get(-1).(*lua.LUserData); ok {
		if j, ok := ud.Value.(*job); ok {
			tm.job = j.id
			j.timer = tm
			b.timers.add(tm)
			// A cancel that does not pass through the binding (a
			// supersede by the same key from Go) reaches the timer
			// through the next frame.
			tm.stop = context.AfterFunc(ctx, func() { b.sleepCancelled(j.id) })
		}
	}
	return n
}

func (b *Binding) sum(L *lua.LState) int {
	const fname = "pmacs.workers.sum"
	n := checkCount(L, fname, 1, "n")
	o, _ := b.opts(L, fname, 2, false)
	return b.push(L, o, demojob.Sum, false, func() runtime.JobID { return demojob.DispatchSum(b.rt, n, o) })
}

func (b *Binding) emitN(L *lua.LState) int {
	const fname = "pmacs.workers.emit_n"
	n := checkCount(L, fname, 1, "count")
	o, _ := b.opts(L, fname, 2, true)
	return b.push(L, o, demojob.EmitN, true, func() runtime.JobID { return demojob.DispatchEmitN(b.rt, n, o) })
}
