package workers

import "runtime"

// Config sizes an Executor. A zero field means "use the default"; a field out
// of range (negative included) is clamped into range, never rejected, so a
// knob read from a user's config can never stop the editor from starting.
// Effective reports the values actually used.
//
// The defaults are deliberately larger than the aft executor's, whose pool is
// (cores-1) clamped to [2, 8] with at most 4 jobs and 4 reads per actor. aft
// runs CPU-bound command handlers; an editor's pool also runs sleeps, waits on
// external processes and LSP servers, and greps that spend most of their time
// in the kernel. Jobs that mostly wait must not hold back the ones that
// compute, so the pool is a multiple of the cores and a single actor (usually
// the one project the user has open) may use all but one worker, for reads too.
type Config struct {
	// PoolSize is the number of worker goroutines.
	// Default 4*GOMAXPROCS within [8, 64]; clamped to [2, 256]. The minimum of
	// 2 is aft's: with one worker a single slow job would stall every actor.
	PoolSize int
	// ActorCap is the most jobs one actor may have in flight.
	// Default PoolSize-1; clamped to [1, PoolSize-1] (aft's rule) so one actor
	// can never occupy the whole pool and starve the others.
	ActorCap int
	// ReadCap is the most read-lane jobs one actor may have in flight.
	// Default ActorCap; clamped to [1, ActorCap]. aft also caps reads at 4;
	// we do not, because an editor's reads include waits, not just CPU work.
	ReadCap int
	// HeavyPermits bounds heavy-lane jobs across all actors.
	// Default GOMAXPROCS within [2, PoolSize]; clamped to [1, PoolSize]. aft
	// fixes [2, 3]; heavy work here is CPU-bound parsing, so it scales with
	// the cores instead, and a permit count above PoolSize could never be used.
	HeavyPermits int
	// Quantum is the deficit-round-robin credit an actor earns per visit:
	// how many jobs it may start before the scheduler moves to the next actor.
	// Default 1 (strict alternation, aft's default); clamped to
	// [1, 4*ActorCap], the deficit cap aft uses, since unspent credit is
	// capped there anyway.
	Quantum int
}

const (
	minPoolSize     = 2
	maxPoolSize     = 256
	defaultPoolMin  = 8
	defaultPoolMax  = 64
	poolPerCore     = 4
	deficitCapScale = 4
)

// Effective returns the configuration with defaults filled in and every field
// clamped, exactly as New will use it.
func (c Config) Effective() Config {
	procs := runtime.GOMAXPROCS(0)
	out := c

	if out.PoolSize == 0 {
		out.PoolSize = clamp(poolPerCore*procs, defaultPoolMin, defaultPoolMax)
	}
	out.PoolSize = clamp(out.PoolSize, minPoolSize, maxPoolSize)

	if out.ActorCap == 0 {
		out.ActorCap = out.PoolSize - 1
	}
	out.ActorCap = clamp(out.ActorCap, 1, out.PoolSize-1)

	if out.ReadCap == 0 {
		out.ReadCap = out.ActorCap
	}
	out.ReadCap = clamp(out.ReadCap, 1, out.ActorCap)

	if out.HeavyPermits == 0 {
		out.HeavyPermits = clamp(procs, 2, out.PoolSize)
	}
	out.HeavyPermits = clamp(out.HeavyPermits, 1, out.PoolSize)

	if out.Quantum == 0 {
		out.Quantum = 1
	}
	out.Quantum = clamp(out.Quantum, 1, out.deficitCap())
	return out
}

// deficitCap bounds the credit an actor carries from one visit to the next,
// as in aft: 4*ActorCap. Credit is carried when a visit ends early (no idle
// worker left, or the actor hit a cap mid-visit); the cap keeps such an actor
// from bursting far ahead of the others later.
func (c Config) deficitCap() int { return deficitCapScale * c.ActorCap }

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
