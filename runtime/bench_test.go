package runtime

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/workers"
)

// percentile returns the p-th percentile (0..100) of ds, sorting it.
func percentile(ds []time.Duration, p float64) time.Duration {
	slices.Sort(ds)
	i := int(float64(len(ds)-1) * p / 100)
	return ds[i]
}

// roundTrip waits for id to settle the way the editor loop does: select on
// Ready, Tick.
func roundTrip(rt *Runtime, id JobID) {
	for !rt.IsComplete(id) {
		<-rt.Ready()
		rt.Tick()
	}
	rt.TakeResult(id)
}

// BenchmarkDispatchSettle times dispatch -> executor -> bus -> Tick of a
// no-op job (one that completes with 0), p50 and p99, against a bare goroutine-pool
// round trip measured in the same run (issue 2: goal p50 at most 3x bare).
func BenchmarkDispatchSettle(b *testing.B) {
	rt, err := New(Options{})
	require.NoError(b, err)
	defer rt.Close()
	for range 1000 { // warm the pools
		roundTrip(rt, rt.startValue(0, DispatchOptions{}))
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := monoNow()
		roundTrip(rt, rt.startValue(0, DispatchOptions{}))
		lat = append(lat, monoNow().sub(start))
	}
	b.StopTimer()
	bare := bareRoundTrips(b.N)
	p50, p99 := percentile(lat, 50), percentile(lat, 99)
	b50, b99 := percentile(bare, 50), percentile(bare, 99)
	b.ReportMetric(float64(p50.Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(p99.Nanoseconds()), "p99-ns")
	b.ReportMetric(float64(b50.Nanoseconds()), "bare-p50-ns")
	b.ReportMetric(float64(b99.Nanoseconds()), "bare-p99-ns")
	b.ReportMetric(float64(p50)/float64(b50), "p50-ratio")
}

// bareRoundTrips is the baseline: a goroutine pool fed by one channel that
// answers on another, the least any worker pool can cost.
func bareRoundTrips(n int) []time.Duration {
	jobs := make(chan func() int)
	replies := make(chan int, 1)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) * 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range jobs {
				replies <- f()
			}
		}()
	}
	noop := func() int { return 0 }
	for range 1000 {
		jobs <- noop
		<-replies
	}
	lat := make([]time.Duration, 0, n)
	for range n {
		start := monoNow()
		jobs <- noop
		<-replies
		lat = append(lat, monoNow().sub(start))
	}
	close(jobs)
	wg.Wait()
	return lat
}

// BenchmarkStreamItemMainCost measures the main goroutine's cost per stream
// item: Tick's decode and buffering plus TakeStreamBatches, with producers'
// envelopes of envelopeInts integers already on the bus (issue 2: goal at most
// 150 ns per item). The channel baseline is a struct per item over a Go
// channel, reported alongside.
func BenchmarkStreamItemMainCost(b *testing.B) {
	const envelopeInts = 256 // an emit_n producer's batch
	rt, err := New(Options{StreamCredit: MaxStreamCredit})
	require.NoError(b, err)
	defer rt.Close()
	j := rt.newJob(testIntsKind, "")
	rt.newStream(j, MaxMaxBatch)
	items := make([]uint64, envelopeInts)
	for i := range items {
		items[i] = uint64(i)
	}
	env, err := rt.main.Registry().Encode(replyTopic, intsReply(j.t.id, items...))
	require.NoError(b, err)
	const envelopesPerRound = 64
	perRound := envelopesPerRound * envelopeInts
	rounds := max(b.N/perRound, 1)
	var mainTime time.Duration
	delivered := 0
	for range rounds {
		for range envelopesPerRound {
			require.NoError(b, j.stream.credit.Acquire(context.Background(), envelopeInts))
			require.NoError(b, rt.wbus.SendEnvelope(env))
		}
		start := time.Now()
		rt.Tick()
		for _, bt := range rt.TakeStreamBatches() {
			delivered += bt.Len()
		}
		mainTime += time.Since(start)
	}
	require.Equal(b, rounds*perRound, delivered)
	b.ReportMetric(float64(mainTime.Nanoseconds())/float64(delivered), "main-ns/item")
	b.ReportMetric(channelNsPerItem(delivered), "chan-ns/item")
}

// channelNsPerItem is the baseline: one struct per item over a buffered Go
// channel from a producer goroutine, timed at the consumer.
func channelNsPerItem(n int) float64 {
	type item struct{ job, v uint64 }
	ch := make(chan item, 1024)
	go func() {
		for i := range n {
			ch <- item{1, uint64(i)}
		}
		close(ch)
	}()
	start := time.Now()
	var sum uint64
	for it := range ch {
		sum += it.v
	}
	_ = sum
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

// BenchmarkTickIdleWith10kRunningJobs: Tick with 10,000 running jobs and
// nothing on the bus (issue 2: goal under 20 us).
func BenchmarkTickIdleWith10kRunningJobs(b *testing.B) {
	rt, err := New(Options{})
	require.NoError(b, err)
	defer rt.Close()
	for range 10_000 {
		rt.RegisterExternal(kindReply, "")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rt.Tick()
	}
}

// BenchmarkSupersedeCancelLatency: from a new dispatch under a key to the
// predecessor's worker observing its context end, p99 (issue 2: goal 1 ms).
func BenchmarkSupersedeCancelLatency(b *testing.B) {
	rt, err := New(Options{})
	require.NoError(b, err)
	defer rt.Close()
	started := make(chan struct{}, 1)
	observed := make(chan time.Time, 1)
	waiter := func(ctx context.Context, _ *Task) reply {
		started <- struct{}{}
		<-ctx.Done()
		observed <- time.Now()
		return reply{Kind: replyCancelled}
	}
	dispatch := func() {
		rt.start(rt.newJob(testKind, "k"), BuiltinActor, workers.LaneRead, waiter)
	}
	dispatch()
	<-started
	lat := make([]time.Duration, 0, b.N)
	for range b.N {
		t0 := time.Now()
		dispatch()
		lat = append(lat, (<-observed).Sub(t0))
		<-started
		rt.Tick()
		for _, id := range slicesOfSettled(rt) {
			rt.TakeResult(id)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 50).Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(percentile(lat, 99).Nanoseconds()), "p99-ns")
	id, _ := rt.ActiveForKey("k")
	rt.Cancel(id)
	<-observed
}

func slicesOfSettled(rt *Runtime) []JobID {
	var ids []JobID
	for j := range rt.pending.all() {
		if j.state != Running {
			ids = append(ids, j.t.id)
		}
	}
	return ids
}

// BenchmarkDispatchCancelMillion runs 1,000,000 dispatch/cancel cycles and
// checks the tables are empty and the heap is back within 1 MiB of where it
// started (issue 2). Run it with -benchtime=1x.
func BenchmarkDispatchCancelMillion(b *testing.B) {
	const cycles = 1_000_000
	rt, err := New(Options{})
	require.NoError(b, err)
	defer rt.Close()
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	// Warm up so pools and the completion ring reach their steady size.
	for range 10_000 {
		cycle(rt)
	}
	before := heap()
	start := time.Now()
	for range cycles {
		cycle(rt)
	}
	elapsed := time.Since(start)
	after := heap()
	require.Zero(b, rt.PendingLen())
	require.Zero(b, rt.SupersedeLen())
	growth := int64(after) - int64(before)
	b.ReportMetric(float64(growth), "heap-growth-B")
	b.ReportMetric(float64(elapsed.Nanoseconds())/cycles, "ns/cycle")
	require.Less(b, growth, int64(1<<20), "heap grew by %d bytes over %d cycles", growth, cycles)
}

// cycle starts a keyed job, cancels it and takes its outcome.
func cycle(rt *Runtime) {
	id := rt.startUntilCancelled(DispatchOptions{Key: "churn"})
	rt.Cancel(id)
	roundTrip(rt, id)
}

// BenchmarkTickFlood10k: one Tick settling 10,000 replies plus TakeResult of
// each, the runtime's share of a frame in which 10,000 Lua tasks resume.
func BenchmarkTickFlood10k(b *testing.B) {
	benchTickFlood(b, func(rt *Runtime) TickOutcome { return rt.Tick() })
}

// BenchmarkTickWithinFlood10k is BenchmarkTickFlood10k through TickWithin
// with a deadline that never comes: the difference is the cost of reading
// the clock every 64 replies.
func BenchmarkTickWithinFlood10k(b *testing.B) {
	far := TickLimit{Deadline: time.Now().Add(time.Hour)}
	benchTickFlood(b, func(rt *Runtime) TickOutcome { return rt.TickWithin(far) })
}

func benchTickFlood(b *testing.B, tick func(*Runtime) TickOutcome) {
	rt, err := New(Options{})
	require.NoError(b, err)
	defer rt.Close()
	const n = 10_000
	ids := make([]JobID, n)
	var tickTime time.Duration
	for range b.N {
		for i := range ids {
			ids[i], _ = rt.RegisterExternal(kindReply, "")
			require.NoError(b, rt.wbus.Send(replyTopic, &reply{Job: ids[i], Kind: replySum, N: uint64(i)}))
		}
		start := monoNow()
		out := tick(rt)
		for _, id := range out.Settled {
			rt.TakeResult(id)
		}
		tickTime += monoNow().sub(start)
		require.Len(b, out.Settled, n)
	}
	b.ReportMetric(float64(tickTime.Microseconds())/float64(b.N), "us/frame")
	b.ReportMetric(float64(tickTime.Nanoseconds())/float64(b.N*n), "ns/reply")
}
