package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// goFile20k is a generated Go file of 20,000 rows: functions of a dozen
// rows with a comment, names, calls, numbers and strings, 53,000
// semantic tokens in the painting fake's reading.
func goFile20k() string {
	var sb strings.Builder
	sb.WriteString("package big\n\nimport \"fmt\"\n\n")
	for i := 0; i < 20000/12; i++ {
		fmt.Fprintf(&sb, "// f%d adds a to %d and counts up to it.\nfunc f%d(a int, b string) (int, error) {\n\tx := a + %d\n"+
			"\tif x > 10 {\n\t\treturn x, fmt.Errorf(\"too big: %%s\", b)\n\t}\n\tfor i := 0; i < a; i++ {\n\t\tx += i\n\t}\n"+
			"\treturn x, nil\n}\n\n", i, i, i, i)
	}
	return sb.String()
}

// Benchmark (env-gated: PMACS_EDITOR_BENCH=1): a 20,000-row Go file opened
// in the editor with the painting fake as its language server, which
// answers with a lexer's tokens (53,000): the time from the open to
// the first screen coloured from semantic tokens (the visible rows' range
// request) and to the whole file's tokens painted, and the main
// goroutine's work per frame meanwhile (p50, p99, max); then 60 keystrokes,
// each answered by a delta of the whole file's tokens, and the frames
// while they are painted. The same open with semantic highlighting off
// gives the frames the rest of the editor (the tree-sitter parse, the
// server's start) costs.
func TestSemanticPaintFrames(t *testing.T) {
	if os.Getenv("PMACS_EDITOR_BENCH") == "" {
		t.Skip("set PMACS_EDITOR_BENCH=1 to run the semantic paint benchmark")
	}
	defer reserveLoopProc()()
	for _, sc := range []struct {
		name      string
		on, gopls bool
	}{{"gopls", true, true}, {"fake server, semantic highlighting on", true, false}, {"fake server, semantic highlighting off", false, false}} {
		on := sc.on
		var dir string
		if sc.gopls {
			dir = goplsModule(t, map[string]string{"big.go": goFile20k()})
		} else {
			usePaintFakeLSP(t)
			dir = t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "big.go"), []byte(goFile20k()), 0o644))
		}
		exposeCtx(t)
		path := filepath.Join(dir, "big.go")
		require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x\n"), 0o644))
		h := startEditorLocked(t, Options{Path: filepath.Join(dir, "notes.txt")}, 120, 40)
		h.until("the notes read", func(e *session) bool { return !e.cur.loading })
		var frames, cpu []time.Duration
		var begin time.Duration
		h.e.call(func() {
			h.e.frameProbe = func(start bool) {
				if start {
					begin = threadCPU()
				} else {
					cpu = append(cpu, threadCPU()-begin)
				}
			}
			if !on {
				require.NoError(t, h.e.L.DoString(`test_ctx.commands["semantic-highlighting"]("")`))
			}
			require.NoError(t, h.e.L.DoString(`
				test_paints = {}
				table.insert(test_ctx.semantic.on_paint, function(buf, kind) test_paints[#test_paints + 1] = kind end)`))
			h.e.stats.all = &frames
		})
		start := time.Now()
		h.e.call(func() {
			require.NoError(t, h.e.L.DoString(fmt.Sprintf(`test_ctx.open_file(%q, 0, 0)`, path)))
		})

		var first, whole time.Duration
		paints := func(e *session) int { return e.L.GetGlobal("test_paints").(*lua.LTable).Len() }
		if on {
			h.untilLong("the first screen coloured", func(e *session) bool {
				if e.cur.path == path && len(e.cur.sem.row(5)) > 0 {
					first = time.Since(start)
					return true
				}
				return false
			})
			// gopls gives no whole file over 100,000 bytes: the
			// visible rows only, asked again as the view moves.
			h.untilLong("the whole file painted", func(e *session) bool {
				if sc.gopls {
					return true
				}
				b := e.cur
				if b.path != path {
					return false
				}
				for r := max(b.lines.len()-15, 0); r < b.lines.len(); r++ {
					if len(b.sem.row(r)) > 0 {
						whole = time.Since(start)
						return true
					}
				}
				return false
			})
		} else {
			h.untilLong("the file synced", func(e *session) bool { return e.cur.path == path && e.cur.signs != nil })
			time.Sleep(time.Second)
		}
		// The frames of the next half second too: the paint's last ones.
		time.Sleep(500 * time.Millisecond)
		var open, openCPU []time.Duration
		h.e.call(func() {
			open, openCPU = append(open, frames...), append(openCPU, cpu...)
			frames, cpu = frames[:0], cpu[:0]
		})

		var typing, typingCPU []time.Duration
		h.gotoLine("5")
		h.key(tcell.KeyEnd)
		for i := range 60 {
			h.typeText("y")
			want := i + 1
			h.untilLong("the keystroke's delta painted", func(e *session) bool {
				b := e.cur
				return strings.Count(b.lines.row(4), "y") == want && (!on || b.semRev == b.rev)
			})
			if !on {
				time.Sleep(20 * time.Millisecond)
			}
		}
		time.Sleep(300 * time.Millisecond)
		h.e.call(func() {
			typing, typingCPU = append(typing, frames...), append(typingCPU, cpu...)
			h.e.stats.all, h.e.frameProbe = nil, nil
		})
		var n int
		h.e.call(func() { n = paints(h.e) })
		name := sc.name
		t.Logf("%s: open a 20,000-row Go file: first coloured screen %s, whole file painted %s (%d paints); "+
			"frames meanwhile %d: wall p50 %s, p99 %s, max %s; main thread CPU p50 %s, p99 %s, max %s; load average %s",
			name, ms(first), ms(whole), n, len(open), ms(percentile(open, 0.5)), ms(percentile(open, 0.99)), ms(slicesMax(open)),
			ms(percentile(openCPU, 0.5)), ms(percentile(openCPU, 0.99)), ms(slicesMax(openCPU)), loadAverage())
		t.Logf("%s: 60 keystrokes (each painted from a delta of the whole file's tokens when on): frames %d: wall p50 %s, p99 %s, max %s; "+
			"main thread CPU p50 %s, p99 %s, max %s; load average %s",
			name, len(typing), ms(percentile(typing, 0.5)), ms(percentile(typing, 0.99)), ms(slicesMax(typing)),
			ms(percentile(typingCPU, 0.5)), ms(percentile(typingCPU, 0.99)), ms(slicesMax(typingCPU)), loadAverage())
	}
}
