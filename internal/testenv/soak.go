package testenv

import (
	"os"
	"runtime"
	"time"
)

// SoakEnv names the variable that turns the soak tests on; its value is a
// Go duration (PMACS_SOAK=5m), how long each soak runs.
const SoakEnv = "PMACS_SOAK"

// SoakDuration is how long a soak test runs, read from SoakEnv. Without
// it the test skips: a soak is a measurement, not part of the default run.
// A value that is no duration fails the test.
func SoakDuration(t Skipper) time.Duration {
	t.Helper()
	v := os.Getenv(SoakEnv)
	if v == "" {
		t.Skipf("soak test: set %s to a duration (e.g. %s=5m) to run it", SoakEnv, SoakEnv)
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s: %v", SoakEnv, err)
		return 0
	}
	return d
}

// HeapAfterGC is the live heap right after a collection, the figure the
// soak and leak tests compare before and after their work.
func HeapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
