package walk

import (
	"context"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// niceOfThisThread is the calling thread's nice value (the raw getpriority is 20 - nice).
func niceOfThisThread(t *testing.T) int {
	t.Helper()
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	require.NoError(t, err)
	return 20 - prio
}

// A background walk visits on threads ten nice steps lower than the caller's, and leaves
// the caller's thread and the threads of a later plain walk at the caller's priority: the
// lowered threads end with the walk's goroutines.
func TestBackgroundWalkVisitsOnLowerPriorityThreads(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for _, d := range []string{"a", "b", "c", "d"} {
		for _, f := range []string{"1", "2", "3"} {
			files[filepath.Join(d, f)] = "x"
		}
	}
	testenv.WriteTree(t, dir, files)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	base := niceOfThisThread(t)

	niceDuring := func(opts Options) []int {
		var mu sync.Mutex
		var seen []int
		require.NoError(t, Walk(context.Background(), dir, opts, func(_ int, _ *Dir, names []string) error {
			n := niceOfThisThread(t)
			mu.Lock()
			seen = append(seen, n)
			mu.Unlock()
			return nil
		}))
		require.NotEmpty(t, seen)
		return seen
	}
	for _, n := range niceDuring(Options{Background: true, Fanout: 2}) {
		require.Equal(t, min(base+backgroundNice, 19), n, "a background walk's visit")
	}
	require.Equal(t, base, niceOfThisThread(t), "the caller's thread keeps its priority")
	for range 3 {
		for _, n := range niceDuring(Options{Fanout: 4}) {
			require.Equal(t, base, n, "a plain walk after a background one runs at the caller's priority")
		}
	}
}
