package grepjob

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The tests below were written against the runtime's methods; testRT keeps
// them readable.
type (
	DispatchOptions = runtime.DispatchOptions
	Options         = runtime.Options
	JobID           = runtime.JobID
	Outcome         = runtime.Outcome
)

const (
	Complete  = runtime.Complete
	Cancelled = runtime.Cancelled
	Failed    = runtime.Failed
)

type testRT struct{ *runtime.Runtime }

func newRT(t testing.TB, pool int) testRT { return testRT{kindtest.New(t, pool)} }

// New is runtime.New for a test that closes the runtime itself.
func New(opts Options) (testRT, error) {
	rt, err := runtime.New(opts)
	return testRT{rt}, err
}

func (rt testRT) DispatchGrep(spec grep.Spec, o DispatchOptions) JobID {
	return Dispatch(rt.Runtime, spec, o)
}

func (rt testRT) DispatchGrepBlocks(spec grep.Spec, o DispatchOptions) JobID {
	return DispatchBlocks(rt.Runtime, spec, o)
}

func (rt testRT) StreamSkipped(id JobID) (grep.SkipCounts, bool) {
	return StreamSkipped(rt.Runtime, id)
}

func (rt testRT) IsCancelled(id JobID) bool { return kindtest.IsCancelled(rt.Runtime, id) }

func waitReady(rt testRT, d time.Duration) { kindtest.WaitReady(rt.Runtime, d) }

func jobErr(t testing.TB, err error) *runtime.JobError { return kindtest.JobErr(t, err) }

// streamResult collects a grep stream until its closing batch.
type streamResult struct {
	matches  []grep.Match
	batches  int
	maxLen   int
	progress uint64
	skipped  grep.SkipCounts
	outcome  Outcome
}

// drainStream ticks at the given frame cadence until stream id closes
// (kindtest.Drain) and reads the matches, plain or in blocks, and the skip
// counts out of what it collected.
func drainStream(t testing.TB, rt testRT, id JobID, frame time.Duration, limit time.Duration) streamResult {
	t.Helper()
	s := kindtest.Drain(t, rt.Runtime, id, frame, limit)
	all := runtime.StreamBatch{Items: s.Items, Detail: s.Detail}
	res := streamResult{matches: MatchesOf(all), batches: s.Batches, maxLen: s.MaxLen,
		progress: s.Progress, skipped: SkippedOf(all), outcome: s.Outcome}
	for _, blk := range BlocksOf(all) {
		res.matches = append(res.matches, blk.Matches()...)
	}
	return res
}

func setHook(t *testing.T, hook *func(), f func()) {
	t.Helper()
	*hook = f
	t.Cleanup(func() { *hook = nil })
}

// waitOrPanic blocks until ch closes, so a hook can hold a search at the
// point the test needs; it gives up after a while rather than hang.
func waitOrPanic(ch <-chan struct{}) {
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
	}
}
