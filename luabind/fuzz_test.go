package luabind

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/runtime"
)

// The functions a fuzzed statement may call. H, T and TREE are a handle, a
// task and a tree made by the prelude, so methods are called through their
// own tables with whatever self the statement passes.
var fuzzFuncs = []string{
	"w.sleep", "w.sum", "w.emit_n", "w.grep", "w.parse",
	"w.fs.read_dir", "w.fs.stat", "w.fs.rename", "w.fs.chmod", "w.fs.remove",
	"w.fs.mkdir",
	"w.cancel", "w.snapshot", "w.frame_target_ms", "w.set_frame_target_ms",
	"w.default_max_batch", "w.set_default_max_batch", "pmacs.async.run",
	"H.await", "H.batches", "H.cancel", "H.id", "H.done", "T.await", "T.done",
	"TREE.language", "TREE.root_type", "TREE.sexpr", "TREE.has_error",
	"TREE.duration_ms", "TREE.highlights", "TREE.close", "ITER", "H.progress",
	"pcall", "coroutine.resume", "coroutine.running", "coroutine.wrap",
}

// The argument pool: every Lua type, edge numbers, huge and negative values,
// good and bad option tables, and the handles, tasks and trees earlier
// statements produced (R[1..4], possibly nil).
var fuzzArgs = []string{
	"nil", "true", "false", "0", "-1", "1", "2.5", "3", "64", "420", "4095", "4096",
	"2^31", "2^53", "2^53 + 2", "2^63", "2^64", "1e308", "-1e308", "(0/0)", "(1/0)", "(-1/0)", "-0.0",
	"'x'", "''", "'644'", "'0755'", "'17777'", "'9z'", "'lua'", "'klingon'", "string.rep('z', 5000)",
	"'a\\0b'", "'\\255'",
	"{}", "{1, 2, 3}", "{key = 'k'}", "{key = 5}", "{max_batch = 0}", "{max_batch = -1}",
	"{max_batch = 2^53}", "{overwrite = true}", "{per_entry = true}", "{per_entry = 1}", "{bogus = 1}",
	"{root = dir, pattern = 'needle'}", "{root = dir, pattern = '(', regex = true}",
	"{root = dir, pattern = 'n', case_sensitive = false, max_results = 1, key = 'g'}",
	"{root = dir, pattern = 'e', skip_dirs = {1}}", "{root = 5, pattern = 'x'}",
	"{root = dir, pattern = 'e', max_file_bytes = -5, max_match_text = 2^60}",
	"{source = 'x = 1', language = 'lua'}", "{source = 'fn main() {}', language = 'rust', key = 'p'}",
	"{source = 'x', language = 'lua', prior = R[1]}", "{source = 'x', language = 'go', prior = TREE}",
	"{source = 1, language = 'lua'}",
	"function() end", "function() error('USERERR') end", "function() return w.sleep(1):await() end",
	"function() coroutine.yield() end", "function(...) return ... end",
	"setmetatable({}, {__index = function() error('USERERR meta') end})",
	"coroutine.create(function() end)",
	"dir", "dir .. '/f'", "dir .. '/sub'", "dir .. '/nope'", "dir .. '/sub/g'", "dir .. '/link'",
	"H", "T", "TREE", "R[1]", "R[2]", "R[3]", "R[4]", "R[1]", "R[2]",
	"coroutine.yield", "function() pcall(coroutine.yield); coroutine.yield() end",
	"coroutine.wrap(function() pcall(coroutine.yield); coroutine.yield() end)",
	"function() return coroutine.resume(R[1]) end", "coroutine.running()",
	"function() local function f() coroutine.wrap(f)() end f() end",
	"function() local function f() pmacs.async.run(f) end f() end",
}

// fuzzLuaProgram is one decoded input: statements, each a function of one
// call, run inside a task or outside any task.
type fuzzLuaProgram struct {
	src        string
	inTask     []bool
	frameAfter []bool
}

func decodeLuaProgram(data []byte) fuzzLuaProgram {
	var p fuzzLuaProgram
	var sb strings.Builder
	sb.WriteString("local w, R, H, T, TREE, dir = pmacs.workers, R, H, T, TREE, dir\nreturn {\n")
	for n := 0; n < 16 && len(data) >= 2; n++ {
		head, fn := data[0], data[1]
		data = data[2:]
		nargs := int(head>>2) % 4
		var args []string
		for range nargs {
			if len(data) == 0 {
				break
			}
			args = append(args, fuzzArgs[int(data[0])%len(fuzzArgs)])
			data = data[1:]
		}
		call := fuzzFuncs[int(fn)%len(fuzzFuncs)]
		if call == "ITER" {
			call = "(function(h, ...) local it = H.batches(h, ...) while it() do end end)"
		}
		// Four results at a fixed-count call site: a value the call did not
		// return must be Lua's nil there, which the comparisons and CHECK
		// prove.
		fmt.Fprintf(&sb, "function() local r, r2, r3, r4 = %s(%s); CHECK(r, r2, r3, r4); "+
			"local _ = r2 == nil; _ = r3 == nil; _ = r4 == nil; if r ~= nil then R[%d] = r end end,\n",
			call, strings.Join(args, ", "), n%4+1)
		p.inTask = append(p.inTask, head&1 != 0)
		p.frameAfter = append(p.frameAfter, head&2 != 0)
	}
	sb.WriteString("}\n")
	p.src = sb.String()
	return p
}

// luaFuzzSeed encodes statements given as (inTask, frameAfter, function
// index, argument indices).
func luaFuzzSeed(stmts ...[]int) []byte {
	var out []byte
	for _, s := range stmts {
		head := byte(len(s)-3) << 2
		if s[0] != 0 {
			head |= 1
		}
		if s[1] != 0 {
			head |= 2
		}
		out = append(out, head, byte(s[2]))
		for _, a := range s[3:] {
			out = append(out, byte(a))
		}
	}
	return out
}

// A well-formed misuse error names the function that refused the call (or
// is the fuzz program's own error); a Go panic converted by gopher-lua
// ("runtime error: index out of range", "interface conversion", ...) is not.
var (
	luaErrorPosition = regexp.MustCompile(`^([^\s:]+:\d+: )+`)
	luaArgError      = regexp.MustCompile(`^bad argument #\d+ to \w+ \(`)
)

func requireWellFormedLuaError(t *testing.T, msg, src string) {
	t.Helper()
	bare := luaErrorPosition.ReplaceAllString(msg, "")
	for _, prefix := range []string{"pmacs.workers.", "pmacs.async.", "h:", "task:", "tree:", "coroutine.yield ",
		"cannot resume", "can not resume ", "USERERR"} {
		if strings.HasPrefix(bare, prefix) {
			return
		}
	}
	// The standard library's own argument errors (pcall, coroutine.*).
	if luaArgError.MatchString(bare) {
		return
	}
	t.Fatalf("not a misuse error naming its function (a Go panic?): %q\nprogram:\n%s", msg, src)
}

// FuzzWorkersMisuseIsALuaError runs random programs that call every
// pmacs.workers, pmacs.async, handle, task and tree function with random
// arguments (numbers, huge and negative values, NaN, strings, tables, nil,
// booleans, functions, handles, tasks, trees), inside tasks and outside any
// task, with frames driven in between under a deadline. Every value a call
// returns must be a proper Lua value, a missing one Lua's nil (issue 11).
// Every misuse must be a Lua error naming the function: never a Go panic (gopher-lua would turn
// one into an error with Go's message, which the check refuses), never a
// frame that hangs, and closing the binding and the runtime leaves nothing
// running (issue 8: random Lua programs calling pmacs.workers.*).
func FuzzWorkersMisuseIsALuaError(f *testing.F) {
	// Function indices: 0 sleep, 1 sum, 2 emit_n, 3 grep, 4 parse, 5 read_dir,
	// 6 stat, 7 rename, 8 chmod, 9 remove, 10 cancel, 16 async.run, 17 H.await,
	// 18 H.batches, 22 T.await, 29 TREE.highlights, 30 TREE.close, 31 ITER,
	// 32 H.progress, 33 pcall, 34 coroutine.resume, 35 coroutine.running,
	// 36 coroutine.wrap.
	// Argument indices: see fuzzArgs (0 nil, 13 2^53, 19 NaN, 23 'x', 45 grep
	// spec, 51 parse spec, 57 error fn, 63 dir, 66 dir/nope, 69 H, 70 T,
	// 71 TREE, 72 R[1], 78 coroutine.yield, 79 a task function yielding under
	// pcall, 80 a wrapped coroutine doing the same, 81 a function resuming
	// R[1], 83 and 84 endless chains of wraps and of tasks).
	f.Add(luaFuzzSeed([]int{1, 1, 0, 23}, []int{0, 0, 1, 4}, []int{1, 0, 1, 19}, []int{1, 1, 2, 13}))
	f.Add(luaFuzzSeed([]int{1, 1, 3, 45}, []int{1, 1, 31, 72}, []int{1, 1, 17, 72}))
	f.Add(luaFuzzSeed([]int{0, 0, 17, 69}, []int{0, 0, 18, 70}, []int{0, 0, 22, 71}))
	f.Add(luaFuzzSeed([]int{1, 1, 16, 57}, []int{1, 1, 16, 59}, []int{1, 0, 22, 72}))
	f.Add(luaFuzzSeed([]int{1, 1, 4, 51}, []int{1, 1, 17, 72}, []int{1, 1, 29, 73, 4, 3}, []int{1, 1, 30, 71}, []int{1, 1, 4, 54}))
	f.Add(luaFuzzSeed([]int{1, 1, 7, 64, 67, 41}, []int{1, 1, 8, 65, 9}, []int{1, 1, 8, 63, 28}, []int{1, 1, 9, 68}, []int{1, 1, 5, 63, 42}))
	f.Add(luaFuzzSeed([]int{1, 0, 0, 17}, []int{1, 0, 10, 72}, []int{1, 0, 13, 0}, []int{1, 1, 15, 20}))
	f.Add(luaFuzzSeed([]int{1, 1, 2, 13, 39}, []int{1, 1, 31, 72}, []int{0, 1, 2, 8, 60}))
	f.Add(luaFuzzSeed([]int{1, 1, 3, 48}, []int{1, 1, 3, 46}, []int{1, 1, 17, 73}, []int{1, 1, 18, 72}))
	// A failed stat awaited, its progress, and a task awaited: each call
	// site takes four results and gets fewer.
	f.Add(luaFuzzSeed([]int{1, 1, 6, 66}, []int{1, 0, 17, 72}, []int{1, 1, 32, 72}, []int{1, 1, 22, 70}))
	// Yields nested in pcall, in a task and in a coroutine of its own.
	f.Add(luaFuzzSeed([]int{1, 1, 16, 79}, []int{1, 1, 33, 78}, []int{1, 1, 22, 72}, []int{1, 1, 33, 80}))
	// Resumes of task threads: a finished task's, a parked one's, and the
	// one that started the resuming task.
	f.Add(luaFuzzSeed([]int{1, 0, 35}, []int{1, 0, 34, 72}, []int{1, 0, 16, 81}, []int{1, 1, 34, 72}))
	f.Add(luaFuzzSeed([]int{1, 0, 35}, []int{0, 0, 16, 81}, []int{1, 1, 36, 81}))
	// Endless chains of resumes inside resumes.
	f.Add(luaFuzzSeed([]int{1, 1, 16, 83}, []int{1, 1, 33, 84}, []int{0, 1, 16, 84}))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("needle\nnothing\n"), 0o644))
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "g"), []byte("e e e\n"), 0o644))
		require.NoError(t, os.Symlink("f", filepath.Join(dir, "link")))
		t.Cleanup(func() { restoreModes(dir) }) // a fuzzed chmod must not block the cleanup
		t.Chdir(dir)                            // relative paths land in the sandbox

		prog := decodeLuaProgram(data)
		rt, err := runtime.New(runtime.Options{})
		require.NoError(t, err)
		defer rt.Close()
		var stderr bytes.Buffer
		b, err := New(rt, Options{Safe: true, Stdout: &bytes.Buffer{}, Stderr: &stderr})
		require.NoError(t, err)
		defer b.Close()
		L := b.L()
		L.SetGlobal("dir", lua.LString(dir))
		L.SetGlobal("R", L.NewTable())
		var bad []string
		L.SetGlobal("CHECK", L.NewFunction(func(L *lua.LState) int {
			for i := 1; i <= L.GetTop(); i++ {
				bad = append(bad, badLuaValues(L.Get(i), fmt.Sprintf("result %d", i), map[*lua.LTable]bool{})...)
			}
			return 0
		}))

		// The prelude makes a handle, a task and a tree to call methods on.
		prelude, err := b.LoadString(`H = pmacs.workers.sleep(0)
T = pmacs.async.run(function() return 1 end)
TREE = pmacs.workers.parse{source = "x = 1", language = "lua"}:await()`, "prelude.lua")
		require.NoError(t, err)
		setup := b.Spawn(prelude)
		driveFuzzFrames(t, b, rt, func() bool { return setup.Done() }, 5*time.Second)
		require.NoError(t, setup.Err())

		chunk, err := b.LoadString(prog.src, "fuzz.lua")
		require.NoError(t, err, prog.src)
		L.Push(chunk)
		require.NoError(t, L.PCall(0, 1, nil))
		stmts := L.Get(-1).(*lua.LTable)
		L.Pop(1)
		var tasks []*Task
		for i := 1; i <= stmts.Len(); i++ {
			fn := stmts.RawGetInt(i).(*lua.LFunction)
			start := time.Now()
			if prog.inTask[i-1] {
				tasks = append(tasks, b.Spawn(fn))
			} else {
				L.Push(fn)
				if err := L.PCall(0, 0, nil); err != nil {
					var ae *lua.ApiError
					require.ErrorAs(t, err, &ae)
					require.NotEqual(t, lua.ApiErrorPanic, ae.Type, "a Go panic: %v\n%s", err, prog.src)
					requireWellFormedLuaError(t, ae.Object.String(), prog.src)
				}
			}
			require.Less(t, time.Since(start), 2*time.Second, "statement %d hung\n%s", i, prog.src)
			if prog.frameAfter[i-1] {
				driveFuzzFrames(t, b, rt, nil, 0)
			}
		}
		// Let what can finish finish; sleeps of 2^53 ms and the like cannot,
		// and Close below must cancel them.
		driveFuzzFrames(t, b, rt, func() bool { return !b.Busy() || b.Stalled() }, 100*time.Millisecond)
		for _, task := range tasks {
			if err := task.Err(); err != nil {
				var te *TaskError
				require.ErrorAs(t, err, &te)
				requireWellFormedLuaError(t, te.Message, prog.src)
			}
		}
		for _, task := range b.TakeFailed() {
			var te *TaskError
			require.ErrorAs(t, task.Err(), &te)
			requireWellFormedLuaError(t, te.Message, prog.src)
		}
		require.Empty(t, bad, "values Lua cannot use\n%s", prog.src)
		b.Close()
		rt.Close()
		require.NotPanics(t, func() { rt.Tick() }, "settles produced by shutdown")
	})
}

// driveFuzzFrames runs frames until done returns true or limit passes (one
// frame when done is nil). No frame may take a second: that would be a hang
// of the editor loop.
func driveFuzzFrames(t *testing.T, b *Binding, rt *runtime.Runtime, done func() bool, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	timer := time.NewTimer(time.Millisecond)
	defer timer.Stop()
	for {
		start := time.Now()
		b.Frame()
		require.Less(t, time.Since(start), time.Second, "a frame hung")
		if done == nil || done() || time.Now().After(deadline) {
			return
		}
		timer.Reset(time.Millisecond)
		select {
		case <-rt.Ready():
		case <-timer.C:
		}
	}
}

// restoreModes makes every directory under dir writable and searchable again.
func restoreModes(dir string) {
	_ = os.Chmod(dir, 0o755)
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
}
