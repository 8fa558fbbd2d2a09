package luabind

import (
	"time"

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

func (b *Binding) sleep(L *lua.LState) int {
	const fname = "pmacs.workers.sleep"
	msv := checkNumber(L, fname, 1, "ms")
	o, _ := b.opts(L, fname, 2, false)
	d := time.Duration(min(max(msv, 0), float64(1<<62/time.Millisecond)) * float64(time.Millisecond))
	return b.push(L, o, demojob.Sleep, false, func() runtime.JobID { return demojob.DispatchSleep(b.rt, d, o) })
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
