//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/proctest"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// teardownBound is the bound on every teardown.
const teardownBound = 3 * time.Second

// editorBinary builds the real command into the test's temporary directory
// (the build cache makes every build after the first quick).
func editorBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "demo-editor")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/pmacs-go/pmacs-go/cmd/demo-editor").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// treeScript is a headless script that spawns a program with a setsid
// grandchild (both write their pids to files in arg[1]) and waits until
// both have written them; what is appended to it runs next.
const treeScript = `
local dir = arg[1]
local h = pmacs.workers.spawn{cmd = {"sh", "-c",
	"setsid sleep 1000 & echo $! > " .. dir .. "/gc; echo $$ > " .. dir .. "/sh; exec sleep 1000"}}
local function exists(p) local f = io.open(p) if f then f:close() return true end end
for _ = 1, 5000 do
	if exists(dir .. "/gc") and exists(dir .. "/sh") then break end
	pmacs.workers.sleep(2):await()
end
`

// startRunner starts the built runner bin on script with dir as its
// argument, in a session of its own, and returns it with its stderr.
func startRunner(t *testing.T, bin, script, dir string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.lua")
	require.NoError(t, os.WriteFile(p, []byte(script), 0o644))
	return startRunnerArgs(t, bin, p, dir)
}

// startRunnerArgs starts the built runner bin on the script file with args.
func startRunnerArgs(t *testing.T, bin, script string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--script", script}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, &stderr
}

// exitCode waits for cmd (10 s at most) and returns its exit status.
func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("the runner did not exit")
		return -1
	}
}

// trackTree follows the spawned program (sh, exec'd into sleep) and its
// setsid grandchild once both are in place.
func trackTree(t *testing.T, dir string) []proctest.Proc {
	t.Helper()
	sh := proctest.Track(t, filepath.Join(dir, "sh"))
	gc := proctest.Track(t, filepath.Join(dir, "gc"))
	gc.WaitFor(t, "setsid sleep", proctest.Detached("sleep"))
	return []proctest.Proc{sh, gc}
}

// Issue 25, teardown: the headless runner, after a Lua error, exits 1 and
// leaves nothing of the program it spawned: 3 s later neither the program
// nor its setsid grandchild is running or a zombie.
func TestHeadlessRunnerEndsItsChildrenAfterALuaError(t *testing.T) {
	dir := t.TempDir()
	cmd, stderr := startRunner(t, editorBinary(t), treeScript+`
		while not exists(dir .. "/go") do pmacs.workers.sleep(2):await() end
		error("boom")`, dir)
	tree := trackTree(t, dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o644))
	require.Equal(t, exitFailed, exitCode(t, cmd), stderr.String())
	require.Contains(t, stderr.String(), "boom")
	proctest.Gone(t, teardownBound, tree...)
}

// Issue 25, teardown: SIGTERM or SIGHUP while the runner waits on its
// program stops the run: it exits 128 plus the signal's number, and 3 s
// later neither the program nor its setsid grandchild is running or a
// zombie.
func TestHeadlessRunnerEndsItsChildrenOnSignal(t *testing.T) {
	bin := editorBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd, stderr := startRunner(t, bin, treeScript+`print("waiting"); h:await()`, dir)
			tree := trackTree(t, dir)
			require.NoError(t, cmd.Process.Signal(sig))
			require.Equal(t, exitSignal+int(sig), exitCode(t, cmd), stderr.String())
			require.Contains(t, stderr.String(), "stopped by SIG")
			proctest.Gone(t, teardownBound, tree...)
		})
	}
}

// Issue 25, teardown: a process that escaped its program's tree (it cleared
// its environment and double-forked) is reparented to the runner, a
// subreaper, and the exit's proc.EndAll ends and reaps it too.
func TestHeadlessRunnerEndsWhatEscapedTheTree(t *testing.T) {
	dir := t.TempDir()
	cmd, stderr := startRunner(t, editorBinary(t), `
		local dir = arg[1]
		assert(pmacs.workers.system{cmd = {"sh", "-c",
			"(setsid env -i `+lookSleep(t)+` 1000 & echo $! > " .. dir .. "/gc)"}}:await())
		local function exists(p) local f = io.open(p) if f then f:close() return true end end
		for _ = 1, 5000 do
			if exists(dir .. "/go") then break end
			pmacs.workers.sleep(2):await()
		end
	`, dir)
	gc := proctest.Track(t, filepath.Join(dir, "gc"))
	gc.WaitFor(t, "env -i sleep", proctest.Detached("sleep"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o644))
	require.Equal(t, exitOK, exitCode(t, cmd), stderr.String())
	proctest.Gone(t, teardownBound, gc)
}

func lookSleep(t *testing.T) string {
	p, err := exec.LookPath("sleep")
	require.NoError(t, err)
	return p
}

// Issue 25, client:stop(): a headless script starts gopls, stops it and
// awaits the handle stop() returns; when the runner returns, no gopls
// process of that run (nor anything gopls started) is running or a zombie.
func TestHeadlessStopAwaitsGoplsExit(t *testing.T) {
	gopls := testenv.Peer(t, testenv.Gopls)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOTOOLCHAIN", "local")
	t.Setenv("GOFLAGS", "-mod=mod")

	// Every process below this test process that the run started: gopls
	// and whatever gopls started, seen while the run lasts.
	before := map[int]bool{}
	for _, in := range descendants(os.Getpid()) {
		before[in.Pid] = true
	}
	var mu sync.Mutex
	seen := map[int]proctest.Info{}
	stop := make(chan struct{})
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		for {
			for _, in := range descendants(os.Getpid()) {
				if in.State != 'Z' && !before[in.Pid] {
					mu.Lock()
					seen[in.Pid] = in
					mu.Unlock()
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	code, out, errOut := run(t, script(t, `
		local dir, gopls = arg[1], arg[2]
		local c = assert(pmacs.lsp.start{cmd = {gopls}, root = dir, filetypes = {"go"}})
		assert(c:open(dir .. "/main.go"))
		local _, err = c:request("workspace/symbol", {query = "main"}, {timeout_ms = 60000}):await()
		assert(err == nil, err)
		local exit = assert(c:stop():await())
		print("gopls stopped", exit.code, exit.signal)
	`), []string{dir, gopls}, false)
	close(stop)
	<-scanned
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "gopls stopped")
	mu.Lock()
	defer mu.Unlock()
	var left, comms []string
	for _, in := range seen {
		comms = append(comms, in.Comm)
		if s := (proctest.Proc{Pid: in.Pid, Start: in.Start}).State(); s != 0 {
			left = append(left, fmt.Sprintf("%d %s (state %c)", in.Pid, in.Comm, s))
		}
	}
	require.Contains(t, comms, "gopls", "the scan saw gopls")
	require.Empty(t, left, "processes of the run left when the runner returned")
}

// descendants lists the processes below pid, zombies included.
func descendants(pid int) []proctest.Info {
	ents, _ := os.ReadDir("/proc")
	kids := map[int][]proctest.Info{}
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if in, ok := proctest.Stat(n); ok {
			kids[in.Ppid] = append(kids[in.Ppid], in)
		}
	}
	var out []proctest.Info
	queue := []int{pid}
	for len(queue) > 0 {
		for _, in := range kids[queue[0]] {
			out = append(out, in)
			queue = append(queue, in.Pid)
		}
		queue = queue[1:]
	}
	return out
}

// Issue 25, teardown ("no zombie"): an orphan that escaped its program's
// tree and exits on its own while the run goes on (as gopls's detached
// telemetry helper does) is reaped as it exits, not left a zombie of the
// runner, a subreaper, until the exit's sweep.
func TestHeadlessRunnerReapsOrphansWhileItRuns(t *testing.T) {
	dir := t.TempDir()
	cmd, stderr := startRunner(t, editorBinary(t), `
		local dir = arg[1]
		assert(pmacs.workers.system{cmd = {"sh", "-c",
			"(setsid env -i `+lookSleep(t)+` 0.3 & echo $! > " .. dir .. "/gc)"}}:await())
		local function exists(p) local f = io.open(p) if f then f:close() return true end end
		while not exists(dir .. "/go") do pmacs.workers.sleep(2):await() end
	`, dir)
	gc := proctest.Track(t, filepath.Join(dir, "gc"))
	proctest.Gone(t, teardownBound, gc)
	require.Nil(t, cmd.ProcessState, "the runner still runs")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o644))
	require.Equal(t, exitOK, exitCode(t, cmd), stderr.String())
}

// Security review, signals: SIGTERM while the script's Lua spins in loops
// that never wait (three tasks and the main chunk, all resumed by one
// job's end in the same frame) still ends the run: it exits 143 within the teardown bound, and neither
// the program it spawned nor its setsid grandchild is left. Before, the
// signal interrupted the one loop running then, the frame resumed the
// next task, and the runner spun on for good.
func TestHeadlessRunnerStuckInLuaEndsOnSignal(t *testing.T) {
	dir := t.TempDir()
	cmd, stderr := startRunner(t, editorBinary(t), treeScript+`
		local function spin()
			local f = assert(io.open(dir .. "/spinning", "w"))
			f:close()
			while true do end
		end
		local h = pmacs.workers.sleep(50)
		for _ = 1, 3 do pmacs.async.run(function() h:await() spin() end) end
		h:await()
		spin()`, dir)
	tree := trackTree(t, dir)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "spinning")); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "the script never reached its loops")
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	start := time.Now()
	require.Equal(t, exitSignal+int(syscall.SIGTERM), exitCode(t, cmd), stderr.String())
	require.Less(t, time.Since(start), teardownBound+2*time.Second, "the runner's exit after SIGTERM")
	require.Contains(t, stderr.String(), "stopped by SIGTERM")
	proctest.Gone(t, teardownBound, tree...)
}
