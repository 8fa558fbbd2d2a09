package procjob

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/proc"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
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
	Running   = runtime.Running
	Complete  = runtime.Complete
	Cancelled = runtime.Cancelled
	Failed    = runtime.Failed
)

var (
	KindSpawn      = SpawnKind
	KindSystem     = SystemKind
	KindSpawnWrite = WriteKind
)

type testRT struct{ *runtime.Runtime }

func newRT(t testing.TB, pool int) testRT { return testRT{kindtest.New(t, pool)} }

// New is runtime.New for a test that closes the runtime itself.
func New(opts Options) (testRT, error) {
	rt, err := runtime.New(opts)
	return testRT{rt}, err
}

func (rt testRT) DispatchSpawn(spec proc.Spec, o DispatchOptions) JobID {
	return Spawn(rt.Runtime, spec, o)
}

func (rt testRT) DispatchSystem(spec proc.Spec, maxOutput int, o DispatchOptions) JobID {
	return System(rt.Runtime, spec, maxOutput, o)
}

func (rt testRT) SpawnWrite(id JobID, data []byte) (JobID, error) { return Write(rt.Runtime, id, data) }

func (rt testRT) SpawnCloseStdin(id JobID) error { return CloseStdin(rt.Runtime, id) }

// PendingLen and SupersedeLen are the runtime's Stats under the names the
// runtime's own tests use.
func (rt testRT) PendingLen() int   { return rt.Stats().Pending }
func (rt testRT) SupersedeLen() int { return rt.Stats().SupersedeKeys }

// spawns is the runtime's table of running programs.
func (rt testRT) spawns() *spawnTable { return tableOf(rt.Runtime) }

// backlog is what a running stream holds undelivered, from the *workers*
// view's row.
func (rt testRT) backlog(t testing.TB, id JobID) runtime.ActiveJob {
	t.Helper()
	for _, a := range rt.Snapshot().Active {
		if a.ID == id {
			return a
		}
	}
	t.Fatalf("job %d is not running", id)
	return runtime.ActiveJob{}
}

func outcomeOf(t testing.TB, rt testRT, id JobID) Outcome {
	t.Helper()
	return kindtest.Outcome(t, rt.Runtime, id)
}

func pumpUntil(t testing.TB, rt testRT, cond func() bool) {
	t.Helper()
	kindtest.PumpUntil(t, rt.Runtime, cond)
}

func waitReady(rt testRT, d time.Duration) { kindtest.WaitReady(rt.Runtime, d) }

func jobErr(t testing.TB, err error) *runtime.JobError { t.Helper(); return kindtest.JobErr(t, err) }

func setHook(t *testing.T, hook *func(), f func()) {
	t.Helper()
	*hook = f
	t.Cleanup(func() { *hook = nil })
}

// requirePanicFailure checks o failed with internal_error naming the job,
// where it panicked and the panic value.
func requirePanicFailure(t *testing.T, o Outcome, kind runtime.Kind, where, value string) {
	t.Helper()
	require.Equal(t, Failed, o.State, "%+v", o)
	require.Equal(t, workers.CodeInternal, jobErr(t, o.Err).Code)
	require.Contains(t, jobErr(t, o.Err).Message, kind.String()+"#")
	require.Contains(t, jobErr(t, o.Err).Message, where)
	require.Contains(t, jobErr(t, o.Err).Message, value)
}

// requireLoopGoesOn checks the runtime still runs jobs.
func requireLoopGoesOn(t *testing.T, rt testRT) {
	t.Helper()
	n, _ := demojob.SumOf(outcomeOf(t, rt, demojob.DispatchSum(rt.Runtime, 4, DispatchOptions{})))
	require.Equal(t, uint64(10), n, "the loop goes on")
}

// drainStreams collects several spawns until every one has closed.
func drainStreams(t testing.TB, rt testRT, limit time.Duration, ids ...JobID) map[JobID]*kindtest.Stream {
	t.Helper()
	return kindtest.DrainAll(t, rt.Runtime, limit, ids...)
}
