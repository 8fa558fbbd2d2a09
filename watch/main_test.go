package watch

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain proves no goroutine of a watch (its collector, fsnotify's
// reader, a latency timer) outlives the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
