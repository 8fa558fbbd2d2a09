//go:build !linux

package luabind

import "time"

// threadCPU has no per-thread clock to read here; benchmarks report 0.
func threadCPU() time.Duration { return 0 }
