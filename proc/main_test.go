//go:build linux

package proc

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain makes the test binary a subreaper before anything runs: pid 1 of
// some containers (this project's CI among them) never reaps, so without it
// every killed grandchild would stay a zombie whatever proc does, and the
// orphan tests could not tell proc's leaks from init's.
func TestMain(m *testing.M) {
	if dir := os.Getenv(endAllHelperEnv); dir != "" {
		os.Exit(runEndAllHelper(dir))
	}
	if dir := os.Getenv(reapHelperEnv); dir != "" {
		os.Exit(runReapHelper(dir))
	}
	if err := BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "proc tests: cannot become a subreaper:", err)
		os.Exit(2)
	}
	goleak.VerifyTestMain(m)
}
