//go:build linux

package proc

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// rssBytes reads this process's resident set size.
func rssBytes(t *testing.T) uint64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// memPeak samples heap in use and RSS until stopped.
type memPeak struct {
	heap, rss atomic.Uint64
	stop      chan struct{}
	wg        sync.WaitGroup
}

func watchMemory(t *testing.T) *memPeak {
	m := &memPeak{stop: make(chan struct{})}
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > m.heap.Load() {
			m.heap.Store(ms.HeapInuse)
		}
		if r := rssBytes(t); r > m.rss.Load() {
			m.rss.Store(r)
		}
	}
	m.wg.Go(func() {
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		for {
			sample()
			select {
			case <-m.stop:
				return
			case <-tk.C:
			}
		}
	})
	return m
}

func (m *memPeak) done() { close(m.stop); m.wg.Wait() }

// TestStdin100MiBThroughCatSlowBothSides: 100 MiB (10 with -short) of
// numbered lines go through `cat` with a writer and a reader that both
// pause now and then. Every line comes back once, in order, and the heap
// and RSS stay far below the data size: the pipes push back on both sides.
func TestStdin100MiBThroughCatSlowBothSides(t *testing.T) {
	const lineLen = 100 // with its newline
	total := 100 << 20
	if testing.Short() {
		total = 10 << 20
	}
	nLines := total / lineLen
	pad := strings.Repeat("x", lineLen-1-9)

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	baseRSS := rssBytes(t)
	mem := watchMemory(t)

	var next int
	var bad string
	var batches int
	p, err := Start(context.Background(), Spec{Argv: []string{"cat"}, StdinPipe: true, Lines: func(ls []Line) error {
		for _, l := range ls {
			want := fmt.Sprintf("%08d %s", next, pad)
			if bad == "" && (string(l.Text) != want || l.Partial || l.Truncated) {
				bad = fmt.Sprintf("line %d: got %q", next, l.Text)
			}
			next++
		}
		if batches++; batches%64 == 0 {
			time.Sleep(time.Millisecond) // the slow reader
		}
		return nil
	}})
	require.NoError(t, err)

	werr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(p.Stdin(), 32<<10)
		for i := range nLines {
			if _, err := fmt.Fprintf(w, "%08d %s\n", i, pad); err != nil {
				werr <- err
				return
			}
			if i%10000 == 0 {
				time.Sleep(time.Millisecond) // the slow writer
			}
		}
		if err := w.Flush(); err != nil {
			werr <- err
			return
		}
		werr <- p.Stdin().Close()
	}()
	ex, err := p.Wait()
	mem.done()
	require.NoError(t, err)
	require.NoError(t, <-werr)
	require.Equal(t, 0, ex.Code)
	require.Empty(t, bad)
	require.Equal(t, nLines, next)

	heapGrowth := int64(mem.heap.Load()) - int64(base.HeapInuse)
	rssGrowth := int64(mem.rss.Load()) - int64(baseRSS)
	t.Logf("%d MiB through cat: heap in use grew at most %.1f MiB, RSS at most %.1f MiB",
		total>>20, float64(heapGrowth)/(1<<20), float64(rssGrowth)/(1<<20))
	require.Less(t, heapGrowth, int64(16<<20), "heap grew with the data")
	require.Less(t, rssGrowth, int64(48<<20), "RSS grew with the data")
}

// TestOrphanCycles: spawn/cancel cycles of `sh -c 'sleep 60 & sleep 60 |
// cat'`, each cancelled once its whole tree runs, leave no process of any
// of those groups alive or zombie, no goroutine behind and the heap back at
// its baseline. The acceptance count, 1,000 cycles, by default (about 50 s
// under -race on two cores); 20 with -short; PROC_ORPHAN_CYCLES sets
// another count.
func TestOrphanCycles(t *testing.T) {
	cycles := 1000
	if s := os.Getenv("PROC_ORPHAN_CYCLES"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err)
		cycles = n
	}
	if testing.Short() {
		cycles = 20
	}
	pgids := map[int]bool{}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	for range cycles {
		ctx, cancel := context.WithCancel(context.Background())
		p, err := Start(ctx, Spec{Argv: sh("sleep 60 & sleep 60 | cat"), Lines: func([]Line) error { return nil }})
		require.NoError(t, err)
		pgids[p.Pid()] = true
		waitGroupSize(t, p.Pid(), 4) // sh, two sleeps, cat
		cancel()
		_, err = p.Wait()
		require.ErrorIs(t, err, context.Canceled)
	}
	t.Logf("%d spawn/cancel cycles in %v", cycles, time.Since(start).Round(time.Millisecond))
	require.Empty(t, groupMembers(pgids), "processes of cancelled groups survive")
	for _, c := range children() {
		require.NotEqual(t, byte('Z'), c.state, "zombie child %d (%s)", c.pid, c.comm)
	}
	goleak.VerifyNone(t)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	growth := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("heap in use grew by %d KiB over %d cycles", growth>>10, cycles)
	require.Less(t, growth, int64(4<<20), "heap did not return to baseline")
}
