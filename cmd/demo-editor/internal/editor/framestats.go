package editor

import (
	"slices"
	"time"
)

// frameWindow is how far back the status line's frame figures look.
const frameWindow = time.Second

// frameRingCap holds a second of frames at the 1 ms frame target.
const frameRingCap = 1024

// frameStats remembers the work time of recent frames for the status line.
type frameStats struct {
	at    [frameRingCap]time.Time
	took  [frameRingCap]time.Duration
	next  int
	n     int
	total uint64
	// all, when non-nil (benchmarks), collects every frame's work time.
	all *[]time.Duration
}

func (s *frameStats) add(at time.Time, took time.Duration) {
	s.at[s.next], s.took[s.next] = at, took
	s.next = (s.next + 1) % frameRingCap
	s.n = min(s.n+1, frameRingCap)
	s.total++
	if s.all != nil {
		*s.all = append(*s.all, took)
	}
}

// p99 returns the 99th percentile work time of the frames of the last
// second, and how many there were.
func (s *frameStats) p99(now time.Time) (time.Duration, int) {
	var buf [frameRingCap]time.Duration
	recent := buf[:0]
	for i := range s.n {
		j := (s.next - 1 - i + frameRingCap) % frameRingCap
		if now.Sub(s.at[j]) > frameWindow {
			break
		}
		recent = append(recent, s.took[j])
	}
	if len(recent) == 0 {
		return 0, 0
	}
	return percentile(recent, 0.99), len(recent)
}

// percentile sorts ds and returns the q-th quantile (nearest rank).
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(q*float64(len(ds))+0.5) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}
