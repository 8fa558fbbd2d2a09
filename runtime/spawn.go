package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/pmacs-go/pmacs-go/bus"
	"github.com/pmacs-go/pmacs-go/proc"
)

const (
	// DefaultMaxOutput caps each of stdout and stderr a system job keeps;
	// a larger request is clamped to MaxMaxOutput.
	DefaultMaxOutput = 16 << 20
	MaxMaxOutput     = 1 << 30
	// StdinHighWater is how many bytes a spawn's stdin queue holds before
	// SpawnWrite asks its caller to wait.
	StdinHighWater = 1 << 20
	// StdinMaxQueued is how many bytes a spawn's stdin queue holds at
	// most: a write that would take it past them fails with ENOBUFS
	// (ErrStdinFull) and queues nothing. A caller that does not wait at
	// the high-water mark, writing to a program that does not read, meets
	// it instead of growing the editor's memory.
	StdinMaxQueued = 64 << 20
	// spawnCreditBatches sizes a spawn's credit in batches: a program's
	// output is a flood more often than not, and every undelivered line is
	// decoded by the next Tick, so a few frames' worth is the window.
	spawnCreditBatches = 4
)

// SpawnLine is one line of a spawn job's output: a stream item.
type SpawnLine struct {
	// Stream is proc.Stdout or proc.Stderr.
	Stream proc.Stream
	// Text is the line without its newline, bytes as written.
	Text string
	// Partial marks a last line without a newline; Truncated a line cut
	// to the spec's MaxLine.
	Partial, Truncated bool
}

// SpawnResult is a spawn or system job's value: how the program ended and,
// for system, its output.
type SpawnResult struct {
	// Code is the exit status, or 128 plus the signal number.
	Code int
	// Signal names the signal that ended the program ("SIGTERM"), or "".
	Signal string
	// Stdout and Stderr are a system job's output, each at most its
	// max output; Truncated says bytes were dropped from either. Empty for
	// spawn jobs.
	Stdout, Stderr string
	Truncated      bool
}

// DispatchSpawn runs a program as a stream job: the items are its output
// lines (SpawnLine) and the value is a SpawnResult once it has exited and
// every line has been delivered. A non-zero exit is a value, not a failure.
// A program that cannot start fails with proc's message and errno code
// ("ENOENT", "EACCES", ...), and spec.Timeout fails it with "ETIMEDOUT".
//
// Lines are taken from the pipes under the stream's credit: once the
// consumer is a credit's worth behind, the pipe is not read and the program
// blocks on its next write. A spawn's credit is four of its batches (at
// least two of proc's) or the runtime's stream credit if that is smaller,
// so a flood costs a Tick a few frames' lines at most. Cancel, supersede
// and spec.Timeout stop the program's whole tree (SIGTERM to its group and
// every descendant proc finds, SIGKILL after spec.KillGrace); Close kills
// every tree at once. The program runs on proc's goroutines, not on a worker, so a
// long-lived process holds no worker slot and no actor gate.
//
// spec.Lines and spec.Output are the runtime's to set. With
// spec.StdinPipe, feed the program with SpawnWrite and SpawnCloseStdin.
func (rt *Runtime) DispatchSpawn(spec proc.Spec, o DispatchOptions) JobID {
	j := rt.newJob(KindSpawn, o.Key)
	rt.newStream(j, o.MaxBatch)
	j.stream.credit = bus.NewCredit(min(rt.streamCredit, max(spawnCreditBatches*j.stream.maxBatch, 2*proc.BatchLines)))
	return rt.startProc(j, spec, 0)
}

// DispatchSystem runs a program to completion and settles with a
// SpawnResult holding its exit and output: stdout and stderr each keep at
// most maxOutput bytes (0 means DefaultMaxOutput; clamped to MaxMaxOutput), as written, with
// Truncated set if either lost bytes; the program is never blocked by the
// cap (the rest is read and dropped). Failures, cancellation and stdin are
// as for DispatchSpawn.
func (rt *Runtime) DispatchSystem(spec proc.Spec, maxOutput int, o DispatchOptions) JobID {
	if maxOutput <= 0 {
		maxOutput = DefaultMaxOutput
	}
	maxOutput = min(maxOutput, MaxMaxOutput)
	j := rt.newJob(KindSystem, o.Key)
	return rt.startProc(j, spec, maxOutput)
}

// SpawnWrite queues data for the standard input of a running spawn or
// system job dispatched with StdinPipe. It never blocks: the bytes are
// written by a goroutine of the job's own. When the queue holds more than
// StdinHighWater bytes after this write, it returns the id of a job that
// completes once the queue has drained below the mark (or fails with the
// write error, or is cancelled like any job); the caller should wait for it
// before writing more. It
// returns 0 when there is room. An error means nothing was queued: the job
// is unknown, has no stdin pipe, its stdin was closed, the program is gone
// (a write to it failed: "EPIPE"), the job ended, or the write would take
// the queue past StdinMaxQueued ("ENOBUFS", wrapping ErrStdinFull).
func (rt *Runtime) SpawnWrite(id JobID, data []byte) (JobID, error) {
	q, err := rt.stdinOf(id, "write")
	if err != nil {
		return 0, err
	}
	over, err := q.push(data)
	if err != nil || !over {
		return 0, err
	}
	w := rt.newJob(KindSpawnWrite, "")
	if !q.addWaiter(&w.t) {
		// Drained or failed meanwhile: nothing to wait for.
		rt.settleNow(w, q.failure())
		return w.id, nil
	}
	// Cancelling the wait (from *workers*, say) ends it at once; the
	// queued bytes stay queued.
	t := &w.t
	t.ctx.AfterFunc(func() {
		if q.removeWaiter(t) {
			t.send(reply{Kind: replyCancelled})
		}
	})
	return w.id, nil
}

// SpawnCloseStdin closes a spawn or system job's stdin once the queued
// writes are written, so the program sees end of input. Closing twice is
// not an error.
func (rt *Runtime) SpawnCloseStdin(id JobID) error {
	q, err := rt.stdinOf(id, "close_stdin")
	if err != nil {
		return err
	}
	q.closeInput()
	return nil
}

func (rt *Runtime) stdinOf(id JobID, op string) (*stdinQueue, error) {
	j := rt.pending[id]
	if j == nil || (j.kind != KindSpawn && j.kind != KindSystem) {
		return nil, &JobError{Message: fmt.Sprintf("%s: job %d is not a running spawn", op, id), Code: "EINVAL"}
	}
	name := jobName(j.kind, id)
	q := rt.spawns.stdin(id)
	if q == nil {
		if j.state != Running {
			return nil, &JobError{Message: name + ": " + op + ": the program has exited", Code: "EPIPE"}
		}
		return nil, &JobError{Message: name + ": " + op + ": stdin is not a pipe (spawn it with stdin = \"pipe\")", Code: "EINVAL"}
	}
	return q, nil
}

// settleNow settles a job without a worker: its reply goes on the bus like
// any other, so it settles at the next Tick.
func (rt *Runtime) settleNow(j *job, err error) {
	if err == nil {
		j.t.send(reply{Kind: replyUnit})
		return
	}
	j.t.send(reply{Kind: replyFailed, Msg: err.Error(), Code: proc.Code(err), err: err})
}

// startProc publishes the job to a goroutine that starts the program and
// follows it to the end.
func (rt *Runtime) startProc(j *job, spec proc.Spec, maxOutput int) JobID {
	if !rt.prepare(j) {
		return j.id
	}
	w := &j.t
	spec.Argv, spec.Env = slices.Clone(spec.Argv), slices.Clone(spec.Env) // nil Env stays nil: inherit
	var q *stdinQueue
	if spec.StdinPipe {
		q = newStdinQueue()
	}
	sp := rt.spawns.add(j.id, q)
	go func() {
		defer rt.spawns.remove(j.id)
		defer w.recoverPanic("the spawn goroutine")
		w.send(runProc(w, sp, spec, maxOutput))
	}()
	return j.id
}

// runProc runs the program and returns the job's terminal reply.
func runProc(w *Task, sp *spawnEntry, spec proc.Spec, maxOutput int) reply {
	ctx := &w.ctx
	var out *systemOutput
	if maxOutput > 0 {
		out = &systemOutput{max: maxOutput}
		spec.Lines = nil
		spec.Output = func(s proc.Stream, chunk []byte) (err error) {
			defer w.recoverOutput(&err)
			if spawnOutputHook != nil {
				spawnOutputHook()
			}
			return out.add(s, chunk)
		}
	} else {
		spec.Output = nil
		spec.Lines = func(ls []proc.Line) (err error) {
			defer w.recoverOutput(&err)
			if spawnOutputHook != nil {
				spawnOutputHook()
			}
			units := 0
			for i := range ls {
				units += lineWeight(len(ls[i].Text))
			}
			if err := w.credit.Acquire(ctx, units); err != nil {
				return err
			}
			w.send(reply{Kind: replyLines, rawLines: ls})
			return nil
		}
	}
	p, err := proc.Start(ctx, spec)
	if err != nil {
		if sp.stdin != nil {
			werr := err
			if ctx.Err() != nil {
				werr = &proc.Error{Op: "write", Code: "ECANCELED", Err: errors.New("the job was cancelled before the program started")}
			}
			sp.stdin.fail(werr)
		}
		return procFailure(ctx, err)
	}
	sp.started(p)
	ex, err := p.Wait()
	sp.wait()
	if err != nil {
		return procFailure(ctx, err)
	}
	res := &SpawnResult{Code: ex.Code, Signal: ex.Signal}
	if out != nil {
		res.Stdout, res.Stderr, res.Truncated = out.stdout.String(), out.stderr.String(), out.truncated
	}
	return reply{Kind: replyExit, Exit: res}
}

// recoverOutput is deferred by a spawn's output callbacks, which run on
// proc's reader goroutines: a panic there fails the job (which kills the
// program) and stops the reads, instead of ending the process.
func (w *Task) recoverOutput(err *error) {
	if p := recover(); p != nil {
		w.failPanic("the spawn output callback", p)
		*err = errPanicked
	}
}

// procFailure maps a start or wait error: Cancelled when the job was
// cancelled (the consumer's credit wait ends with the context too), Failed
// with proc's errno code otherwise.
func procFailure(ctx context.Context, err error) reply {
	if ctx.Err() != nil && !errors.Is(err, proc.ErrTimeout) {
		return reply{Kind: replyCancelled}
	}
	return reply{Kind: replyFailed, Msg: err.Error(), Code: proc.Code(err), err: err}
}

// systemOutput keeps a system job's output up to its cap.
type systemOutput struct {
	max            int
	stdout, stderr bytes.Buffer
	truncated      bool
}

func (o *systemOutput) add(s proc.Stream, chunk []byte) error {
	b := &o.stdout
	if s == proc.Stderr {
		b = &o.stderr
	}
	room := o.max - b.Len()
	if len(chunk) > room {
		chunk, o.truncated = chunk[:max(room, 0)], true
	}
	b.Write(chunk)
	return nil
}

// spawnTable is the runtime's record of its running programs: Close kills
// them all and waits for their goroutines. Entries are added on the main
// goroutine and removed by the job's own goroutine, hence the lock.
type spawnTable struct {
	mu     sync.Mutex
	byJob  map[JobID]*spawnEntry
	closed bool
	wg     sync.WaitGroup
}

// spawnEntry is one running program.
type spawnEntry struct {
	table *spawnTable
	stdin *stdinQueue // nil without a stdin pipe
	p     *proc.Process
	// writer is the stdin writer goroutine, waited for before the job's
	// terminal reply so the write jobs it settles come first.
	writer sync.WaitGroup
}

func (t *spawnTable) add(id JobID, q *stdinQueue) *spawnEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byJob == nil {
		t.byJob = make(map[JobID]*spawnEntry)
	}
	e := &spawnEntry{table: t, stdin: q}
	t.byJob[id] = e
	t.wg.Add(1)
	return e
}

func (t *spawnTable) remove(id JobID) {
	t.mu.Lock()
	delete(t.byJob, id)
	t.mu.Unlock()
	t.wg.Done()
}

func (t *spawnTable) stdin(id JobID) *stdinQueue {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.byJob[id]; e != nil {
		return e.stdin
	}
	return nil
}

// started records the process, killing it at once if the runtime closed
// while it was starting, and starts the stdin writer.
func (e *spawnEntry) started(p *proc.Process) {
	e.table.mu.Lock()
	e.p = p
	closed := e.table.closed
	e.table.mu.Unlock()
	if closed {
		p.Kill()
	}
	if e.stdin != nil {
		e.writer.Go(func() { e.stdin.run(p) })
	}
}

func (e *spawnEntry) wait() { e.writer.Wait() }

// kill kills every running program's tree without a grace period (proc's
// Kill), and any program still starting as soon as it has started.
func (t *spawnTable) kill() {
	t.mu.Lock()
	t.closed = true
	for _, e := range t.byJob {
		if e.p != nil {
			e.p.Kill()
		}
	}
	t.mu.Unlock()
}

// wait waits until every program has been reaped and its job has sent its
// last reply: proc bounds each.
func (t *spawnTable) wait() { t.wg.Wait() }
