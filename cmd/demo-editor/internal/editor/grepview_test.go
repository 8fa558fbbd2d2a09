package editor

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/kinds/grepjob"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// Issue 14, defects (live grep): the live grep searches what rg searches
// by default: a directory named build (on the old default skip list) is
// searched, files an .ignore names, hidden files and binary files are not,
// and the header says what it skipped, counted by the job, by reason.
func TestLiveGrepSearchesWhatRgSearches(t *testing.T) {
	dir := makeGrepDir(t, map[string]string{
		"main.go":           "needle in main\n",
		"build/gen.go":      "needle in build\n",
		"cmd/dist/dist.go":  "needle in dist\n",
		"ignored/x.go":      "needle ignored\n",
		"old.log":           "needle logged\n",
		".ignore":           "ignored/\n*.log\n",
		".hidden/secret.go": "needle hidden\n",
		"blob.bin":          "needle\x00binary\n",
	})
	h := startEditor(t, Options{Path: dir})
	h.waitText("main.go")
	h.ctrl('f')
	h.waitText("grep:")
	h.typeText("needle")
	rows := h.waitText(`grep "needle": 3 matches in 3 files  done  (skipped 2 ignored, 2 hidden, 1 binary, as rg)`)
	var st map[string]int
	h.e.call(func() {
		st = map[string]int{}
		h.e.grepStatus(h.e.cur.gv).RawGetString("skipped").(*lua.LTable).ForEach(func(k, v lua.LValue) {
			st[k.String()] = int(v.(lua.LNumber))
		})
	})
	require.Equal(t, map[string]int{
		"ignored_files": 1, "ignored_dirs": 1, "hidden_files": 1, "hidden_dirs": 1, "binary_files": 1,
		"excluded_dirs": 0, "unreadable_dirs": 0, "unreadable_files": 0, "oversize_files": 0, "other": 0,
	}, st, "grep_status(buf).skipped")
	require.True(t, anyContains(rows, "build/gen.go:1: needle in build"), "build/ is searched")
	require.True(t, anyContains(rows, "cmd/dist/dist.go:1: needle in dist"))
	require.False(t, anyContains(rows, "needle ignored"))
	require.False(t, anyContains(rows, "needle hidden"))
}

func makeGrepDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteTree(t, dir, files)
	return dir
}

// Issue 14, defects (live grep): the count and "done" come from the job,
// not from rows handed to Lua a batch a frame, and only the rows a window
// shows are formatted; a row scrolled into view is formatted then, and
// Enter still opens the match on any row.
func TestLiveGrepCountsFromTheJobAndFormatsShownRows(t *testing.T) {
	dir := grepTree(t, 20, 1000)
	h := startEditor(t, Options{Path: dir})
	h.waitText("f00.txt")
	h.ctrl('f')
	h.waitText("grep:")
	h.typeText("alpha")
	h.waitText(`grep "alpha": 19999 matches in 20 files  done`)
	var formatted, total int
	h.e.call(func() {
		b := h.e.cur
		total = b.lines.len()
		for _, l := range b.lines.all() {
			if l != "" {
				formatted++
			}
		}
	})
	require.Equal(t, 20000, total, "a row per match and the header")
	require.LessOrEqual(t, formatted, h.windowRowsCount()+1, "only the shown rows (and the header) are formatted")

	h.e.call(func() { h.e.cur.setCursor(pos{15000, 0}); h.e.scrollToCursor(h.e.cur) })
	h.key(tcell.KeyDown)
	// Which file's matches sit at row 15000 depends on the order the
	// fanout finished in, so the wait is for the cursor's own row.
	var line string
	h.e.call(func() { line = h.e.cur.lines.row(h.e.cur.cursor.Row) })
	require.Regexp(t, `^f\d\d\.txt:\d+: alpha \d+ \d+$`, line, "the cursor's row is formatted")
	h.waitScreen("the cursor's row drawn", func(rows []string) bool { return anyContains(rows, line) })
}

func (h *harness) windowRowsCount() int {
	var n int
	h.e.call(func() { n = h.e.windowHeight() })
	return n
}

// Issue 14, defects (live grep): M-r in the prompt toggles regex (the
// header says so), and a root that cannot be searched is reported, not
// shown as zero matches.
func TestLiveGrepRegexToggleAndBadRoot(t *testing.T) {
	dir := makeGrepDir(t, map[string]string{"a.txt": "alpha\naxpha\nal.ha\n"})
	h := startEditor(t, Options{Path: dir})
	h.waitText("a.txt")
	h.ctrl('f')
	h.waitText("grep:")
	h.typeText("al.ha")
	h.waitText(`grep "al.ha": 1 matches in 1 files  done`)
	h.alt('r')
	h.waitText(`grep "al.ha" (regex): 2 matches in 1 files  done`)
	h.key(tcell.KeyEscape)

	require.NoError(t, os.RemoveAll(dir))
	h.ctrl('f')
	h.waitText("grep:")
	h.typeText("x")
	rows := h.waitScreen("the root's error", func(rows []string) bool {
		return strings.HasPrefix(rows[0], `grep "x" (regex): 0 matches`) && strings.Contains(rows[0], "bad search root")
	})
	require.NotContains(t, rows[0], "done")
}

// A grep view's rows point at their matches without a reference stored per
// row (refAt reads the view's own matches), before and after the row is
// formatted; and once a script rewrites rows the view fills, the rows keep
// pointing at their matches across the splice.
func TestGrepViewRowsPointAtTheirMatches(t *testing.T) {
	dir := makeGrepDir(t, map[string]string{"a.txt": "one\nalpha here\ntwo\nalpha there\n"})
	h := startEditor(t, Options{Path: dir})
	h.waitText("a.txt")
	var buf int
	h.e.call(func() {
		require.NoError(t, h.e.L.DoString(fmt.Sprintf(`
			local ed = pmacs.editor
			gbuf = ed.create("*g*")
			ed.grep_view(gbuf, {root = %q, pattern = "alpha"})`, dir)))
		buf = int(h.e.L.GetGlobal("gbuf").(lua.LNumber))
	})
	h.until("both matches in", func(e *session) bool { return e.bufs[buf] != nil && e.bufs[buf].gv.state == "done" })
	matchAt := func(row int) string {
		var got string
		h.e.call(func() {
			require.NoError(t, h.e.L.DoString(fmt.Sprintf(`
				local m = pmacs.editor.match_at(gbuf, %d)
				got = m and (m.file .. ":" .. m.line .. ":" .. m.col) or "nil"`, row)))
			got = h.e.L.GetGlobal("got").String()
		})
		return got
	}
	require.Equal(t, "nil", matchAt(0), "the header points nowhere")
	require.Equal(t, "a.txt:2:0", matchAt(1))
	require.Equal(t, "a.txt:4:0", matchAt(2))
	h.e.call(func() { h.e.formatGrepRow(h.e.bufs[buf], 1) })
	require.Equal(t, "a.txt:2:0", matchAt(1), "a formatted row still points at its match")

	// A script inserts a row above the matches: the view moves down with
	// its rows.
	h.e.call(func() {
		require.NoError(t, h.e.L.DoString(`pmacs.editor.set_lines(gbuf, 1, 1, {"a note"})`))
	})
	require.Equal(t, "nil", matchAt(1), "the inserted row points nowhere")
	require.Equal(t, "a.txt:2:0", matchAt(2))
	require.Equal(t, "a.txt:4:0", matchAt(3))
	var second string
	h.e.call(func() { h.e.formatGrepRow(h.e.bufs[buf], 3); second = h.e.bufs[buf].lines.row(3) })
	require.Equal(t, "a.txt:4: alpha there", second, "the moved view formats the right match")

	// A script rewrites a match row: the view lets go of its rows, which
	// keep pointing where they did.
	h.e.call(func() {
		require.NoError(t, h.e.L.DoString(`pmacs.editor.set_lines(gbuf, 2, 3, {"rewritten"})`))
	})
	require.Equal(t, "nil", matchAt(2), "the rewritten row points nowhere")
	require.Equal(t, "a.txt:4:0", matchAt(3))
}

// TestMatchChunksIndexAcrossBatches proves a view's matches, kept as the
// blocks they came in (empty ones too), are found by their index across
// block boundaries.
func TestMatchChunksIndexAcrossBatches(t *testing.T) {
	var c matchChunks
	want := 0
	for _, size := range []int{3, 0, 5, 1, 4096, 2} {
		batch := make([]grep.Match, size)
		for i := range batch {
			batch[i].Line = uint32(want)
			want++
		}
		c.append(grepjob.NewMatchBlock(batch))
	}
	require.Equal(t, want, c.len())
	for i := range want {
		require.Equal(t, uint32(i), c.at(i).Line, "match %d", i)
	}
}

// A grep view takes its search's matches between frames too: a search of
// many times the stream credit does not need a frame per credit's worth
// (the pace that held the live grep to 8,192 matches a frame). With a 1 s
// frame target and a 2,048-match credit, 40,000 matches come in within a
// couple of frames; a take a frame would need about twenty.
func TestGrepViewTakesMatchesBetweenFrames(t *testing.T) {
	dir := grepTree(t, 10, 4000)
	h := startEditor(t, Options{Path: dir, runtime: runtime.Options{StreamCredit: 2048}})
	h.waitText("f00.txt")
	var buf int
	h.e.call(func() {
		h.e.rt.SetFrameTarget(time.Second)
		require.NoError(t, h.e.L.DoString(fmt.Sprintf(`
			local ed = pmacs.editor
			frames = 0
			ed.on("frame", function() frames = frames + 1 end)
			gbuf = ed.create("*g*")
			ed.grep_view(gbuf, {root = %q, pattern = "alpha"})`, dir)))
		buf = int(h.e.L.GetGlobal("gbuf").(lua.LNumber))
	})
	var frames int
	h.untilLong("the search done", func(e *session) bool {
		frames = int(e.L.GetGlobal("frames").(lua.LNumber))
		return e.bufs[buf].gv.state == "done"
	})
	h.e.call(func() { require.Equal(t, 39_999, h.e.bufs[buf].gv.count, "every alpha line") })
	require.LessOrEqual(t, frames, 5, "the matches came in between frames, not a credit's worth a frame")
}
