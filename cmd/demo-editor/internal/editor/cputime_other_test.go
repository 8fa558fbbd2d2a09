//go:build !linux

package editor

import "time"

// threadCPU is not measured off Linux; the table shows zeros.
func threadCPU() time.Duration { return 0 }
