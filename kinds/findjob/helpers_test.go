package findjob

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/kinds/fsjob"
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
	ResourceOp      = runtime.ResourceOp
	FindSpec        = Spec
)

const (
	Complete       = runtime.Complete
	Cancelled      = runtime.Cancelled
	Failed         = runtime.Failed
	ResourceRemove = runtime.ResourceRemove
	ResourceRename = runtime.ResourceRename
)

type testRT struct{ *runtime.Runtime }

func newRT(t testing.TB, pool int) testRT { return testRT{kindtest.New(t, pool)} }

// New is runtime.New for a test that closes the runtime itself.
func New(opts Options) (testRT, error) {
	rt, err := runtime.New(opts)
	return testRT{rt}, err
}

func (rt testRT) DispatchFindFiles(spec Spec, o DispatchOptions) JobID {
	return Find(rt.Runtime, spec, o)
}
func (rt testRT) DispatchFuzzy(spec FuzzySpec, o DispatchOptions) JobID {
	return Fuzzy(rt.Runtime, spec, o)
}
func (rt testRT) FuzzySource(items []string) SourceID { return NewSource(rt.Runtime, items) }
func (rt testRT) FreeFuzzySource(id SourceID) bool    { return FreeSource(rt.Runtime, id) }
func (rt testRT) FuzzySourceLen() int                 { return rt.finder().Held() }
func (rt testRT) PendingLen() int                     { return rt.Stats().Pending }

func (rt testRT) DispatchRename(from, to string, overwrite bool, o DispatchOptions) JobID {
	return fsjob.Rename(rt.Runtime, from, to, overwrite, fsjob.Scope{}, o)
}

func (rt testRT) DispatchRemove(path string, o DispatchOptions) JobID {
	return fsjob.Remove(rt.Runtime, path, fsjob.Scope{}, o)
}

// finder is the runtime's finder state.
func (rt testRT) finder() *finderState { return stateOf(rt.Runtime) }

func (rt testRT) fileCache(k cacheKey) *fileCache { return rt.finder().fileCache(k) }

func (rt testRT) noteResource(op ResourceOp) { rt.finder().NoteResource(op) }

func makeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteTree(t, dir, files)
	return dir
}

func outcomeOf(t testing.TB, rt testRT, id JobID) Outcome {
	t.Helper()
	return kindtest.Outcome(t, rt.Runtime, id)
}

func pumpUntil(t testing.TB, rt testRT, cond func() bool) {
	t.Helper()
	kindtest.PumpUntil(t, rt.Runtime, cond)
}

func pumpFor(t testing.TB, rt testRT, limit time.Duration, cond func() bool) {
	t.Helper()
	kindtest.PumpFor(t, rt.Runtime, limit, cond)
}

func waitReady(rt testRT, d time.Duration) { kindtest.WaitReady(rt.Runtime, d) }

func jobErr(t testing.TB, err error) *runtime.JobError { t.Helper(); return kindtest.JobErr(t, err) }

// rankingOf is a completed job's ranking, the zero one otherwise.
func rankingOf(o Outcome) Ranking {
	r, _ := RankingOf(o)
	return r
}
