package luabind

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/bus/wire"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// The probe kinds exist only in this package's tests. Their module below
// registers through registerKind like every kind_*.go, so what a script
// sees of them comes through the registry alone: the core has no other
// way to learn of a kind.
var (
	probeValue  = runtime.RegisterKind(runtime.KindSpec{Name: "probe"})
	probeStream = runtime.RegisterKind(runtime.KindSpec{Name: "probe_stream", Items: probeCodec{}})
)

// probeInts is a probe_stream batch.
type probeInts []uint64

func (s probeInts) Len() int                                { return len(s) }
func (s probeInts) Weight() int                             { return len(s) }
func (s probeInts) Append(more runtime.Items) runtime.Items { return append(s, more.(probeInts)...) }
func (s probeInts) Cut(n int) (head, rest runtime.Items)    { return s[:n:n], s[n:] }

type probeCodec struct{}

func (probeCodec) EncodeItems(e *msgpack.Encoder, items runtime.Items) error {
	return wire.EncodeUints(e, items.(probeInts))
}

func (probeCodec) DecodeItems(_ []byte, d *msgpack.Decoder) (runtime.Items, error) {
	v, err := wire.DecodeUints(d, 16)
	return probeInts(v), err
}

func init() {
	registerKind("zz_probe", kindBinding{
		kinds: map[runtime.Kind]kindLua{
			probeValue: {
				codeFirst: true,
				value: func(b *Binding, out runtime.Outcome, _ any) lua.LValue {
					v, _ := out.Value()
					t := b.ls.CreateTable(0, 1)
					t.RawSetString("probed", lua.LNumber(v.(uint64)))
					return t
				},
				// As an MCP call's: a table while it runs.
				progress: func(_ *Binding, L *lua.LState, j *job) int {
					t := L.CreateTable(0, 1)
					t.RawSetString("probe", lua.LNumber(j.id))
					L.Push(t)
					return 1
				},
				// As an LSP reply's: an iterator, here over one batch.
				batches: func(_ *Binding, L *lua.LState, _ *job) int {
					done := false
					L.Push(L.NewFunction(func(L *lua.LState) int {
						if done {
							L.Push(lua.LNil)
							return 1
						}
						done = true
						batch := L.CreateTable(1, 0)
						batch.Append(lua.LString("probe batch"))
						L.Push(batch)
						return 1
					}))
					return 1
				},
			},
			probeStream: {
				items: func(L *lua.LState, t *lua.LTable, it runtime.Items) {
					for _, n := range it.(probeInts) {
						t.Append(lua.LString("item " + strconv.FormatUint(n, 10)))
					}
				},
				closing: func(*Binding, *runtime.StreamBatch) lua.LValue { return lua.LString("probe closed") },
			},
		},
		install: func(b *Binding, t *installTables) {
			t.set(t.workers, map[string]lua.LGFunction{"probe": b.probe, "probe_stream": b.probeStream})
			t.set(t.sub(t.pmacs, "probe"), map[string]lua.LGFunction{"ping": func(L *lua.LState) int {
				L.Push(lua.LString("pong"))
				return 1
			}})
		},
	})
}

// probe is w.probe(n): a job that completes with n, or fails with code
// EPROBE for 0.
func (b *Binding) probe(L *lua.LState) int {
	n := checkCount(L, "pmacs.workers.probe", 1, "n")
	return b.push(L, runtime.DispatchOptions{}, probeValue, false, func() runtime.JobID {
		return b.rt.Start(runtime.Job{Kind: probeValue, Actor: runtime.BuiltinActor, Lane: workers.LaneRead,
			Run: func(context.Context, *runtime.Task) (any, error) {
				if n == 0 {
					return nil, &runtime.JobError{Message: "probe: zero", Code: "EPROBE"}
				}
				return uint64(n), nil
			}}, runtime.DispatchOptions{})
	})
}

// probeStream is w.probe_stream(n): a stream of 1..n in one batch.
func (b *Binding) probeStream(L *lua.LState) int {
	n := checkCount(L, "pmacs.workers.probe_stream", 1, "n")
	return b.push(L, runtime.DispatchOptions{}, probeStream, true, func() runtime.JobID {
		return b.rt.Start(runtime.Job{Kind: probeStream, Actor: runtime.BuiltinActor, Lane: workers.LaneStream, Stream: true,
			Run: func(ctx context.Context, w *runtime.Task) (any, error) {
				batch := make(probeInts, 0, n)
				for i := uint64(1); i <= uint64(n); i++ {
					batch = append(batch, i)
				}
				return nil, w.Send(ctx, batch)
			}}, runtime.DispatchOptions{})
	})
}

// A kind registered only through registerKind, in a test file the core
// knows nothing of, gets its functions installed (into pmacs.workers and a
// table of its own) and its jobs' values, batches, closing value, failure
// messages, h:progress() and h:batches() on a reply all go through its own
// hooks.
func TestKindRegisteredThroughTheRegistryIsInstalledAndConverts(t *testing.T) {
	h := newHarness(t, false)
	task := h.run(t, `
		local w = pmacs.workers
		assert(pmacs.probe.ping() == "pong", "own table")
		local h = w.probe(21)
		assert(h:progress().probe == h:id(), "progress hook")
		local got = {}
		for batch in h:batches() do got[#got + 1] = batch[1] end
		assert(#got == 1 and got[1] == "probe batch", "batches hook")
		local v, err = h:await()
		assert(err == nil and v.probed == 21, tostring(err))
		local _, msg, code = w.probe(0):await()
		assert(msg == "EPROBE: probe: zero" and code == "EPROBE", tostring(msg))
		local s = w.probe_stream(3)
		local items = {}
		for batch in s:batches() do
			for _, it in ipairs(batch) do items[#items + 1] = it end
		end
		assert(table.concat(items, ",") == "item 1,item 2,item 3", table.concat(items, ","))
		assert(s:await() == "probe closed", "closing hook")
		return "ok"
	`)
	require.Empty(t, h.stderr.String())
	require.True(t, task.Done())
	require.Equal(t, []lua.LValue{lua.LString("ok")}, task.Results())
}

// A module name, or a Lua function name, taken twice is a program's
// mistake and panics at init rather than leaving one of the two silently
// out.
func TestRegistryRefusesTakenNames(t *testing.T) {
	require.Panics(t, func() { registerKind("grep", kindBinding{}) })
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	it := &installTables{L: L, workers: L.NewTable()}
	it.set(it.workers, map[string]lua.LGFunction{"x": func(*lua.LState) int { return 0 }})
	require.Panics(t, func() {
		it.set(it.workers, map[string]lua.LGFunction{"x": func(*lua.LState) int { return 0 }})
	})
}
