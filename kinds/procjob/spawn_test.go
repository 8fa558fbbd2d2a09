//go:build linux

package procjob

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/workers"
)

func shSpec(script string) proc.Spec { return proc.Spec{Argv: []string{"sh", "-c", script}} }

// spawnResult collects a spawn stream until its closing batch.
type spawnResult struct {
	lines   []Line
	outcome Outcome
}

func drainSpawn(t *testing.T, rt testRT, id JobID) spawnResult {
	t.Helper()
	var res spawnResult
	deadline := time.Now().Add(30 * time.Second)
	for {
		require.True(t, time.Now().Before(deadline), "spawn %d did not close in time", id)
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			if b.ID != id {
				continue
			}
			res.lines = append(res.lines, LinesOf(b)...)
			if b.Closed {
				res.outcome = b.Outcome
				return res
			}
		}
		waitReady(rt, time.Millisecond)
	}
}

// groupAlive lists the processes (zombies included) of process group pgid.
func groupAlive(pgid int) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) {
			out = append(out, e.Name()+" "+f[0])
		}
	}
	return out
}

// subreaper makes the test binary reap orphans: pid 1 in some containers
// never does, and its zombies would look like proc's.
func subreaper(t *testing.T) {
	require.NoError(t, proc.BecomeSubreaper())
}

// spawnPgid waits until the job's program runs with at least n processes
// in its group and returns the group id.
func spawnPgid(t *testing.T, rt testRT, id JobID, n int) int {
	t.Helper()
	var pgid int
	require.Eventually(t, func() bool {
		rt.spawns().mu.Lock()
		e := rt.spawns().byJob[id]
		if e != nil && e.p != nil {
			pgid = e.p.Pid()
		}
		rt.spawns().mu.Unlock()
		return pgid != 0 && len(groupAlive(pgid)) >= n
	}, 10*time.Second, time.Millisecond)
	return pgid
}

// TestSpawnStreamsLinesAndExit: a spawn job's items are its lines, each
// stream in its order, and its value is the exit; a non-zero exit is a
// value, not a failure (issue 13: h:await gives {code, signal}).
func TestSpawnStreamsLinesAndExit(t *testing.T) {
	rt := newRT(t, 2)
	id := rt.DispatchSpawn(shSpec(`echo a; echo e1 >&2; printf 'b\r\n'; echo e2 >&2; printf 'c\0d'; exit 3`), DispatchOptions{})
	res := drainSpawn(t, rt, id)
	require.Equal(t, Complete, res.outcome.State)
	require.Equal(t, Result{Code: 3}, valueOf(res.outcome))
	var out, errs []Line
	for _, l := range res.lines {
		if l.Stream == proc.Stdout {
			out = append(out, l)
		} else {
			errs = append(errs, l)
		}
	}
	require.Equal(t, []Line{{Stream: proc.Stdout, Text: "a"}, {Stream: proc.Stdout, Text: "b"},
		{Stream: proc.Stdout, Text: "c\x00d", Partial: true}}, out)
	require.Equal(t, []Line{{Stream: proc.Stderr, Text: "e1"}, {Stream: proc.Stderr, Text: "e2"}}, errs)
	require.Zero(t, rt.PendingLen())
}

// TestSpawnMaxBatchAndTruncation: batches respect max_batch, and max_line
// cuts long lines with Truncated.
func TestSpawnMaxBatchAndTruncation(t *testing.T) {
	rt := newRT(t, 2)
	spec := shSpec(`i=0; while [ $i -lt 50 ]; do echo "line $i"; i=$((i+1)); done; echo 0123456789`)
	spec.MaxLine = 4
	_ = rt.DispatchSpawn(spec, DispatchOptions{MaxBatch: 7})
	var n int
	deadline := time.Now().Add(30 * time.Second)
	var last Line
	for closed := false; !closed; {
		require.True(t, time.Now().Before(deadline))
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			require.LessOrEqual(t, len(LinesOf(b)), 7)
			n += len(LinesOf(b))
			if len(LinesOf(b)) > 0 {
				last = LinesOf(b)[len(LinesOf(b))-1]
			}
			closed = closed || b.Closed
		}
		waitReady(rt, time.Millisecond)
	}
	require.Equal(t, 51, n)
	require.Equal(t, Line{Stream: proc.Stdout, Text: "0123", Truncated: true}, last)
}

// TestSpawnStartFailuresCarryErrno: programs that cannot start fail with
// proc's message and the errno code Lua returns third.
func TestSpawnStartFailuresCarryErrno(t *testing.T) {
	rt := newRT(t, 2)
	dir := t.TempDir()
	script := dir + "/script"
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\n"), 0o644))
	cases := []struct {
		spec proc.Spec
		code string
		msg  string
	}{
		{proc.Spec{Argv: []string{"no-such-program-pmacs"}}, "ENOENT", `spawn "no-such-program-pmacs": no such file or directory`},
		{proc.Spec{Argv: []string{script}}, "EACCES", `spawn "` + script + `": permission denied`},
		{proc.Spec{Argv: []string{"true"}, Dir: dir + "/gone"}, "ENOENT", `spawn "true": chdir ` + dir + `/gone: no such file or directory`},
		{proc.Spec{}, "EINVAL", "spawn: proc: empty command"},
	}
	for _, tc := range cases {
		id := rt.DispatchSpawn(tc.spec, DispatchOptions{})
		res := drainSpawn(t, rt, id)
		require.Equal(t, Failed, res.outcome.State)
		require.Equal(t, tc.code, jobErr(t, res.outcome.Err).Code)
		require.Equal(t, tc.msg, jobErr(t, res.outcome.Err).Message)

		sid := rt.DispatchSystem(tc.spec, 0, DispatchOptions{})
		o := outcomeOf(t, rt, sid)
		require.Equal(t, Failed, o.State)
		require.Equal(t, tc.code, jobErr(t, o.Err).Code)
	}
}

// TestSpawnCancelAndSupersedeKillTheGroup: cancel and supersede end the
// whole process group, grandchildren included, and settle Cancelled.
func TestSpawnCancelAndSupersedeKillTheGroup(t *testing.T) {
	subreaper(t)
	rt := newRT(t, 2)
	tree := shSpec("sleep 60 & sleep 60 | cat")

	id := rt.DispatchSpawn(tree, DispatchOptions{})
	pgid := spawnPgid(t, rt, id, 4)
	rt.Cancel(id)
	require.Equal(t, Cancelled, drainSpawn(t, rt, id).outcome.State)
	require.Empty(t, groupAlive(pgid))

	first := rt.DispatchSpawn(tree, DispatchOptions{Key: "compile"})
	pgid = spawnPgid(t, rt, first, 4)
	second := rt.DispatchSpawn(shSpec("echo second"), DispatchOptions{Key: "compile"})
	res := drainStreams(t, rt, 30*time.Second, first, second)
	require.Equal(t, Cancelled, res[first].Outcome.State)
	require.Equal(t, Complete, res[second].Outcome.State)
	require.Empty(t, groupAlive(pgid))
}

// TestSpawnTimeoutFailsETIMEDOUT: timeout_ms kills the group and fails the
// job with ETIMEDOUT, unlike a cancel.
func TestSpawnTimeoutFailsETIMEDOUT(t *testing.T) {
	rt := newRT(t, 2)
	spec := proc.Spec{Argv: []string{"sleep", "60"}, Timeout: 30 * time.Millisecond}
	res := drainSpawn(t, rt, rt.DispatchSpawn(spec, DispatchOptions{}))
	require.Equal(t, Failed, res.outcome.State)
	require.Equal(t, "ETIMEDOUT", jobErr(t, res.outcome.Err).Code)
	require.Equal(t, `wait "sleep": proc: timed out after 30ms`, jobErr(t, res.outcome.Err).Message)
}

// TestSpawnCreditBoundsUndeliveredLines: a consumer that takes nothing
// holds the runtime's buffered lines at the stream credit (plus one read's
// batch), and `yes` waits on its pipe instead of growing memory.
func TestSpawnCreditBoundsUndeliveredLines(t *testing.T) {
	rt, err := New(Options{Executor: workers.Config{PoolSize: 2}, StreamCredit: 2048})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	id := rt.DispatchSpawn(proc.Spec{Argv: []string{"yes"}}, DispatchOptions{})
	require.Eventually(t, func() bool { rt.Tick(); return rt.backlog(t, id).Queued >= 2048 }, 10*time.Second, time.Millisecond)
	// However long it runs, nothing more arrives until the consumer takes.
	for range 50 {
		rt.Tick()
		waitReady(rt, time.Millisecond)
		require.LessOrEqual(t, rt.backlog(t, id).Queued, 2048+proc.BatchLines)
	}
	got := 0
	for got < 10*2048 {
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			got += len(LinesOf(b))
		}
		waitReady(rt, time.Millisecond)
	}
	rt.Cancel(id)
	require.Equal(t, Cancelled, drainSpawn(t, rt, id).outcome.State)
}

// Long lines weigh by their length against the credit: a program printing
// 100 KiB lines to a consumer that does not take them leaves at most a
// credit's worth of text waiting (2,048 units of 4 KiB, 8 MiB, plus a line
// or two), not 2,048 such lines (200 MiB).
func TestSpawnCreditWeighsLongLinesByTheirBytes(t *testing.T) {
	rt, err := New(Options{Executor: workers.Config{PoolSize: 2}, StreamCredit: 2048})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	line := strings.Repeat("x", 100<<10) // an argument may not pass 128 KiB
	id := rt.DispatchSpawn(proc.Spec{Argv: []string{"yes", line}}, DispatchOptions{})
	// A line of 100 KiB weighs 26 units: the weight waiting bounds the
	// text waiting to 4 KiB a unit.
	weightWaiting := func() int { return rt.backlog(t, id).QueuedWeight }
	require.Eventually(t, func() bool { rt.Tick(); return weightWaiting() >= 1024 }, 20*time.Second, time.Millisecond)
	for range 50 {
		rt.Tick()
		waitReady(rt, time.Millisecond)
		require.LessOrEqual(t, weightWaiting(), 2048+2*lineWeight(len(line)), "text waiting for the consumer")
		require.LessOrEqual(t, rt.backlog(t, id).InFlight, 2048+2*lineWeight(len(line)), "credit the producer holds")
	}
	got := 0
	for got < 100 {
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			for _, l := range LinesOf(b) {
				require.Len(t, l.Text, len(line))
			}
			got += len(LinesOf(b))
		}
		waitReady(rt, time.Millisecond)
	}
	rt.Cancel(id)
	require.Equal(t, Cancelled, drainSpawn(t, rt, id).outcome.State)
}

// TestSpawnStdinPipe: writes reach the program in order, close_stdin ends
// cat, and writing afterwards is an error, never a block.
func TestSpawnStdinPipe(t *testing.T) {
	rt := newRT(t, 2)
	id := rt.DispatchSpawn(proc.Spec{Argv: []string{"cat"}, StdinPipe: true}, DispatchOptions{})
	for i := range 100 {
		wait, err := rt.SpawnWrite(id, []byte("l"+strconv.Itoa(i)+"\n"))
		require.NoError(t, err)
		require.Zero(t, wait)
	}
	require.NoError(t, rt.SpawnCloseStdin(id))
	require.NoError(t, rt.SpawnCloseStdin(id))
	_, err := rt.SpawnWrite(id, []byte("late"))
	require.Error(t, err)
	res := drainSpawn(t, rt, id)
	require.Equal(t, Result{}, valueOf(res.outcome))
	require.Len(t, res.lines, 100)
	for i, l := range res.lines {
		require.Equal(t, "l"+strconv.Itoa(i), l.Text)
	}
	_, err = rt.SpawnWrite(id, []byte("x"))
	require.ErrorContains(t, err, "not a running spawn")

	noPipe := rt.DispatchSpawn(proc.Spec{Argv: []string{"sleep", "60"}}, DispatchOptions{})
	_, err = rt.SpawnWrite(noPipe, []byte("x"))
	require.ErrorContains(t, err, "stdin is not a pipe")
	rt.Cancel(noPipe)
	drainSpawn(t, rt, noPipe)
}

// TestSpawnStdinHighWaterWaits: a write that leaves more than the mark
// queued returns a wait job that completes once the program has read the
// queue down; with a program that never reads, the wait fails when the
// program is gone instead of hanging.
func TestSpawnStdinHighWaterWaits(t *testing.T) {
	rt := newRT(t, 2)
	big := make([]byte, StdinHighWater+1)
	for i := range big {
		big[i] = 'x'
	}
	big[len(big)-1] = '\n'

	id := rt.DispatchSpawn(proc.Spec{Argv: []string{"wc", "-c"}, StdinPipe: true}, DispatchOptions{})
	wait, err := rt.SpawnWrite(id, big)
	require.NoError(t, err)
	require.NotZero(t, wait)
	require.Equal(t, Complete, outcomeOf(t, rt, wait).State)
	require.NoError(t, rt.SpawnCloseStdin(id))
	res := drainSpawn(t, rt, id)
	require.Equal(t, []Line{{Stream: proc.Stdout, Text: strconv.Itoa(len(big))}}, res.lines)

	stuck := rt.DispatchSpawn(proc.Spec{Argv: []string{"sleep", "60"}, StdinPipe: true}, DispatchOptions{})
	spawnPgid(t, rt, stuck, 1) // running: a cancel before the start fails the wait ECANCELED instead
	wait, err = rt.SpawnWrite(stuck, big)
	require.NoError(t, err)
	require.NotZero(t, wait)
	rt.Cancel(stuck)
	o := outcomeOf(t, rt, wait)
	require.Equal(t, Failed, o.State)
	require.Equal(t, "EPIPE", jobErr(t, o.Err).Code)
	require.Equal(t, Cancelled, drainSpawn(t, rt, stuck).outcome.State)
}

// TestSystemCollectsOutput: system keeps stdout and stderr exactly as
// written, caps each at max_output with truncated, and still lets the
// program finish.
func TestSystemCollectsOutput(t *testing.T) {
	rt := newRT(t, 2)
	o := outcomeOf(t, rt, rt.DispatchSystem(shSpec(`printf 'a\r\nb'; printf err >&2; exit 4`), 0, DispatchOptions{}))
	require.Equal(t, Complete, o.State)
	require.Equal(t, Result{Code: 4, Stdout: "a\r\nb", Stderr: "err"}, valueOf(o))

	o = outcomeOf(t, rt, rt.DispatchSystem(shSpec(`head -c 300000 /dev/zero | tr '\0' y`), 1000, DispatchOptions{}))
	require.Equal(t, Complete, o.State)
	require.Equal(t, Result{Stdout: strings.Repeat("y", 1000), Truncated: true}, valueOf(o))

	in := proc.Spec{Argv: []string{"cat"}, Stdin: strings.NewReader("fed\n")}
	o = outcomeOf(t, rt, rt.DispatchSystem(in, 0, DispatchOptions{}))
	require.Equal(t, Result{Stdout: "fed\n"}, valueOf(o))
}

// TestCloseKillsEverySpawn: Close returns well within the kill grace even
// when programs ignore SIGTERM, and no process of their groups survives
// (issue 13: Close while spawned jobs run).
func TestCloseKillsEverySpawn(t *testing.T) {
	subreaper(t)
	rt, err := New(Options{Executor: workers.Config{PoolSize: 2}})
	require.NoError(t, err)
	var ids []JobID
	for range 4 {
		ids = append(ids, rt.DispatchSpawn(shSpec(`trap "" TERM; sleep 60 & sleep 60`), DispatchOptions{}))
	}
	sys := rt.DispatchSystem(shSpec(`trap "" TERM; sleep 60`), 0, DispatchOptions{})
	var pgids []int
	for _, id := range append(ids, sys) {
		pgids = append(pgids, spawnPgid(t, rt, id, 1))
	}
	start := time.Now()
	rt.Close()
	took := time.Since(start)
	require.Less(t, took, proc.DefaultKillGrace, "Close waited out the SIGTERM grace")
	for _, pg := range pgids {
		require.Empty(t, groupAlive(pg))
	}
	// Every job still settles (cancelled) at a later Tick.
	pumpUntil(t, rt, func() bool {
		for _, id := range append(ids, sys) {
			if !rt.IsComplete(id) {
				return false
			}
		}
		return true
	})
	after := rt.DispatchSpawn(proc.Spec{Argv: []string{"true"}}, DispatchOptions{})
	res := drainSpawn(t, rt, after)
	require.Equal(t, Failed, res.outcome.State)
	require.Equal(t, workers.CodeShutdown, jobErr(t, res.outcome.Err).Code)
}

// TestSpawnWireRoundTrip: lines (any bytes, every flag) and exits cross the
// bus unchanged.
func TestSpawnWireRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	in := rawLines{
		{Stream: proc.Stdout, Text: []byte("a\x00\xff")},
		{Stream: proc.Stderr, Text: nil, Partial: true, Truncated: true},
	}
	require.NoError(t, linesCodec{}.EncodeItems(msgpack.NewEncoder(&buf), in))
	out, err := linesCodec{}.DecodeItems(buf.Bytes(), msgpack.NewDecoder(bytes.NewReader(buf.Bytes())))
	require.NoError(t, err)
	require.Equal(t, Lines{{Stream: proc.Stdout, Text: "a\x00\xff"},
		{Stream: proc.Stderr, Partial: true, Truncated: true}}, out)
	require.Equal(t, in.Weight(), out.Weight(), "the weight survives the trip")

	ex := Result{Code: 143, Signal: "SIGTERM", Stdout: "o", Stderr: "e", Truncated: true}
	buf.Reset()
	require.NoError(t, resultCodec{}.EncodeValue(msgpack.NewEncoder(&buf), ex))
	back, err := resultCodec{}.DecodeValue(msgpack.NewDecoder(&buf))
	require.NoError(t, err)
	require.Equal(t, ex, back)
}

// TestSpawnCancelCyclesLeaveNothing: spawn/supersede cycles of a process
// tree through the runtime leave no process of any group, no pending entry
// and no supersede key behind (goleak in TestMain checks the goroutines).
func TestSpawnCancelCyclesLeaveNothing(t *testing.T) {
	subreaper(t)
	rt := newRT(t, 2)
	tree := shSpec("sleep 60 & sleep 60 | cat")
	var pgids []int
	var ids []JobID
	for range 30 {
		id := rt.DispatchSpawn(tree, DispatchOptions{Key: "cycle"})
		pgids = append(pgids, spawnPgid(t, rt, id, 4))
		ids = append(ids, id)
	}
	rt.Cancel(ids[len(ids)-1])
	res := drainStreams(t, rt, 30*time.Second, ids...)
	for _, id := range ids {
		require.Equal(t, Cancelled, res[id].Outcome.State)
	}
	for _, pg := range pgids {
		require.Empty(t, groupAlive(pg))
	}
	require.Zero(t, rt.PendingLen())
	require.Zero(t, rt.SupersedeLen())
	// A runner leaves the table just after sending its last reply.
	require.Eventually(t, func() bool {
		rt.spawns().mu.Lock()
		defer rt.spawns().mu.Unlock()
		return len(rt.spawns().byJob) == 0
	}, 10*time.Second, time.Millisecond)
}

// TestSpawnCancelledBeforeStartFailsStdin: a spawn cancelled before its
// program started settles Cancelled, and its stdin queue refuses writes
// with ECANCELED rather than a bare context error.
func TestSpawnCancelledBeforeStartFailsStdin(t *testing.T) {
	rt := newRT(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sp := &spawnEntry{table: rt.spawns(), stdin: newStdinQueue()}
	_, err := runProc(ctx, nil, sp, proc.Spec{Argv: []string{"cat"}, StdinPipe: true}, 0)
	require.ErrorIs(t, err, context.Canceled, "the job settles cancelled")
	_, err = sp.stdin.push([]byte("x"))
	require.EqualError(t, err, "write: the job was cancelled before the program started")
	require.Equal(t, "ECANCELED", proc.Code(err))
}

// TestSpawnWriteWaitIsCancellable: cancelling a write wait (as *workers*
// can) settles it at once while the program, which reads nothing, runs on.
func TestSpawnWriteWaitIsCancellable(t *testing.T) {
	rt := newRT(t, 2)
	id := rt.DispatchSpawn(proc.Spec{Argv: []string{"sleep", "60"}, StdinPipe: true}, DispatchOptions{})
	spawnPgid(t, rt, id, 1)
	wait, err := rt.SpawnWrite(id, make([]byte, StdinHighWater+1))
	require.NoError(t, err)
	require.NotZero(t, wait)
	rt.Cancel(wait)
	require.Equal(t, Cancelled, outcomeOf(t, rt, wait).State)
	_, state, ok := rt.Lookup(id)
	require.True(t, ok)
	require.Equal(t, Running, state)
	rt.Cancel(id)
	require.Equal(t, Cancelled, drainSpawn(t, rt, id).outcome.State)
}

// valueOf is a completed job's value.
func valueOf(o Outcome) any {
	v, _ := o.Value()
	return v
}
