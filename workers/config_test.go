package workers

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// Acceptance: knobs clamp, never panic; zero means default; the defaults
// give an editor more workers than cores and more than one read per actor.
func TestConfigClampsEveryFieldAndFillsDefaults(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	defPool := clamp(4*procs, 8, 64)
	cases := []struct {
		name string
		in   Config
		want Config
	}{
		{"zero is the default", Config{}, Config{
			PoolSize: defPool, ActorCap: defPool - 1, ReadCap: defPool - 1,
			HeavyPermits: clamp(procs, 2, defPool), Quantum: 1,
		}},
		{"negative clamps to the minimum", Config{PoolSize: -3, ActorCap: -1, ReadCap: -1, HeavyPermits: -1, Quantum: -5},
			Config{PoolSize: 2, ActorCap: 1, ReadCap: 1, HeavyPermits: 1, Quantum: 1}},
		{"pool below two clamps up", Config{PoolSize: 1}, Config{
			PoolSize: 2, ActorCap: 1, ReadCap: 1, HeavyPermits: 2, Quantum: 1,
		}},
		{"pool above the maximum clamps down", Config{PoolSize: 10_000, ActorCap: 4, ReadCap: 2, HeavyPermits: 3},
			Config{PoolSize: 256, ActorCap: 4, ReadCap: 2, HeavyPermits: 3, Quantum: 1}},
		{"actor cap leaves one worker for other actors", Config{PoolSize: 4, ActorCap: 4},
			Config{PoolSize: 4, ActorCap: 3, ReadCap: 3, HeavyPermits: clamp(procs, 2, 4), Quantum: 1}},
		{"read cap never exceeds the actor cap", Config{PoolSize: 8, ActorCap: 3, ReadCap: 5},
			Config{PoolSize: 8, ActorCap: 3, ReadCap: 3, HeavyPermits: clamp(procs, 2, 8), Quantum: 1}},
		{"heavy permits never exceed the pool", Config{PoolSize: 4, HeavyPermits: 9},
			Config{PoolSize: 4, ActorCap: 3, ReadCap: 3, HeavyPermits: 4, Quantum: 1}},
		{"quantum is capped at the deficit cap", Config{PoolSize: 4, ActorCap: 2, Quantum: 100},
			Config{PoolSize: 4, ActorCap: 2, ReadCap: 2, HeavyPermits: clamp(procs, 2, 4), Quantum: 8}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.in.Effective()
			require.Equal(t, c.want, got)
			require.Equal(t, got, got.Effective(), "Effective is idempotent")
		})
	}
}

// Acceptance: the executor runs with exactly the effective configuration.
func TestExecutorReportsEffectiveConfig(t *testing.T) {
	cfg := Config{PoolSize: 3, ActorCap: 9, ReadCap: 9, HeavyPermits: 9, Quantum: 99}
	e := newExecutor(t, cfg)
	require.Equal(t, cfg.Effective(), e.Config())
	require.Equal(t, Config{PoolSize: 3, ActorCap: 2, ReadCap: 2, HeavyPermits: 3, Quantum: 8}, e.Config())
}

// Acceptance: lanes print as the names the runtime and logs use.
func TestLaneStringNamesEachLane(t *testing.T) {
	require.Equal(t, "read", LaneRead.String())
	require.Equal(t, "serial", LaneSerial.String())
	require.Equal(t, "heavy", LaneHeavy.String())
	require.Equal(t, "mutating", LaneMutating.String())
	require.Equal(t, "Lane(9)", Lane(9).String())
}
