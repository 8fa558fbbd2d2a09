package editor

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// Benchmark (env-gated: PMACS_EDITOR_BENCH=1): the in-buffer search of a
// 60 MB file in which every row matches (1.5 million matches): the time
// from the last key of the query to the exact count with every match
// kept (the search complete), the memory the matches take, and the time
// of F3 from the middle of the file.
func TestSearchCountFigures(t *testing.T) {
	if os.Getenv("PMACS_EDITOR_BENCH") == "" {
		t.Skip("set PMACS_EDITOR_BENCH=1 to time the search count of a 60 MB file")
	}
	const size = 60 << 20
	path := filepath.Join(t.TempDir(), "big.txt")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	n, rows := 0, 0
	for ; n < size; rows++ {
		m, _ := fmt.Fprintf(w, "%08d the quick brown fox test 0 jumps\n", rows)
		n += m
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())

	h := startEditor(t, Options{Path: path})
	h.waitText("the quick brown fox")
	h.untilWithin(time.Minute, "the whole file read", func(e *session) bool { return !e.cur.loading })
	rss0 := resetPeakRSS(t)
	h.alt('f')
	h.waitScreen("the search prompt", bottomHas("search: "))
	want := fmt.Sprintf("[1/%d matches, literal]", rows)
	start := time.Now()
	h.typeText("test 0")
	for deadline := time.Now().Add(2 * time.Minute); ; {
		var done bool
		h.e.call(func() { done = h.e.cur.hits != nil && h.e.cur.hits.len() == rows })
		if done && strings.Contains(messageLine(h.rows()), want) {
			break
		}
		require.True(t, time.Now().Before(deadline), "no exact count in 2 minutes: %q", messageLine(h.rows()))
		time.Sleep(2 * time.Millisecond)
	}
	count := time.Since(start)
	peak := procStatus(t, "VmHWM") - rss0
	h.key(tcell.KeyEnter)
	h.waitScreen("the prompt closed", func(rows []string) bool { return !strings.Contains(messageLine(rows), "search:") })

	h.goToLine(rows / 2)
	t0 := time.Now()
	h.key(tcell.KeyF3)
	h.waitScreen("F3", bottomHas(fmt.Sprintf("match %d/%d", rows/2, rows)))
	t.Logf("search `test 0` in %d MB, %d rows, %d matches: %v to the exact count; peak memory +%d MB while searching; F3 from row %d: %v",
		n>>20, rows, rows, count, peak>>20, rows/2, time.Since(t0))
}
