package fuzzy_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(cleanupM{m})
}

// cleanupM removes the benchmarks' input files once every test and benchmark has run.
type cleanupM struct{ m *testing.M }

func (c cleanupM) Run() int {
	code := c.m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	return code
}
