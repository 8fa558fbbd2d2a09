//go:build !unix

package fuzzy_test

import "time"

// processCPU is not available here; benchmarks report wall time only.
func processCPU() (time.Duration, bool) { return 0, false }
