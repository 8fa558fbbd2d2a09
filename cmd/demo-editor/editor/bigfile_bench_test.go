package editor

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
)

// bigGoFile writes a Go file of about size bytes: one package of many
// small functions.
func bigGoFile(t *testing.T, size int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.go")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	n, _ := w.WriteString("package big\n\n")
	for i := 0; n < size; i++ {
		s := "func f" + strconv.Itoa(i) + "(a, b int) int {\n\tif a > b {\n\t\treturn a - b // the difference\n\t}\n\treturn b + a*2\n}\n\n"
		m, _ := w.WriteString(s)
		n += m
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	return path
}

func rssBytes(t *testing.T) int {
	data, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for _, l := range bytes.Split(data, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte("VmRSS:")); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(v)), "kB")))
			return kb * 1024
		}
	}
	return 0
}

// Benchmark (env-gated: PMACS_EDITOR_BENCH=1): the 60 MB Go file figures
// of issue 14 (first paint, resident memory, keystroke p99) and the
// in-buffer search's times on it (first highlight, done).
func TestBigGoFileFigures(t *testing.T) {
	if os.Getenv("PMACS_EDITOR_BENCH") == "" {
		t.Skip("set PMACS_EDITOR_BENCH=1 to measure the 60 MB file figures")
	}
	const size = 60 << 20
	path := bigGoFile(t, size)
	runtime.GC()
	rss0 := rssBytes(t)
	start := time.Now()
	h := startEditor(t, Options{Path: path})
	for !anyContains(h.rows(), "package big") {
		require.Less(t, time.Since(start), time.Minute)
		time.Sleep(time.Millisecond)
	}
	firstPaint := time.Since(start)
	// Let the parse (if any) land, then measure memory.
	time.Sleep(3 * time.Second)
	rss := rssBytes(t) - rss0

	m := newLatencyMeter(h)
	h.e.call(func() { h.e.cur.setCursor(pos{1000, 0}); h.e.scrollToCursor(h.e.cur) })
	var lat []time.Duration
	for i := range 200 {
		r := rune('a' + i%26)
		row := 0
		h.e.call(func() { row = h.e.cur.cursor.Row })
		want := i + 1
		lat = append(lat, m.press(tcell.KeyRune, r, func(scr tcell.SimulationScreen) bool {
			return h.e.cur.cursor.Col == want && h.e.cur.cursor.Row == row
		}))
	}
	slices.Sort(lat)
	p99 := lat[len(lat)*99/100]
	rssTyped := rssBytes(t) - rss0

	// In-buffer search: M-f then "return".
	h.key(tcell.KeyEscape)
	h.alt('f')
	h.waitText("search:")
	t0 := time.Now()
	h.typeText("retur")
	var firstHit time.Duration
	for {
		var n int
		h.e.call(func() {
			if h.e.cur.hits != nil {
				n = h.e.cur.hits.len()
			}
		})
		if n > 0 && firstHit == 0 {
			firstHit = time.Since(t0)
		}
		if strings.Contains(messageLine(h.rows()), "retur  [") && !strings.Contains(messageLine(h.rows()), "searching") {
			break
		}
		require.Less(t, time.Since(t0), time.Minute)
		time.Sleep(time.Millisecond)
	}
	done := time.Since(t0)
	t.Logf("60 MB Go file: first paint %v; resident +%d MB after 3 s (%.1fx the file), +%d MB after typing; keystroke p50 %v p99 %v max %v",
		firstPaint, rss>>20, float64(rss)/size, rssTyped>>20, lat[len(lat)/2], p99, lat[len(lat)-1])
	t.Logf("in-buffer search \"retur\" typed: first matches %v, done %v: %s", firstHit, done, messageLine(h.rows()))
}

// Issue 14, defects (60 MB file): above 250,000 rows a file is not parsed
// (each keystroke would copy the whole text to a reparse) and the message
// line says so; no parse job runs for it.
func TestHugeFileIsNotParsedAndSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.go")
	require.NoError(t, os.WriteFile(path, []byte("package huge\n"+strings.Repeat("// x\n", 260_000)), 0o644))
	h := startEditor(t, Options{Path: path})
	h.waitScreen("the message", bottomHas("huge.go: 260001 rows: no syntax highlighting above 250000 rows"))
	h.typeText("y")
	h.waitText("ypackage huge")
	var parses int
	h.e.call(func() {
		s := h.e.rt.Snapshot()
		for _, a := range s.Active {
			if a.Kind.String() == "parse" {
				parses++
			}
		}
		for _, c := range s.Completed {
			if c.Kind.String() == "parse" {
				parses++
			}
		}
	})
	require.Zero(t, parses, "no parse job for a huge file")
}
