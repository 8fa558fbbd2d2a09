// Package procjob is the process kind: spawn (a program's output lines as
// a stream) and system (a program run to completion, its output
// collected), with a stdin queue that never blocks the main goroutine.
//
// A program may run for the editor's whole session (a language server, a
// watch build), so it runs on proc's goroutines, as a detached job, and
// holds no worker slot and no actor gate. The kind keeps a lock-guarded
// table of the running programs per runtime, for stdin writes and for
// Close, which kills every program's tree at once (its group and every
// descendant proc finds, setsid grandchildren included) while the pool
// stops, and waits for each job's last reply. Cancel, supersede and a
// timeout end the tree too, with SIGTERM first. A program's stdin queue
// asks its writer to wait past StdinHighWater (1 MiB) and refuses a write
// past StdinMaxQueued (64 MiB, ENOBUFS): a writer that does not wait cannot
// grow it without limit.
package procjob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// The kinds: a program as a stream, a program run to completion, and the
// wait for a program's stdin queue to drain.
var (
	SpawnKind  = runtime.RegisterKind(runtime.KindSpec{Name: "spawn", Items: linesCodec{}, Value: resultCodec{}, Summary: exitSummary})
	SystemKind = runtime.RegisterKind(runtime.KindSpec{Name: "system", Value: resultCodec{}, Summary: systemSummary})
	WriteKind  = runtime.RegisterKind(runtime.KindSpec{Name: "spawn_write"})
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

// Line is one line of a spawn job's output: a stream item.
type Line struct {
	// Stream is proc.Stdout or proc.Stderr.
	Stream proc.Stream
	// Text is the line without its newline, bytes as written.
	Text string
	// Partial marks a last line without a newline; Truncated a line cut
	// to the spec's MaxLine.
	Partial, Truncated bool
}

// Result is a spawn or system job's value: how the program ended and, for
// system, its output.
type Result struct {
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

// ResultOf is a spawn or system job's result.
func ResultOf(o runtime.Outcome) (Result, bool) {
	v, ok := o.Value()
	r, is := v.(Result)
	return r, ok && is
}

// LinesOf returns a spawn batch's lines; nil for a batch of another kind.
func LinesOf(b runtime.StreamBatch) Lines {
	v, _ := b.Items.(Lines)
	return v
}

// Spawn runs a program as a stream job: the items are its output lines
// (Lines) and the value is a Result once it has exited and every line has
// been delivered. A non-zero exit is a value, not a failure. A program that
// cannot start fails with proc's message and errno code ("ENOENT",
// "EACCES", ...), and spec.Timeout fails it with "ETIMEDOUT".
//
// Lines are taken from the pipes under the stream's credit: once the
// consumer is a credit's worth behind, the pipe is not read and the program
// blocks on its next write. A line costs one unit of credit per started
// 4 KiB of its text. A spawn's credit is four of its batches (at least two
// of proc's) or the runtime's stream credit if that is smaller, so a flood
// costs a Tick a few frames' lines at most. Cancel, supersede and
// spec.Timeout stop the program's whole tree (SIGTERM to its group and
// every descendant proc finds, SIGKILL after spec.KillGrace); Close kills
// every tree at once. The program runs on proc's goroutines, not on a
// worker, so a long-lived process holds no worker slot and no actor gate.
//
// spec stays the caller's: its Lines and Output are set on a copy. With
// spec.StdinPipe, feed the program with Write and CloseStdin.
func Spawn(rt *runtime.Runtime, spec proc.Spec, o runtime.DispatchOptions) runtime.JobID {
	return start(rt, SpawnKind, spec, 0, o)
}

// System runs a program to completion and settles with a Result holding
// its exit and output: stdout and stderr each keep at most maxOutput bytes
// (0 means DefaultMaxOutput; clamped to MaxMaxOutput), as written, with
// Truncated set if either lost bytes; the program is never blocked by the
// cap (the rest is read and dropped). Failures, cancellation and stdin are
// as for Spawn.
func System(rt *runtime.Runtime, spec proc.Spec, maxOutput int, o runtime.DispatchOptions) runtime.JobID {
	if maxOutput <= 0 {
		maxOutput = DefaultMaxOutput
	}
	return start(rt, SystemKind, spec, min(maxOutput, MaxMaxOutput), o)
}

// Write queues data for the standard input of a running spawn or system
// job dispatched with StdinPipe. It never blocks: the bytes are written by
// a goroutine of the job's own. When the queue holds more than
// StdinHighWater bytes after this write, it returns the id of a job that
// completes once the queue has drained below the mark (or fails with the
// write error, or is cancelled like any job); the caller should wait for it
// before writing more. It returns 0 when there is room. An error means
// nothing was queued: the job is unknown, has no stdin pipe, its stdin was
// closed, the program is gone (a write to it failed: "EPIPE"), the job
// ended, or the write would take the queue past StdinMaxQueued ("ENOBUFS",
// wrapping ErrStdinFull).
func Write(rt *runtime.Runtime, id runtime.JobID, data []byte) (runtime.JobID, error) {
	q, err := stdinOf(rt, id, "write")
	if err != nil {
		return 0, err
	}
	over, err := q.push(data)
	if err != nil || !over {
		return 0, err
	}
	return rt.Start(runtime.Job{Kind: WriteKind, Attach: func(t *runtime.Task) {
		if !q.addWaiter(t) {
			// Drained or failed meanwhile: nothing to wait for.
			t.Finish(nil, jobError(q.failure()))
			return
		}
		// Cancelling the wait (from *workers*, say) ends it at once; the
		// queued bytes stay queued.
		context.AfterFunc(t.Context(), func() {
			if q.removeWaiter(t) {
				t.Finish(nil, context.Canceled)
			}
		})
	}}, runtime.DispatchOptions{}), nil
}

// CloseStdin closes a spawn or system job's stdin once the queued writes
// are written, so the program sees end of input. Closing twice is not an
// error.
func CloseStdin(rt *runtime.Runtime, id runtime.JobID) error {
	q, err := stdinOf(rt, id, "close_stdin")
	if err != nil {
		return err
	}
	q.closeInput()
	return nil
}

func stdinOf(rt *runtime.Runtime, id runtime.JobID, op string) (*stdinQueue, error) {
	kind, state, ok := rt.Lookup(id)
	if !ok || (kind != SpawnKind && kind != SystemKind) {
		return nil, &runtime.JobError{Message: fmt.Sprintf("%s: job %d is not a running spawn", op, id), Code: "EINVAL"}
	}
	name := fmt.Sprintf("%s#%d", kind, id)
	q := tableOf(rt).stdin(id)
	if q == nil {
		if state != runtime.Running {
			return nil, &runtime.JobError{Message: name + ": " + op + ": the program has exited", Code: "EPIPE"}
		}
		return nil, &runtime.JobError{Message: name + ": " + op + ": stdin is not a pipe (spawn it with stdin = \"pipe\")", Code: "EINVAL"}
	}
	return q, nil
}

// jobError is a process error as a job's failure, with proc's errno name
// as its code; nil stays nil.
func jobError(err error) error {
	if err == nil {
		return nil
	}
	return &runtime.JobError{Message: err.Error(), Code: proc.Code(err), Err: err}
}

// start publishes the job to a goroutine of its own that starts the
// program and follows it to the end.
func start(rt *runtime.Runtime, kind runtime.Kind, spec proc.Spec, maxOutput int, o runtime.DispatchOptions) runtime.JobID {
	spec.Argv, spec.Env = slices.Clone(spec.Argv), slices.Clone(spec.Env) // nil Env stays nil: inherit
	table := tableOf(rt)
	var sp *spawnEntry
	job := runtime.Job{Kind: kind, Detached: true,
		Prepare: func(t *runtime.Task) {
			var q *stdinQueue
			if spec.StdinPipe {
				q = newStdinQueue()
			}
			sp = table.add(t.ID(), q)
		},
		Run: func(ctx context.Context, t *runtime.Task) (any, error) {
			defer table.remove(t.ID())
			return runProc(ctx, t, sp, spec, maxOutput)
		}}
	if kind == SpawnKind {
		job.Stream = true
		job.Credit = func(maxBatch int) int { return max(spawnCreditBatches*maxBatch, 2*proc.BatchLines) }
	}
	return rt.Start(job, o)
}

// runProc runs the program and returns the job's value or failure.
func runProc(ctx context.Context, w *runtime.Task, sp *spawnEntry, spec proc.Spec, maxOutput int) (any, error) {
	var out *systemOutput
	if maxOutput > 0 {
		out = &systemOutput{max: maxOutput}
		spec.Lines = nil
		spec.Output = func(s proc.Stream, chunk []byte) (err error) {
			defer recoverOutput(w, &err)
			if spawnOutputHook != nil {
				spawnOutputHook()
			}
			return out.add(s, chunk)
		}
	} else {
		spec.Output = nil
		spec.Lines = func(ls []proc.Line) (err error) {
			defer recoverOutput(w, &err)
			if spawnOutputHook != nil {
				spawnOutputHook()
			}
			raw := rawLines(ls)
			if err := w.Acquire(ctx, raw.Weight()); err != nil {
				return err
			}
			w.SendAcquired(raw)
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
		return nil, procFailure(ctx, err)
	}
	sp.started(p)
	ex, err := p.Wait()
	sp.wait()
	if err != nil {
		return nil, procFailure(ctx, err)
	}
	res := Result{Code: ex.Code, Signal: ex.Signal}
	if out != nil {
		res.Stdout, res.Stderr, res.Truncated = out.stdout.String(), out.stderr.String(), out.truncated
	}
	return res, nil
}

// errPanicked is what an output callback returns to proc after recovering
// a panic, so the reads stop; the job's outcome carries the panic itself.
var errPanicked = errors.New("procjob: an output callback panicked")

// spawnOutputHook, when set by a test, is called in every output callback,
// on a proc reader goroutine, where a panic would hurt most.
var spawnOutputHook func()

// recoverOutput is deferred by a spawn's output callbacks, which run on
// proc's reader goroutines: a panic there fails the job (which kills the
// program) and stops the reads, instead of ending the process.
func recoverOutput(w *runtime.Task, err *error) {
	if p := recover(); p != nil {
		w.FailPanic("the spawn output callback", p)
		*err = errPanicked
	}
}

// procFailure maps a start or wait error: cancelled when the job was
// cancelled (the consumer's credit wait ends with the context too), failed
// with proc's errno code otherwise.
func procFailure(ctx context.Context, err error) error {
	if ctx.Err() != nil && !errors.Is(err, proc.ErrTimeout) {
		return context.Canceled
	}
	return jobError(err)
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

// spawnTable is a runtime's record of its running programs, kept as this
// kind's state: Close kills them all (Kill), and waits for their
// goroutines as for every detached job. Entries are added on the main
// goroutine and removed by the job's own goroutine, hence the lock.
type spawnTable struct {
	mu     sync.Mutex
	byJob  map[runtime.JobID]*spawnEntry
	closed bool
}

// tableOf returns rt's table, made on first use.
func tableOf(rt *runtime.Runtime) *spawnTable {
	return runtime.StateOf(rt, SpawnKind, func() *spawnTable { return &spawnTable{} })
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

func (t *spawnTable) add(id runtime.JobID, q *stdinQueue) *spawnEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byJob == nil {
		t.byJob = make(map[runtime.JobID]*spawnEntry)
	}
	e := &spawnEntry{table: t, stdin: q}
	t.byJob[id] = e
	return e
}

func (t *spawnTable) remove(id runtime.JobID) {
	t.mu.Lock()
	delete(t.byJob, id)
	t.mu.Unlock()
}

func (t *spawnTable) stdin(id runtime.JobID) *stdinQueue {
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

// Kill kills every running program's tree without a grace period (proc's
// Kill), and any program still starting as soon as it has started. The
// runtime's Close calls it before the worker pool stops.
func (t *spawnTable) Kill() {
	t.mu.Lock()
	t.closed = true
	for _, e := range t.byJob {
		if e.p != nil {
			e.p.Kill()
		}
	}
	t.mu.Unlock()
}
