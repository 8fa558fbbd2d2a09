package fsops

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// swapper exchanges two paths atomically (RENAME_EXCHANGE) in a loop on its
// own goroutine, so an operation racing it meets either one at any step.
type swapper struct {
	stop atomic.Bool
	wg   sync.WaitGroup
	err  chan error
}

// startSwapping begins swapping a and b; the returned stop func (also run
// at cleanup) ends it and fails the test if a swap failed.
func startSwapping(t *testing.T, a, b string) (stop func()) {
	t.Helper()
	s := &swapper{err: make(chan error, 1)}
	a, b = filepath.Clean(a), filepath.Clean(b)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for !s.stop.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				s.err <- err
				return
			}
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			s.stop.Store(true)
			s.wg.Wait()
			select {
			case err := <-s.err:
				require.NoError(t, err, "the swapping goroutine failed")
			default:
			}
		})
	}
	t.Cleanup(stop)
	return stop
}
