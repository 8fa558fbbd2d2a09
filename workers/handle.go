package workers

import "time"

// Result is a job's outcome: the job's own return values, or an *Error from
// the executor (with a nil Value) when the job could not run or failed inside
// the executor.
type Result struct {
	Value any
	Err   error
}

// Handle is the synchronous completion of a Submit or SubmitShared.
//
// Recv and RecvTimeout may be called any number of times, from any goroutine,
// before or after the job settles; they all see the same Result. The channel
// returned by Done carries that Result exactly once: use it in a select, and
// Recv afterwards if the value is needed again.
type Handle struct {
	ready chan struct{} // closed once res is set
	res   Result
	ch    chan Result // buffered 1, so settling never blocks
}

func newHandle() *Handle {
	return &Handle{ready: make(chan struct{}), ch: make(chan Result, 1)}
}

// settle is called exactly once, by whoever settles the job.
func (h *Handle) settle(r Result) {
	h.res = r
	close(h.ready)
	h.ch <- r
}

// Recv blocks until the job settles and returns its Result.
func (h *Handle) Recv() Result {
	<-h.ready
	return h.res
}

// RecvTimeout waits at most d for the job to settle. The boolean is false,
// with a zero Result, if it did not settle in time; the job keeps running.
func (h *Handle) RecvTimeout(d time.Duration) (Result, bool) {
	select {
	case <-h.ready:
		return h.res, true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-h.ready:
		return h.res, true
	case <-t.C:
		return Result{}, false
	}
}

// Done returns a channel that receives the Result once, when the job settles.
func (h *Handle) Done() <-chan Result { return h.ch }

// completion is where a job's Result goes; exactly one field is set, or none
// for a caller that wants no result.
type completion struct {
	fn func(Result)
	ch chan<- Result
	h  *Handle
}
