package luabind

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/mcp"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// newHarnessBudget is newHarness with a frame budget.
func newHarnessBudget(t testing.TB, budget time.Duration) *harness {
	t.Helper()
	h := newHarness(t, false)
	h.b.budget = budget
	return h
}

// backlogPoller settles the external jobs in todo, one per unit of work,
// each unit costing about unitCost of busy main-goroutine time, and records
// the budget of every Poll.
type backlogPoller struct {
	rt      *runtime.Runtime
	todo    []runtime.JobID
	budgets []time.Duration
	ready   chan struct{}
}

const unitCost = 50 * time.Microsecond

func (p *backlogPoller) Ready() <-chan struct{} { return p.ready }

func (p *backlogPoller) Poll(budget time.Duration) int {
	p.budgets = append(p.budgets, budget)
	start := time.Now()
	n := 0
	for len(p.todo) > 0 {
		if n > 0 && time.Since(start) >= budget {
			select {
			case p.ready <- struct{}{}:
			default:
			}
			break
		}
		for t := time.Now(); time.Since(t) < unitCost; {
		}
		p.rt.CompleteExternalOwned(p.todo[0], runtime.ExternalValue{})
		p.todo = p.todo[1:]
		n++
	}
	return n
}

// A binding's frame gives every poller what is left of its budget, through
// the runtime's bounded tick: a poller with a backlog (here 400 units of
// 50 us, 20 ms of work, against a 2 ms budget) stops at the budget, and
// what it left is done at the next frames, in order, woken by Ready.
func TestFrameBudgetReachesPollersWhichResumeNextFrame(t *testing.T) {
	h := newHarnessBudget(t, 2*time.Millisecond)
	p := &backlogPoller{rt: h.rt, ready: make(chan struct{}, 1)}
	var want []runtime.JobID
	for range 400 {
		id, _ := h.rt.RegisterExternal(mcp.RequestKind, "")
		p.todo = append(p.todo, id)
		want = append(want, id)
	}
	defer h.rt.AddPoller(p)()

	var settled []runtime.JobID
	frames := 0
	deadline := time.Now().Add(time.Minute)
	for len(p.todo) > 0 {
		require.True(t, time.Now().Before(deadline), "the backlog was not worked off")
		settled = append(settled, h.b.Frame().Tick.Settled...)
		frames++
		if frames == 1 {
			require.NotEmpty(t, settled, "the first frame did some of the work")
			require.NotEmpty(t, p.todo, "the first frame stopped at its budget")
		}
		if len(p.todo) > 0 {
			select {
			case <-h.rt.Ready():
			case <-time.After(10 * time.Second):
				t.Fatal("work left and the runtime's Ready was not signalled")
			}
		}
	}
	settled = append(settled, h.b.Frame().Tick.Settled...)
	require.Equal(t, want, settled, "every job settled, in order")
	require.Greater(t, frames, 1)
	for i, b := range p.budgets {
		require.Greater(t, b, time.Duration(0), "poll %d had a budget", i)
		require.LessOrEqual(t, b, 2*time.Millisecond, "poll %d had at most the frame's budget", i)
	}
}
