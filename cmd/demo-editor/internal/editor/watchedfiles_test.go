package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fileuri"
)

// untilWatching waits until a watch of the project runs and has scanned
// its tree: changes from then on are reported.
func (h *harness) untilWatching() {
	h.t.Helper()
	h.untilLong("the watch of the tree scanned", func(e *session) bool {
		_, ready := watchesRunning(e)
		return ready == 1
	})
}

// Against gopls: it registers file watchers (**/*.go and the module
// files), the editor watches the module for it, and a Go file another
// program writes into the module reaches gopls without being opened: the
// error naming the function that file defines goes away. The module being
// the project, that is the project's one watch.
func TestGoplsHearsOfAFileWrittenBehindTheEditor(t *testing.T) {
	dir := goplsModule(t, map[string]string{"a.go": "package m\n\nvar X = NewThing()\n"})
	h := startEditor(t, Options{Path: filepath.Join(dir, "a.go")})
	h.untilLong("the undefined name's error", statusHas("E1"))
	h.untilWatching()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.go"), []byte("package m\n\nfunc NewThing() int { return 1 }\n"), 0o644))
	h.untilLong("the error gone", func(e *session) bool {
		return !strings.Contains(e.statusText(), "E1")
	})
	// The module is the project: gopls takes the project watch's changes,
	// and the tree is not watched a second time for it.
	h.e.call(func() {
		running, _ := watchesRunning(h.e)
		require.Equal(t, 1, running, "one watch of the project")
	})
}

// writeManyFiles writes n empty files into dirs directories under root.
func writeManyFiles(t testing.TB, root string, dirs, n int) {
	t.Helper()
	for d := range dirs {
		sub := filepath.Join(root, fmt.Sprintf("d%03d", d))
		require.NoError(t, os.MkdirAll(sub, 0o755))
		for i := range n / dirs {
			require.NoError(t, os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%05d.txt", i)), nil, 0o644))
		}
	}
}

// processCPU is the CPU time this process has used, user and system.
func processCPU(t testing.TB) time.Duration {
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// A server that registers **/* over a tree of 100,000 files (2,000 unless
// PMACS_EDITOR_BENCH=1: writing 100,000 files takes minutes on a busy
// disk): one watch follows the tree, and a file written into it reaches the server as
// created (or changed: see below), then as changed, and its removal as
// deleted. With
// PMACS_EDITOR_BENCH=1 it also prints what the editor costs over 5 s of
// idling with that watch running (the process's CPU time, as a share of
// one core).
func TestWatchedFilesOfAHundredThousandFileTree(t *testing.T) {
	logPath := useFakeLSP(t)
	t.Setenv(fakeLSPWatchEnv, "1")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m.go"), []byte("package m\n"), 0o644))
	start := time.Now()
	files := 2000
	if os.Getenv("PMACS_EDITOR_BENCH") != "" {
		files = 100000
	}
	writeManyFiles(t, dir, 100, files)
	t.Logf("tree written in %v", time.Since(start).Round(time.Millisecond))
	h := startEditor(t, Options{Path: filepath.Join(dir, "m.go")})
	h.untilWatching()
	t.Logf("watching after %v", time.Since(start).Round(time.Millisecond))
	var running int
	h.e.call(func() { running, _ = watchesRunning(h.e) })
	require.Equal(t, 1, running, "one watch for the root")

	// The project's watch may be ready before the server has registered
	// its watchers: a probe file is written until the server hears of one.
	for i := 0; ; i++ {
		require.Less(t, i, 90, "the server never heard of a probe file")
		probe := filepath.Join(dir, fmt.Sprintf("probe%d.txt", i))
		require.NoError(t, os.WriteFile(probe, nil, 0o644))
		heard := false
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline) && !heard; time.Sleep(10 * time.Millisecond) {
			data, _ := os.ReadFile(logPath)
			heard = strings.Contains(string(data), "watched "+fileuri.FromPath(dir)+"/probe")
		}
		if heard {
			break
		}
	}

	path := filepath.Join(dir, "d042", "new.go")
	logHas := func(what, line string) {
		t.Helper()
		h.untilLong(what, func(*session) bool {
			data, _ := os.ReadFile(logPath)
			return strings.Contains(string(data), line)
		})
	}
	// The watch keeps a path's last operation until its batch is handed
	// over, so a file created and written at once may come as changed.
	require.NoError(t, os.WriteFile(path, []byte("package m\n"), 0o644))
	logHas("the new file told", "watched "+fileuri.FromPath(path)+" ")
	require.NoError(t, os.WriteFile(path, []byte("package m\n\nvar X = 1\n"), 0o644))
	logHas("the change told", "watched "+fileuri.FromPath(path)+" 2")
	require.NoError(t, os.Remove(path))
	logHas("the delete told", "watched "+fileuri.FromPath(path)+" 3")

	if os.Getenv("PMACS_EDITOR_BENCH") == "" {
		return
	}
	c0, w0 := processCPU(t), time.Now()
	time.Sleep(5 * time.Second) // the measurement: the editor idles
	cpu, wall := processCPU(t)-c0, time.Since(w0)
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("idle with a watch of %d files: %.1f%% of a core (%v CPU in %v; load %s)\n", files,
		100*cpu.Seconds()/wall.Seconds(), cpu.Round(time.Millisecond), wall.Round(time.Millisecond), strings.TrimSpace(string(load)))
}
