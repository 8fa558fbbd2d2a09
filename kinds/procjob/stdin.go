package procjob

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// stdinQueue carries a spawn's stdin writes from the main goroutine, which
// must never block on a full pipe, to a writer goroutine that may.
type stdinQueue struct {
	mu      sync.Mutex
	chunks  [][]byte
	queued  int
	waiters []*runtime.Task // write-wait jobs to settle once queued <= StdinHighWater
	closing bool            // close the pipe once the queue is written
	err     error           // the write failure; the queue then takes nothing more
	wake    chan struct{}
}

func newStdinQueue() *stdinQueue { return &stdinQueue{wake: make(chan struct{}, 1)} }

// ErrStdinFull is the cause of a Write refused because the program has
// left StdinMaxQueued bytes unread (code "ENOBUFS").
var ErrStdinFull = errors.New("procjob: the program's input queue is full")

// push queues a copy of data and reports whether the queue is now over the
// high-water mark. A write that would take the queue past StdinMaxQueued
// queues nothing and fails.
func (q *stdinQueue) push(data []byte) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return false, q.err
	}
	if q.closing {
		return false, &proc.Error{Op: "write", Code: "EPIPE", Err: errors.New("stdin is closed")}
	}
	if q.queued+len(data) > StdinMaxQueued {
		return false, &proc.Error{Op: "write", Code: "ENOBUFS", Err: fmt.Errorf(
			"%w: %d bytes wait for the program to read them, and these %d would pass the limit of %d; nothing was queued (wait until the program has read some)",
			ErrStdinFull, q.queued, len(data), StdinMaxQueued)}
	}
	if len(data) > 0 {
		q.chunks = append(q.chunks, append([]byte(nil), data...))
		q.queued += len(data)
		q.signal()
	}
	return q.queued > StdinHighWater, nil
}

// addWaiter registers a write-wait job; false if there is nothing to wait
// for any more (the queue drained or failed).
func (q *stdinQueue) addWaiter(t *runtime.Task) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil || q.queued <= StdinHighWater {
		return false
	}
	q.waiters = append(q.waiters, t)
	return true
}

// removeWaiter takes t off the waiters; false if it was settled already.
func (q *stdinQueue) removeWaiter(t *runtime.Task) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, x := range q.waiters {
		if x == t {
			q.waiters = append(q.waiters[:i], q.waiters[i+1:]...)
			return true
		}
	}
	return false
}

func (q *stdinQueue) failure() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

func (q *stdinQueue) closeInput() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closing = true
	q.signal()
}

func (q *stdinQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// fail ends the queue with err (the program never started, or is gone),
// failing every waiter.
func (q *stdinQueue) fail(err error) {
	q.mu.Lock()
	if q.err == nil {
		q.err = err
	}
	q.chunks, q.queued = nil, 0
	waiters := q.waiters
	q.waiters = nil
	q.mu.Unlock()
	for _, t := range waiters {
		t.Finish(nil, jobError(err))
	}
}

// run writes the queue into the program's stdin until the caller closes it,
// a write fails or the program has exited.
func (q *stdinQueue) run(p *proc.Process) {
	in := p.Stdin()
	for {
		q.mu.Lock()
		var chunk []byte
		if len(q.chunks) > 0 {
			chunk = q.chunks[0]
			q.chunks[0] = nil
			q.chunks = q.chunks[1:]
		}
		closing, failed := q.closing, q.err != nil
		q.mu.Unlock()
		if failed {
			return
		}
		if chunk == nil {
			if closing {
				_ = in.Close()
				return
			}
			select {
			case <-q.wake:
				continue
			case <-p.Done():
				q.fail(exitedError())
				return
			}
		}
		if _, err := in.Write(chunk); err != nil {
			if errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) {
				err = exitedError()
			} else {
				err = &proc.Error{Op: "write", Code: proc.Code(err), Err: err}
			}
			q.fail(err)
			return
		}
		q.mu.Lock()
		q.queued -= len(chunk)
		var ready []*runtime.Task
		if q.queued <= StdinHighWater {
			ready, q.waiters = q.waiters, nil
		}
		q.mu.Unlock()
		for _, t := range ready {
			t.Finish(nil, nil)
		}
	}
}

// exitedError is why a write to a program that has ended fails.
func exitedError() error {
	return &proc.Error{Op: "write", Code: "EPIPE", Err: fmt.Errorf("the program has exited: %w", errPipe)}
}

var errPipe = errors.New("broken pipe")
