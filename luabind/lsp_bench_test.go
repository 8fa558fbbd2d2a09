//go:build linux

package luabind

import (
	"encoding/json"
	"fmt"
	"os"
	goruntime "runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/lsp"
)

// lspBenchHarness is a harness whose Lua state knows the fake server's
// command as FAKE.
func lspBenchHarness(b *testing.B) *harness {
	b.Helper()
	b.Setenv(fakeServerEnv, "1")
	h := newHarness(b, false)
	exe, err := os.Executable()
	require.NoError(b, err)
	h.b.L().SetGlobal("FAKE", lua.LString(exe))
	h.b.L().SetGlobal("DIR", lua.LString(b.TempDir()))
	return h
}

// frameWork is the main goroutine's work in each frame: thread CPU time,
// which is the goroutine's own work (a loaded machine does not inflate
// it), and wall time, which also counts the time the thread waited for a
// core.
type frameWork struct {
	cpu, wall []time.Duration
}

// editorFrames runs frames the way the editor loop does while the binding
// is busy: one each frame target (16 ms), on one locked OS thread, until
// the binding is idle; it records each frame's work.
func editorFrames(b *testing.B, h *harness, limit time.Duration) frameWork {
	b.Helper()
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	var w frameWork
	target := h.rt.FrameTarget()
	deadline := time.Now().Add(limit)
	last := time.Now()
	for h.b.Busy() {
		require.False(b, h.b.Stalled(), "tasks wait on each other")
		require.True(b, time.Now().Before(deadline), "still busy after %v\nstderr:\n%s", limit, h.stderr.String())
		if d := time.Until(last.Add(target)); d > 0 {
			time.Sleep(d)
		}
		last = time.Now()
		c0 := threadCPU()
		h.b.Frame()
		w.cpu = append(w.cpu, threadCPU()-c0)
		w.wall = append(w.wall, time.Since(last))
	}
	return w
}

func pct(ds []time.Duration, p int) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)*p/100, len(s)-1)]) / 1e6
}

func (w frameWork) report(b *testing.B) {
	b.ReportMetric(pct(w.cpu, 99), "p99-cpu-ms")
	b.ReportMetric(pct(w.cpu, 100), "max-cpu-ms")
	b.ReportMetric(pct(w.wall, 99), "p99-wall-ms")
	b.ReportMetric(pct(w.wall, 100), "max-wall-ms")
	b.ReportMetric(float64(len(w.cpu))/float64(b.N), "frames/op")
}

// refs2000Reply is the fake server's reply to a request for 2,000
// references, byte for byte as it sends it.
func refs2000Reply() []byte {
	locs := make([]any, 2000)
	for i := range locs {
		pos := map[string]any{"line": i, "character": 0}
		locs[i] = map[string]any{"uri": "file:///x.go", "range": map[string]any{"start": pos, "end": pos}}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "result": locs})
	return body
}

// BenchmarkLSPReferences2000IntoLua measures 2,000 references from the
// last byte of the reply read to the last row in Lua (goal: 50 ms), with
// frames run as the editor runs them (one per 16 ms frame target while
// busy), iterated with h:batches() and awaited whole. The baseline in the
// same run is the same reply decoded with encoding/json into typed
// structs on one goroutine, with no frames and no Lua.
func BenchmarkLSPReferences2000IntoLua(b *testing.B) {
	b.Run("baseline-encoding-json", func(b *testing.B) {
		body := refs2000Reply()
		type pos struct{ Line, Character int }
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var r struct {
				Result []struct {
					URI   string `json:"uri"`
					Range struct{ Start, End pos }
				}
			}
			if err := json.Unmarshal(body, &r); err != nil || len(r.Result) != 2000 {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "latency-ms")
	})
	for _, mode := range []string{"batches", "await"} {
		b.Run(mode, func(b *testing.B) {
			h := lspBenchHarness(b)
			L := h.b.L()
			var received, marks []time.Time
			h.b.lsp.settledHook = func(r lsp.Result) {
				if r.Method == "textDocument/references" {
					received = append(received, r.Received)
				}
			}
			L.SetGlobal("mark", L.NewFunction(func(*lua.LState) int {
				marks = append(marks, time.Now())
				return 0
			}))
			L.SetGlobal("MODE", lua.LString(mode))
			fn, err := h.b.LoadString(`
				local N = ...
				local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
				assert(c:request("test/echo", {}):await())
				for _ = 1, N do
					local h = c:request("textDocument/references", {
						textDocument = {uri = "file:///x.go"}, position = {line = 2000, character = 0}})
					local n = 0
					if MODE == "batches" then
						for batch in h:batches() do
							for _, loc in ipairs(batch) do n = n + (loc.range.start.line >= 0 and 1 or 0) end
						end
					else
						for _, loc in ipairs(assert(h:await())) do n = n + (loc.range.start.line >= 0 and 1 or 0) end
					end
					mark()
					assert(n == 2000, n)
				end
				c:stop()`, "refs.lua")
			require.NoError(b, err)
			task := h.b.Spawn(fn, lua.LNumber(b.N))
			w := editorFrames(b, h, time.Duration(b.N)*5*time.Second+20*time.Second)
			require.NoError(b, task.Err(), h.stderr.String())
			require.Len(b, marks, b.N)
			require.Len(b, received, b.N)
			lat := make([]time.Duration, b.N)
			for i := range lat {
				lat[i] = marks[i].Sub(received[i])
			}
			b.ReportMetric(pct(lat, 50), "latency-ms")
			b.ReportMetric(pct(lat, 100), "max-latency-ms")
			w.report(b)
		})
	}
}

// BenchmarkLSPCompletionKeystroke measures one keystroke of a completion
// replay on the main goroutine: a completion request from Lua under the
// key of the previous one (which it supersedes, and which sends
// $/cancelRequest), then the frame that follows, against the slow fake
// server. The baseline is the same frame with no request.
func BenchmarkLSPCompletionKeystroke(b *testing.B) {
	for _, mode := range []string{"frame-only-baseline", "request+frame"} {
		b.Run(mode, func(b *testing.B) {
			h := lspBenchHarness(b)
			L := h.b.L()
			init := h.run(b, `
				C = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
				assert(C:request("test/echo", {}):await())
				I = 0
				return "ok"`)
			require.NoError(b, init.Err(), h.stderr.String())
			key, err := h.b.LoadString(`
				I = I + 1
				C:request("textDocument/completion", {
					textDocument = {uri = "file:///x.go"}, position = {line = 20, character = I}, delayMs = 50,
				}, {key = "completion"})`, "key.lua")
			require.NoError(b, err)
			request := mode == "request+frame"
			goruntime.LockOSThread()
			defer goruntime.UnlockOSThread()
			var cpu time.Duration
			for b.Loop() {
				c0 := threadCPU()
				if request {
					L.Push(key)
					if err := L.PCall(0, 0, nil); err != nil {
						b.Fatal(err)
					}
				}
				h.b.Frame()
				cpu += threadCPU() - c0
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e3, "cpu-us/keystroke")
		})
	}
}

// lspBigLua requests one of the fake server's big replies N times and
// consumes it in Lua: iterated with h:batches(), awaited whole, or (for
// diagnostics, which arrive as a notification) read with
// client:diagnostics() once the publication is in.
const lspBigLua = `
local N, KIND, MODE = ...
local c = assert(pmacs.lsp.start{cmd = {FAKE}, root = DIR})
assert(c:request("test/echo", {}):await())
local uri = "file:///x.go"
local requests = {
	completion = {"textDocument/completion", {textDocument = {uri = uri}, position = {line = 6000, character = 0}}, 6000},
	references = {"textDocument/references", {textDocument = {uri = uri}, position = {line = 2000, character = 0}}, 2000},
	semantic = {"textDocument/semanticTokens/full", {textDocument = {uri = uri}}, 14000},
}
for i = 1, N do
	if KIND == "diagnostics" then
		local path = DIR .. "/d" .. i .. ".go"
		assert(c:request("test/bigDiagnostics", {uri = "file://" .. path, n = 4000}):await())
		local ds = c:diagnostics(path)
		local n = 0
		for _, d in ipairs(ds) do n = n + (d.line >= 0 and 1 or 0) end
		assert(n == 4000, n)
	else
		local r = requests[KIND]
		local h = c:request(r[1], r[2])
		local n = 0
		if MODE == "batches" then
			for batch in h:batches() do n = n + #batch end
		else
			local v = assert(h:await())
			n = #(v.items or v.tokens or v)
		end
		assert(n == r[3], KIND .. ": " .. n)
	end
end
c:stop()`

// BenchmarkLSPFrameWorkBigReplies measures the main goroutine's work per
// frame (goal: p99 at most 4 ms, max at most 8 ms) while each of the fake
// server's big replies arrives and is consumed in Lua: 6,000 completion
// items (about 3.6 MB), 2,000 references, 70,000 semantic-token integers
// (14,000 rows), each iterated with h:batches() and awaited whole, and
// 4,000 diagnostics in one publication read with client:diagnostics().
// Frames run as the editor runs them (16 ms target). The baseline in the
// same run is the same loop of frames with a task that only sleeps.
func BenchmarkLSPFrameWorkBigReplies(b *testing.B) {
	b.Run("idle-baseline", func(b *testing.B) {
		h := lspBenchHarness(b)
		fn, err := h.b.LoadString(`for _ = 1, (...) * 8 do pmacs.workers.sleep(1):await() end`, "idle.lua")
		require.NoError(b, err)
		task := h.b.Spawn(fn, lua.LNumber(b.N))
		w := editorFrames(b, h, time.Duration(b.N)*5*time.Second+20*time.Second)
		require.NoError(b, task.Err())
		w.report(b)
	})
	cases := [][2]string{
		{"completion", "batches"}, {"completion", "await"},
		{"references", "batches"}, {"references", "await"},
		{"semantic", "batches"}, {"semantic", "await"},
		{"diagnostics", "diagnostics"},
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("%s-%s", c[0], c[1]), func(b *testing.B) {
			h := lspBenchHarness(b)
			fn, err := h.b.LoadString(lspBigLua, "big.lua")
			require.NoError(b, err)
			task := h.b.Spawn(fn, lua.LNumber(b.N), lua.LString(c[0]), lua.LString(c[1]))
			w := editorFrames(b, h, time.Duration(b.N)*10*time.Second+20*time.Second)
			require.NoError(b, task.Err(), h.stderr.String())
			w.report(b)
		})
	}
}

// BenchmarkSemanticTokensIntoLua: what a whole file's semantic tokens
// (100,000) cost the main goroutine as they settle: a table per token (the
// default, built on the main goroutine when the result came by delta) or
// one compact userdata (client:semantic_tokens with compact = true).
func BenchmarkSemanticTokensIntoLua(b *testing.B) {
	st := &lsp.SemanticTokens{ResultID: "r", Tokens: make([]lsp.SemanticToken, 100000)}
	for i := range st.Tokens {
		st.Tokens[i] = lsp.SemanticToken{Line: uint32(i / 7), Col: uint32(i%7) * 6, Len: 4, Type: uint32(i % 9)}
	}
	L := lua.NewState()
	defer L.Close()
	b.Run("tables", func(b *testing.B) {
		for b.Loop() {
			_ = goToLua(L, st)
		}
	})
	b.Run("compact", func(b *testing.B) {
		for b.Loop() {
			_ = SemanticTokensValue(L, st)
		}
	})
}
