package runtime_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/fsjob"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// soakTracker checks that every job settles exactly once and that every
// stream closes exactly once, after its settle.
type soakTracker struct {
	t        *testing.T
	live     map[runtime.JobID]runtime.Kind // dispatched, not yet settled
	settled  map[runtime.JobID]bool         // settled, not yet taken (request/reply) or closed (stream)
	streams  map[runtime.JobID]bool         // dispatched streams not yet closed
	held     map[runtime.JobID]*soakHold    // streams held by HoldStream
	external []runtime.JobID                // external jobs still pending
	done     int                            // jobs taken or closed
	states   map[runtime.State]int
}

// soakHold is how a held stream is consumed: undrained until a countdown
// ends and it is cancelled, or drained slowly, one batch every few frames.
type soakHold struct {
	slow bool
	n    int // frames until the next release (slow) or the cancel (undrained)
}

func (k *soakTracker) dispatched(id runtime.JobID, kind runtime.Kind, stream bool) {
	_, dup := k.live[id]
	require.False(k.t, dup, "job id %d reused", id)
	k.live[id] = kind
	if stream {
		k.streams[id] = true
	}
}

func (k *soakTracker) tick(out runtime.TickOutcome) {
	for _, id := range out.Settled {
		_, ok := k.live[id]
		require.True(k.t, ok, "job %d settled twice, or was never dispatched", id)
		delete(k.live, id)
		k.settled[id] = true
	}
}

func (k *soakTracker) closed(b runtime.StreamBatch) {
	require.True(k.t, k.streams[b.ID], "stream %d closed twice, or is not a stream", b.ID)
	require.True(k.t, k.settled[b.ID], "stream %d closed before it settled", b.ID)
	delete(k.streams, b.ID)
	delete(k.settled, b.ID)
	delete(k.held, b.ID)
	k.done++
	k.states[b.Outcome.State]++
}

// soakFigures are what a soak reports.
type soakFigures struct {
	duration       time.Duration
	jobs, frames   int
	peakGoroutines int
	peakHeap       uint64
	baseGoroutines int
	baseHeap       uint64
	endHeap        uint64
	states         map[runtime.State]int
	malformed      uint64
}

// TestSoakRandomJobMixFromGo runs, for PMACS_SOAK, a random mix of
// dispatch, cancel, supersede, streams nobody drains, streams drained
// slowly, external jobs, filesystem mutations in a temporary root, greps,
// parses and malformed replies, checking every frame that each job settles
// exactly once and that an undrained stream holds no more than its credit;
// at the end the pending, supersede and parse-handoff tables are empty and
// goroutines and heap are back to their baseline (issue 8: soak).
func TestSoakRandomJobMixFromGo(t *testing.T) {
	limit := testenv.SoakDuration(t)
	const credit = 2000
	root := t.TempDir()
	writeSoakTree(t, root)

	baseG, baseHeap := goruntime.NumGoroutine(), testenv.HeapAfterGC()
	rt, err := runtime.New(runtime.Options{Executor: workers.Config{PoolSize: 4}, StreamCredit: credit})
	require.NoError(t, err)
	_, err = rt.RegisterRoot(root)
	require.NoError(t, err)

	k := &soakTracker{t: t, live: map[runtime.JobID]runtime.Kind{}, settled: map[runtime.JobID]bool{}, streams: map[runtime.JobID]bool{},
		held: map[runtime.JobID]*soakHold{}, states: map[runtime.State]int{}}
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	fig := soakFigures{baseGoroutines: baseG, baseHeap: baseHeap, states: k.states}
	start := time.Now()
	nextMem := start
	luaSrc := []byte("local x = 1\nfor i = 1, 10 do x = x + i end\nreturn x\n")

	for time.Since(start) < limit {
		fig.frames++
		for range rng.IntN(5) {
			key := ""
			if rng.IntN(3) == 0 {
				key = fmt.Sprintf("k%d", rng.IntN(3))
			}
			o := runtime.DispatchOptions{Key: key}
			switch rng.IntN(12) {
			case 0:
				k.dispatched(demojob.DispatchSum(rt, uint64(rng.IntN(100_000)), o), demojob.Sum, false)
			case 1:
				k.dispatched(demojob.DispatchSleep(rt, time.Duration(rng.IntN(20))*time.Millisecond, o), demojob.Sleep, false)
			case 2, 3:
				o.MaxBatch = 1 + rng.IntN(512)
				id := demojob.DispatchEmitN(rt, uint64(rng.IntN(20_000)), o)
				k.dispatched(id, demojob.EmitN, true)
				switch rng.IntN(3) {
				case 0: // nobody drains it until it is cancelled
					rt.HoldStream(id, true)
					k.held[id] = &soakHold{n: 50 + rng.IntN(500)}
				case 1: // drained slowly: one batch every ten frames
					rt.HoldStream(id, true)
					k.held[id] = &soakHold{slow: true, n: 10}
				}
			case 4:
				id := rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle", IgnoreCase: rng.IntN(2) == 0}, o)
				k.dispatched(id, runtime.KindGrep, true)
				if rng.IntN(3) == 0 {
					rt.HoldStream(id, true)
					k.held[id] = &soakHold{n: 50 + rng.IntN(500)}
				}
			case 5:
				k.dispatched(rt.DispatchKept(luaSrc, o), runtime.KindKept, false)
			case 6:
				a, b := filepath.Join(root, "m", fmt.Sprint(rng.IntN(4))), filepath.Join(root, "m", fmt.Sprint(rng.IntN(4)))
				k.dispatched(fsjob.Rename(rt, a, b, rng.IntN(2) == 0, fsjob.Scope{}, o), fsjob.RenameKind, false)
			case 7:
				k.dispatched(fsjob.Chmod(rt, filepath.Join(root, "m", fmt.Sprint(rng.IntN(4))), 0o600+uint32(rng.IntN(64)), fsjob.Scope{}, o), fsjob.ChmodKind, false)
			case 8:
				k.dispatched(fsjob.Stat(rt, filepath.Join(root, "m", fmt.Sprint(rng.IntN(4))), fsjob.Scope{}, o), fsjob.StatKind, false)
			case 9:
				k.dispatched(fsjob.ReadDir(rt, filepath.Join(root, "m"), fsops.PerEntry, fsjob.Scope{}, o), fsjob.ReadDirKind, false)
			case 10:
				id, _ := rt.RegisterExternal(kindExternal, key)
				k.dispatched(id, kindExternal, false)
				k.external = append(k.external, id)
			case 11:
				// A worker reply that does not decode: counted and dropped,
				// and if the id at its head names a running job, that job
				// fails with malformed_reply.
				require.NoError(t, rt.SendReplyPayload([]byte{0x92, byte(rng.IntN(256))}))
			}
		}
		// Cancel something now and then, including settled and taken ids.
		if rng.IntN(4) == 0 && len(k.live) > 0 {
			for id := range k.live {
				rt.Cancel(id)
				break
			}
		}
		// External jobs complete, fail or get cancelled by their owner.
		if len(k.external) > 0 && rng.IntN(3) == 0 {
			i := rng.IntN(len(k.external))
			id := k.external[i]
			k.external = append(k.external[:i], k.external[i+1:]...)
			switch rng.IntN(3) {
			case 0:
				require.NoError(t, rt.CompleteExternalOK(id, map[string]any{"n": int64(i)}))
			case 1:
				rt.CompleteExternalFailed(id, errors.New("server said no"))
			default:
				rt.CompleteExternalCancelled(id)
			}
		}
		soakFrame(t, rt, k, credit, false)
		fig.peakGoroutines = max(fig.peakGoroutines, goruntime.NumGoroutine())
		if time.Now().After(nextMem) {
			var ms goruntime.MemStats
			goruntime.ReadMemStats(&ms)
			fig.peakHeap = max(fig.peakHeap, ms.HeapAlloc)
			nextMem = time.Now().Add(time.Second)
		}
		kindtest.WaitReady(rt, time.Millisecond)
	}

	// Wind down: cancel what runs, answer the external jobs, drain.
	for id := range k.live {
		rt.Cancel(id)
	}
	for _, id := range k.external {
		rt.CompleteExternalCancelled(id)
	}
	k.external = nil
	deadline := time.Now().Add(30 * time.Second)
	for len(k.live) > 0 || len(k.settled) > 0 || len(k.streams) > 0 {
		require.True(t, time.Now().Before(deadline), "%d jobs never settled, %d settled never taken, %d streams never closed",
			len(k.live), len(k.settled), len(k.streams))
		for id := range k.held {
			rt.HoldStream(id, false)
		}
		soakFrame(t, rt, k, credit, true)
		kindtest.WaitReady(rt, time.Millisecond)
	}
	require.Zero(t, rt.PendingLen(), "pending table")
	require.Zero(t, rt.SupersedeLen(), "supersede table")
	require.Zero(t, rt.Stats().Held, "kept values")
	fig.jobs = k.done
	fig.malformed = rt.MalformedReplies()
	fig.duration = time.Since(start)
	rt.Close()

	if !assertEventuallyGoroutines(baseG, 10*time.Second) {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines not back to baseline %d:\n%s", baseG, buf[:goruntime.Stack(buf, true)])
	}
	fig.endHeap = testenv.HeapAfterGC()
	require.Less(t, fig.endHeap, baseHeap+16<<20, "heap back near its baseline")
	t.Logf("soak (Go): duration %v, frames %d, jobs completed %d (%v), malformed replies dropped %d, "+
		"peak goroutines %d (baseline %d), peak heap %.1f MiB (baseline %.1f MiB, end %.1f MiB)",
		fig.duration.Round(time.Second), fig.frames, fig.jobs, fig.states, fig.malformed,
		fig.peakGoroutines, fig.baseGoroutines, mib(fig.peakHeap), mib(fig.baseHeap), mib(fig.endHeap))
}

// assertEventuallyGoroutines polls until at most n goroutines run.
func assertEventuallyGoroutines(n int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for goruntime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

// soakFrame is one editor frame: Tick, the stream memory check, take the
// settled results, deliver the streams that are not held.
func soakFrame(t *testing.T, rt *runtime.Runtime, k *soakTracker, credit int, final bool) {
	k.tick(rt.Tick())
	// An undrained stream holds no more than its credit: the producer waits
	// once its undelivered items would pass it, unless one batch alone is
	// bigger (a grep file batch of up to 1024 matches).
	for id := range k.streams {
		buffered, inFlight, running := rt.StreamHolds(id)
		if !running {
			continue
		}
		require.LessOrEqual(t, buffered, inFlight, "stream %d buffers items it holds no credit for", id)
		require.LessOrEqual(t, inFlight, max(credit, 1024), "stream %d passed its credit", id)
	}
	for id := range k.settled {
		if k.streams[id] {
			continue
		}
		if kind, _, _ := rt.Lookup(id); kind == runtime.KindKept && !final && id%2 == 0 {
			rt.TakeKept(id)
		}
		o, ok := rt.TakeResult(id)
		require.True(t, ok, "settled job %d has no result", id)
		delete(k.settled, id)
		k.done++
		k.states[o.State]++
	}
	var released []runtime.JobID
	for id, h := range k.held {
		if h.n--; h.n > 0 {
			continue
		}
		if !h.slow {
			// Nobody drained it: cancel it (a no-op if it already
			// completed) and let its closing batch come.
			rt.Cancel(id)
			rt.HoldStream(id, false)
			delete(k.held, id)
			continue
		}
		rt.HoldStream(id, false)
		released = append(released, id)
		h.n = 10
	}
	for _, b := range rt.TakeStreamBatches() {
		if b.Closed {
			k.closed(b)
		}
	}
	for _, id := range released {
		rt.HoldStream(id, true) // one batch, then held again
	}
}

func writeSoakTree(t *testing.T, root string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "m"), 0o755))
	for i := range 4 {
		require.NoError(t, os.WriteFile(filepath.Join(root, "m", fmt.Sprint(i)), []byte("x"), 0o644))
	}
	for i := range 10 {
		dir := filepath.Join(root, "src", fmt.Sprint(i%3))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		var body []byte
		for l := range 100 {
			body = fmt.Appendf(body, "line %d has a Needle and a needle\n", l)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), body, 0o644))
	}
}
