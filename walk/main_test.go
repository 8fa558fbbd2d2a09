package walk_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain proves no fanout goroutine outlives the tests.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
