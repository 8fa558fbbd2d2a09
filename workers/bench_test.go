package workers

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// The runtime's goal: dispatch -> settle of a no-op job through the executor
// at most 3x a bare goroutine-pool round trip at p50. Both sides below do the
// same two hand-offs (caller -> worker, worker -> caller) and time each
// operation the same way, so their ratio is the executor's overhead.

var noop Job = func(context.Context, Actor) (any, error) { return nil, nil }

// executorRoundTrip submits one no-op job and waits for its Done's send; it
// is the path the runtime uses, with a context as cheap as the runtime's
// (a pointer to a struct that is a context).
type executorRoundTrip struct {
	e     *Executor
	ctx   context.Context
	reply chan Result
	task  Task
}

func newExecutorRoundTrip() *executorRoundTrip {
	rt := &executorRoundTrip{e: New(Config{}), reply: make(chan Result, 1)}
	rt.ctx = &liveCtx{context.Background()}
	rt.e.RegisterActor("bench")
	rt.task = Task{Actor: "bench", Lane: LaneRead, Name: "noop", Run: noop,
		Done: func(r Result) { rt.reply <- r }}
	return rt
}

func (rt *executorRoundTrip) do() {
	rt.e.Submit(rt.ctx, rt.task)
	<-rt.reply
}

// liveCtx is a context that never ends, as a pointer: converting it to
// context.Context allocates nothing, like the runtime's job context.
// context.Background() would do as well, but would hide the cost of an Err
// call through an interface on a context the executor has never seen.
type liveCtx struct{ context.Context }

func (*liveCtx) Err() error { return nil }

// barePool is the baseline: a plain goroutine pool, a jobs channel in and a
// reply channel out, as many workers as the executor has.
type barePool struct {
	jobs  chan func()
	reply chan struct{}
	wg    sync.WaitGroup
	job   func()
}

func newBarePool(workers int) *barePool {
	p := &barePool{jobs: make(chan func(), workers), reply: make(chan struct{}, 1)}
	p.job = func() { p.reply <- struct{}{} }
	p.wg.Add(workers)
	for range workers {
		go func() {
			defer p.wg.Done()
			for f := range p.jobs {
				f()
			}
		}()
	}
	return p
}

func (p *barePool) do() {
	p.jobs <- p.job
	<-p.reply
}

func (p *barePool) close() {
	close(p.jobs)
	p.wg.Wait()
}

func timed(do func()) time.Duration {
	t0 := time.Now()
	do()
	return time.Since(t0)
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(p*float64(len(sorted)-1))]
}

// reportLatency adds p50 and p99 (ns) of the per-operation latencies to b.
func reportLatency(b *testing.B, prefix string, lat []time.Duration) (p50 time.Duration) {
	slices.Sort(lat)
	p50 = percentile(lat, 0.50)
	b.ReportMetric(float64(p50.Nanoseconds()), prefix+"p50-ns")
	b.ReportMetric(float64(percentile(lat, 0.99).Nanoseconds()), prefix+"p99-ns")
	return p50
}

func BenchmarkSubmitRoundTrip(b *testing.B) {
	rt := newExecutorRoundTrip()
	defer rt.e.Close()
	for range 1000 {
		rt.do() // warm the queue buffer and the workers
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		lat = append(lat, timed(rt.do))
	}
	b.StopTimer()
	reportLatency(b, "", lat)
}

func BenchmarkBarePoolRoundTrip(b *testing.B) {
	p := newBarePool(Config{}.Effective().PoolSize)
	defer p.close()
	for range 1000 {
		p.do()
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		lat = append(lat, timed(p.do))
	}
	b.StopTimer()
	reportLatency(b, "", lat)
}

// BenchmarkRoundTripRatio alternates one executor and one bare round trip in
// the same run, so both see the same machine state, and reports the ratio of
// their p50s (the goal is at most 3).
func BenchmarkRoundTripRatio(b *testing.B) {
	rt := newExecutorRoundTrip()
	defer rt.e.Close()
	p := newBarePool(rt.e.Config().PoolSize)
	defer p.close()
	for range 1000 {
		rt.do()
		p.do()
	}
	exec := make([]time.Duration, 0, b.N)
	bare := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		exec = append(exec, timed(rt.do))
		bare = append(bare, timed(p.do))
	}
	b.StopTimer()
	e50 := reportLatency(b, "exec-", exec)
	b50 := reportLatency(b, "bare-", bare)
	if b50 > 0 {
		b.ReportMetric(float64(e50)/float64(b50), "p50-ratio")
	}
}

// BenchmarkSubmitThroughput measures a busy pool: many jobs in flight from
// several actors, the case where a finishing worker admits its own next job.
func BenchmarkSubmitThroughput(b *testing.B) {
	e := New(Config{})
	defer e.Close()
	ids := []ActorID{"a", "b", "c", "d"}
	for _, id := range ids {
		e.RegisterActor(id)
	}
	var wg sync.WaitGroup
	done := func(Result) { wg.Done() }
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	wg.Add(b.N)
	for i := range b.N {
		e.Submit(ctx, Task{Actor: ids[i&3], Lane: LaneRead, Name: "noop", Run: noop, Done: done})
	}
	wg.Wait()
}
