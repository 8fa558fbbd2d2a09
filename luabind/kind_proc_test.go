//go:build linux

package luabind

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/kinds/procjob"
	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// runOK runs src as a task and requires it to succeed, returning its
// results.
func runOK(t *testing.T, h *harness, src string) []lua.LValue {
	t.Helper()
	task := h.run(t, src)
	require.NoError(t, task.Err(), h.stderr.String())
	return task.Results()
}

// TestLuaSpawnItemsAndExit: w.spawn streams {fd, text, partial, truncated}
// items, each stream in order, NUL bytes and CRLF handled, and await gives
// {code, signal} with a non-zero exit as a value (issue 13, Lua API).
func TestLuaSpawnItemsAndExit(t *testing.T) {
	h := newHarness(t, false)
	res := runOK(t, h, `
		local w = pmacs.workers
		local h = w.spawn{cmd = {"sh", "-c", "printf 'a\\r\\nb\\0c\\n'; echo err >&2; printf 'xxxxxxxx\\ntail'; exit 3"},
			max_line = 4, max_batch = 2}
		local out, err = {}, {}
		for batch in h:batches() do
			assert(#batch <= 2)
			for _, it in ipairs(batch) do
				local dst = it.fd == "stdout" and out or err
				dst[#dst + 1] = it.text .. (it.partial and "|partial" or "") .. (it.truncated and "|cut" or "")
			end
		end
		local r, e = h:await()
		assert(e == nil, e)
		return table.concat(out, ","), table.concat(err, ","), r.code, r.signal
	`)
	require.Equal(t, lua.LString("a,b\x00c,xxxx|cut,tail|partial"), res[0])
	require.Equal(t, lua.LString("err"), res[1])
	require.Equal(t, lua.LNumber(3), res[2])
	require.Equal(t, lua.LNil, res[3])
}

// TestLuaSpawnStartFailuresAreLuvStyle: programs that cannot start fail at
// await with nil, "CODE: message", "CODE"; a cmd that is not a list of
// strings is an error at the call.
func TestLuaSpawnStartFailuresAreLuvStyle(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\n"), 0o644))
	h := newHarness(t, false)
	h.b.ls.SetGlobal("SCRIPT", lua.LString(script))
	h.b.ls.SetGlobal("DIR", lua.LString(dir))
	res := runOK(t, h, `
		local w = pmacs.workers
		local out = {}
		local function try(spec)
			local v, msg, code = w.spawn(spec):await()
			assert(v == nil)
			out[#out + 1] = msg .. "|" .. tostring(code)
			local v2, msg2, code2 = w.system(spec):await()
			assert(v2 == nil and msg2 == msg and code2 == code, tostring(msg2))
		end
		try{cmd = {"no-such-program-pmacs"}}
		try{cmd = {SCRIPT}}
		try{cmd = {"true"}, cwd = DIR .. "/gone"}
		try{cmd = {}}
		local ok, err = pcall(w.spawn, {cmd = {"echo", 1}})
		assert(not ok)
		out[#out + 1] = err
		ok, err = pcall(w.spawn, {cmd = "echo hi"})
		assert(not ok)
		out[#out + 1] = err
		ok, err = pcall(w.spawn, {cmd = {"true"}, env = {A = 1}})
		assert(not ok)
		out[#out + 1] = err
		ok, err = pcall(w.spawn, {cmd = {"true"}, stdin = 5})
		assert(not ok)
		out[#out + 1] = err
		ok, err = pcall(w.system, {cmd = {"true"}, max_line = 5})
		assert(not ok)
		out[#out + 1] = err
		return unpack(out)
	`)
	require.Equal(t, `ENOENT: spawn "no-such-program-pmacs": no such file or directory|ENOENT`, res[0].String())
	require.Equal(t, `EACCES: spawn "`+script+`": permission denied|EACCES`, res[1].String())
	require.Equal(t, `ENOENT: spawn "true": chdir `+dir+`/gone: no such file or directory|ENOENT`, res[2].String())
	require.Equal(t, `EINVAL: spawn: proc: empty command|EINVAL`, res[3].String())
	require.Contains(t, res[4].String(), "pmacs.workers.spawn: field 'cmd' item 2 expected string, got number")
	require.Contains(t, res[5].String(), "pmacs.workers.spawn: field 'cmd' expected list of strings, got string")
	require.Contains(t, res[6].String(), "field 'env' expected string keys and values, got string = number")
	require.Contains(t, res[7].String(), `field 'stdin' expected string (the input) or "pipe", got number`)
	require.Contains(t, res[8].String(), "pmacs.workers.system: unknown field max_line")
}

// TestLuaSpawnStdinPipe: h:write feeds cat, h:close_stdin ends it, and a
// write after the program is gone is EPIPE, luv-style; several MiB go
// through, past the queue's high-water mark, with the writing task waiting
// rather than the frame.
func TestLuaSpawnStdinPipe(t *testing.T) {
	h := newHarness(t, false)
	res := runOK(t, h, `
		local w = pmacs.workers
		local h = w.spawn{cmd = {"cat"}, stdin = "pipe"}
		local chunk = string.rep(string.rep("y", 99) .. "\n", 655) -- 65,500 bytes
		local writer = pmacs.async.run(function()
			for i = 1, 128 do assert(h:write(chunk)) end
			assert(h:write("last"))
			assert(h:close_stdin())
			return true
		end)
		local lines, bytes, partial = 0, 0, nil
		for batch in h:batches() do
			for _, it in ipairs(batch) do
				lines = lines + 1
				bytes = bytes + #it.text
				if it.partial then partial = it.text end
			end
		end
		assert(writer:await())
		local r = h:await()
		local ok, msg, code = h:write("more")
		return lines, bytes, partial, r.code, ok, msg, code
	`)
	require.Equal(t, lua.LNumber(128*655+1), res[0])
	require.Equal(t, lua.LNumber(128*655*99+4), res[1])
	require.Equal(t, lua.LString("last"), res[2])
	require.Equal(t, lua.LNumber(0), res[3])
	require.Equal(t, lua.LNil, res[4])
	require.Contains(t, res[5].String(), "EPIPE: ")
	require.Equal(t, lua.LString("EPIPE"), res[6])

	task := h.run(t, `pmacs.workers.spawn{cmd = {"true"}}:write("x")`)
	require.ErrorContains(t, task.Err(), `stdin is not a pipe (spawn it with stdin = "pipe")`)
	task = h.run(t, `pmacs.workers.sleep(1):write("x")`)
	require.ErrorContains(t, task.Err(), "h:write: job")
	require.ErrorContains(t, task.Err(), "(sleep) is not a spawn")
}

// TestLuaSystem: w.system returns code, signal, stdout, stderr and
// truncated, with output kept as written and capped by max_output; env is
// added to the editor's environment and cwd is the working directory.
func TestLuaSystem(t *testing.T) {
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	h := newHarness(t, false)
	h.b.ls.SetGlobal("DIR", lua.LString(dir))
	res := runOK(t, h, `
		local w = pmacs.workers
		local r = assert(w.system{cmd = {"sh", "-c", "printf 'a\\r\\n'; printf \"$FOO\" >&2; pwd; exit 2"},
			env = {FOO = "bar"}, cwd = DIR}:await())
		local big = assert(w.system{cmd = {"sh", "-c", "head -c 100000 /dev/zero"}, max_output = 10}:await())
		local fed = assert(w.system{cmd = {"cat"}, stdin = "fed\n"}:await())
		return r.code, r.stdout, r.stderr, r.truncated, #big.stdout, big.truncated, fed.stdout, tostring(r.signal)
	`)
	require.Equal(t, lua.LNumber(2), res[0])
	require.Equal(t, lua.LString("a\r\n"+real+"\n"), res[1])
	require.Equal(t, lua.LString("bar"), res[2])
	require.Equal(t, lua.LFalse, res[3])
	require.Equal(t, lua.LNumber(10), res[4])
	require.Equal(t, lua.LTrue, res[5])
	require.Equal(t, lua.LString("fed\n"), res[6])
	require.Equal(t, lua.LString("nil"), res[7])
}

// TestLuaSpawnCancelSupersedeTimeout: cancel and supersede end the program
// and await says "cancelled"; timeout_ms fails with ETIMEDOUT; the signal
// that ended a program is named.
func TestLuaSpawnCancelSupersedeTimeout(t *testing.T) {
	h := newHarness(t, false)
	res := runOK(t, h, `
		local w = pmacs.workers
		local h = w.spawn{cmd = {"sleep", "60"}}
		h:cancel()
		local v1, e1 = h:await()
		local first = w.spawn{cmd = {"sleep", "60"}, key = "compile"}
		local second = w.spawn{cmd = {"echo", "two"}, key = "compile"}
		local v2, e2 = first:await()
		local r2 = assert(second:await())
		local v3, e3, c3 = w.spawn{cmd = {"sleep", "60"}, timeout_ms = 20}:await()
		local killed = assert(w.system{cmd = {"sh", "-c", "kill -TERM $$"}}:await())
		return e1, e2, r2.code, e3, c3, killed.signal, killed.code
	`)
	require.Equal(t, lua.LString("cancelled"), res[0])
	require.Equal(t, lua.LString("cancelled"), res[1])
	require.Equal(t, lua.LNumber(0), res[2])
	require.Equal(t, lua.LString(`ETIMEDOUT: wait "sleep": proc: timed out after 20ms`), res[3])
	require.Equal(t, lua.LString("ETIMEDOUT"), res[4])
	require.Equal(t, lua.LString("SIGTERM"), res[5])
	require.Equal(t, lua.LNumber(143), res[6])
}

// TestLuaSpawnYesDrainedAndAbandoned: a `yes` flood reaches a draining task
// in bounded batches, and breaking out of the loop and cancelling ends it.
func TestLuaSpawnYesDrainedAndAbandoned(t *testing.T) {
	h := newHarness(t, false)
	res := runOK(t, h, `
		local h = pmacs.workers.spawn{cmd = {"yes"}, max_batch = 512}
		local n = 0
		for batch in h:batches() do
			assert(#batch <= 512)
			for _, it in ipairs(batch) do assert(it.text == "y") end
			n = n + #batch
			if n >= 100000 then break end
		end
		h:cancel()
		local v, e = h:await()
		return n, e
	`)
	require.GreaterOrEqual(t, float64(res[0].(lua.LNumber)), 100000.0)
	require.Equal(t, lua.LString("cancelled"), res[1])
}

// TestLuaSpawnRefusedInSafeMode: --safe refuses spawn and system with a
// clear error.
func TestLuaSpawnRefusedInSafeMode(t *testing.T) {
	h := newHarness(t, true)
	for _, fn := range []string{"spawn", "system"} {
		task := h.run(t, `pmacs.workers.`+fn+`{cmd = {"true"}}`)
		require.ErrorContains(t, task.Err(), "pmacs.workers."+fn+": not allowed with --safe (no program may start)")
	}
}

// A program the editor started itself and handed to a script with Adopt is
// a stream like one the script spawned: its lines can be iterated, then
// awaited for the exit.
func TestAdoptedSpawnIsIterable(t *testing.T) {
	h := newHarness(t, false)
	id := procjob.Spawn(h.rt, proc.Spec{Argv: []string{"seq", "1", "5"}}, runtime.DispatchOptions{})
	handle, err := h.b.Adopt(id)
	require.NoError(t, err)
	h.b.ls.SetGlobal("H", handle)
	res := runOK(t, h, `
		local lines = {}
		for batch in H:batches() do
			for _, l in ipairs(batch) do lines[#lines + 1] = l.text end
		end
		local r, e = H:await()
		assert(e == nil, e)
		return table.concat(lines, ","), r.code
	`)
	require.Equal(t, lua.LString("1,2,3,4,5"), res[0])
	require.Equal(t, lua.LNumber(0), res[1])
}

// A task that feeds a filter from inside its own loop over the filter's
// output finishes: the output is held for that task, so the filter cannot
// read its input down while the task's write waits, and the write must not
// wait for it (it hung). Every line written comes back.
func TestWriteFromInsideTheOutputLoopFinishes(t *testing.T) {
	h := newHarness(t, false)
	res := runOK(t, h, `
		local h = pmacs.workers.spawn{cmd = {"cat"}, stdin = "pipe"}
		local line = string.rep("x", 63) .. "\n"
		local chunk = string.rep(line, 16384) -- 1 MiB
		assert(h:write(line))
		local n, sent = 0, false
		for batch in h:batches() do
			n = n + #batch
			if not sent then
				sent = true
				for i = 1, 8 do assert(h:write(chunk)) end
				assert(h:close_stdin())
			end
		end
		local r, e = h:await()
		assert(e == nil, e)
		return n, r.code
	`)
	require.Equal(t, lua.LNumber(1+8*16384), res[0])
	require.Equal(t, lua.LNumber(0), res[1])
}

// The same through a helper task: a task that awaits, from inside its loop
// over a filter's output, a helper that feeds the filter finishes, whether
// the helper's write began waiting before the await or after it.
func TestWriterAwaitedFromInsideTheOutputLoopFinishes(t *testing.T) {
	for name, pause := range map[string]string{
		"write waits first": "",
		"await first":       "pmacs.workers.sleep(1):await()",
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, false)
			res := runOK(t, h, `
				local h = pmacs.workers.spawn{cmd = {"cat"}, stdin = "pipe"}
				local line = string.rep("x", 63) .. "\n"
				local chunk = string.rep(line, 16384) -- 1 MiB
				assert(h:write(line))
				local n, writer = 0, nil
				for batch in h:batches() do
					n = n + #batch
					if not writer then
						writer = pmacs.async.run(function()
							`+pause+`
							for i = 1, 8 do assert(h:write(chunk)) end
							assert(h:close_stdin())
						end)
						writer:await()
					end
				end
				local r, e = h:await()
				assert(e == nil, e)
				return n, r.code
			`)
			require.Equal(t, lua.LNumber(1+8*16384), res[0])
			require.Equal(t, lua.LNumber(0), res[1])
		})
	}
}

// TestLuaSystemEnvAddsToTheEditorsEnvironment: env entries are added on top
// of the editor's environment (PATH still finds sh), and a bad name is a
// Lua error naming the field.
func TestLuaSystemEnvAddsToTheEditorsEnvironment(t *testing.T) {
	h := newHarness(t, false)
	res := runOK(t, h, `
		local r = assert(pmacs.workers.system{cmd = {"sh", "-c", 'printf "%s/%s" "$PMACS_A" "$PMACS_B"'},
			env = {PMACS_A = "one", PMACS_B = "two"}}:await())
		local ok, err = pcall(pmacs.workers.system, {cmd = {"true"}, env = {["A=B"] = "x"}})
		return r.stdout, ok, err
	`)
	require.Equal(t, lua.LString("one/two"), res[0])
	require.Equal(t, lua.LFalse, res[1])
	require.Contains(t, res[2].String(), "field 'env' has an invalid variable name")
}

// h:write outside a task never waits, so a script writing to a program
// that does not read meets the queue's hard bound: the write that would
// pass 64 MiB returns nil, "ENOBUFS: ...", "ENOBUFS" and queues nothing;
// the writes before it returned true. (Issue 25 point 7: "a spawn's stdin
// queue ... past it a write fails with a clear error".)
func TestLuaWritePastTheStdinBoundFailsLuvStyle(t *testing.T) {
	h := newHarness(t, false)
	L := h.b.L()
	require.NoError(t, L.DoString(`
		local h = pmacs.workers.spawn{cmd = {"sleep", "60"}, stdin = "pipe"}
		local chunk = string.rep("x", 1048576)
		local ok, msg, code
		N = 0
		repeat
			ok, msg, code = h:write(chunk)
			if ok then N = N + 1 end
		until not ok or N > 200
		OK, MSG, CODE = ok, msg, code
		h:cancel()
	`))
	h.drive(t, 20*time.Second)
	require.Equal(t, lua.LNumber(procjob.StdinMaxQueued>>20), L.GetGlobal("N"))
	require.Equal(t, lua.LNil, L.GetGlobal("OK"))
	require.Contains(t, L.GetGlobal("MSG").String(), "ENOBUFS: write: procjob: the program's input queue is full")
	require.Contains(t, L.GetGlobal("MSG").String(), "nothing was queued")
	require.Equal(t, lua.LString("ENOBUFS"), L.GetGlobal("CODE"))
}
