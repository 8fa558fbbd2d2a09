package grep_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// makeTree writes files (relative path -> content) under a fresh temporary root.
func makeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	writeTreeB(t, root, files)
	return root
}

func writeTreeB(t testing.TB, root string, files map[string]string) {
	t.Helper()
	testenv.WriteTree(t, root, files)
}

// collect runs Search and returns its matches sorted by file and line.
func collect(t *testing.T, spec grep.Spec) ([]grep.Match, grep.Stats) {
	t.Helper()
	var mu sync.Mutex
	var out []grep.Match
	st, err := grep.Search(context.Background(), spec, func(ms []grep.Match) error {
		mu.Lock()
		defer mu.Unlock()
		out = append(out, ms...)
		return nil
	})
	require.NoError(t, err)
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out, st
}

// files lists the distinct files of matches, sorted.
func files(ms []grep.Match) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		if !seen[m.File] {
			seen[m.File] = true
			out = append(out, m.File)
		}
	}
	sort.Strings(out)
	return out
}

// Reference port: known matches in known files, with line numbers and byte offsets.
func TestSearchFindsKnownMatchesWithLinesAndOffsets(t *testing.T) {
	root := makeTree(t, map[string]string{
		"src/a.txt":     "first\nneedle here\nthird\n",
		"src/b.txt":     "no match here\n",
		"src/sub/c.txt": "alpha needle\nbeta\nneedle",
		"README.md":     "needle\n",
	})
	ms, st := collect(t, grep.Spec{Root: root, Pattern: "needle"})
	require.Equal(t, []grep.Match{
		{File: "README.md", Line: 1, Text: "needle", MatchStart: 0, MatchEnd: 6, Spans: [][2]uint32{{0, 6}}},
		{File: "src/a.txt", Line: 2, Text: "needle here", MatchStart: 0, MatchEnd: 6, Spans: [][2]uint32{{0, 6}}},
		{File: "src/sub/c.txt", Line: 1, Text: "alpha needle", MatchStart: 6, MatchEnd: 12, Spans: [][2]uint32{{6, 12}}},
		{File: "src/sub/c.txt", Line: 3, Text: "needle", MatchStart: 0, MatchEnd: 6, Spans: [][2]uint32{{0, 6}}},
	}, ms)
	require.Equal(t, grep.Stats{FilesSearched: 4, FilesMatched: 3, Matches: 4, BytesSearched: st.BytesSearched}, st)
}

// Beyond the reference: every occurrence in a line is reported; the first is MatchStart/End.
func TestSearchReportsEverySpanInALine(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": "ab ab xab\nnone\naaaa\n"})
	ms, _ := collect(t, grep.Spec{Root: root, Pattern: "ab"})
	require.Len(t, ms, 1)
	require.Equal(t, [][2]uint32{{0, 2}, {3, 5}, {7, 9}}, ms[0].Spans)
	require.Equal(t, uint32(0), ms[0].MatchStart)
	require.Equal(t, uint32(2), ms[0].MatchEnd)

	// Occurrences do not overlap, as in ripgrep.
	ms, _ = collect(t, grep.Spec{Root: root, Pattern: "aa"})
	require.Len(t, ms, 1)
	require.Equal(t, [][2]uint32{{0, 2}, {2, 4}}, ms[0].Spans)
}

// Reference port: case-insensitive mode matches every casing of an ASCII pattern.
func TestSearchIgnoreCaseMatchesMixedCase(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": "FOO\nfoo\nFoO\nbar\n"})
	ms, _ := collect(t, grep.Spec{Root: root, Pattern: "foo", IgnoreCase: true})
	require.Len(t, ms, 3)
	// The zero value is case-sensitive.
	ms, _ = collect(t, grep.Spec{Root: root, Pattern: "foo"})
	require.Len(t, ms, 1)
	require.Equal(t, uint32(2), ms[0].Line)
}

// Beyond the reference: case folding is Unicode, in literal and regex modes, including runes
// whose other case is outside ASCII (KELVIN SIGN folds with k).
func TestSearchIgnoreCaseFoldsUnicode(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": "ÉCOLE normale\nune école\nECOLE\n\u212Aelvin\nkelvin\n"})
	for _, regex := range []bool{false, true} {
		ms, _ := collect(t, grep.Spec{Root: root, Pattern: "école", IgnoreCase: true, Regex: regex})
		require.Len(t, ms, 2, "regex=%v", regex)
		require.Equal(t, uint32(1), ms[0].Line)
		require.Equal(t, [][2]uint32{{0, 6}}, ms[0].Spans) // É is two bytes
		require.Equal(t, [][2]uint32{{4, 10}}, ms[1].Spans)

		ms, _ = collect(t, grep.Spec{Root: root, Pattern: "KELVIN", IgnoreCase: true, Regex: regex})
		require.Len(t, ms, 2, "regex=%v", regex)
		require.Equal(t, []uint32{4, 5}, []uint32{ms[0].Line, ms[1].Line})
		require.Equal(t, [][2]uint32{{0, 8}}, ms[0].Spans) // U+212A is three bytes
	}
	// A pattern with no ASCII at all still folds (no prefilter literal survives).
	ms, _ := collect(t, grep.Spec{Root: root, Pattern: "É", IgnoreCase: true})
	require.Len(t, ms, 2)
}

// Beyond the reference: RE2 regexes, with and without a literal every match must contain.
func TestSearchRegexReportsSpans(t *testing.T) {
	root := makeTree(t, map[string]string{
		"a.go":  "package a\n\nfunc Foo(x int) {}\nfunc (r *T) M() {}\n  func bar() { func baz() }\n",
		"n.txt": "12\n x 34\n56\r\n",
	})
	ms, _ := collect(t, grep.Spec{Root: root, Pattern: `func \w+\(`, Regex: true})
	require.Len(t, ms, 2)
	require.Equal(t, uint32(3), ms[0].Line)
	require.Equal(t, [][2]uint32{{0, 9}}, ms[0].Spans)
	require.Equal(t, uint32(5), ms[1].Line)
	require.Equal(t, [][2]uint32{{2, 11}, {15, 24}}, ms[1].Spans)

	// No required literal: every line is a candidate; ^ and $ are line anchors and a CRLF
	// line's CR is not part of it.
	ms, _ = collect(t, grep.Spec{Root: root, Pattern: `^\d+$`, Regex: true})
	require.Equal(t, []string{"n.txt"}, files(ms))
	require.Len(t, ms, 2)
	require.Equal(t, "12", ms[0].Text)
	require.Equal(t, "56", ms[1].Text)
	require.Equal(t, uint32(3), ms[1].Line)

	// Case-insensitive regex.
	ms, _ = collect(t, grep.Spec{Root: root, Pattern: `FUNC \(R`, Regex: true, IgnoreCase: true})
	require.Len(t, ms, 1)
	require.Equal(t, uint32(4), ms[0].Line)

	// Literal-prefixed regexes are tried at each occurrence of the prefix: an occurrence that
	// does not match does not hide a later one, and leftmost-first preference is kept.
	root = makeTree(t, map[string]string{"p.txt": "ab abc abd\nxabab\n"})
	ms, _ = collect(t, grep.Spec{Root: root, Pattern: `(ab)(c|d)`, Regex: true})
	require.Len(t, ms, 1)
	require.Equal(t, [][2]uint32{{3, 6}, {7, 10}}, ms[0].Spans)
	ms, _ = collect(t, grep.Spec{Root: root, Pattern: `a(?:|b)`, Regex: true})
	require.Len(t, ms, 2)
	require.Equal(t, [][2]uint32{{0, 1}, {3, 4}, {7, 8}}, ms[0].Spans, "leftmost-first prefers the empty branch")
	ms, _ = collect(t, grep.Spec{Root: root, Pattern: `AB\b`, Regex: true, IgnoreCase: true})
	require.Len(t, ms, 2)
	require.Equal(t, [][2]uint32{{0, 2}}, ms[0].Spans)
	require.Equal(t, [][2]uint32{{3, 5}}, ms[1].Spans)
}

// Reference port: binary files (NUL in the first 8 KiB) and files over MaxFileBytes are
// skipped; a NUL past the first 8 KiB does not make a file binary.
func TestSearchSkipsBinaryAndOversizeFiles(t *testing.T) {
	root := makeTree(t, map[string]string{
		"bin.dat":   "prefix\x00needle suffix\n",
		"big.txt":   strings.Repeat("needle\n", 2000),
		"small.txt": "needle\n",
		"late.txt":  strings.Repeat("x", 9000) + "\x00\nneedle\n",
	})
	ms, st := collect(t, grep.Spec{Root: root, Pattern: "needle", MaxFileBytes: 1024 * 10})
	require.Equal(t, []string{"late.txt", "small.txt"}, files(ms))
	require.Equal(t, int64(2), st.FilesSkipped)
}

// Non-UTF-8 lines are skipped, the other lines of the file still match; CR is stripped.
func TestSearchSkipsNonUTF8LinesAndStripsCR(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": "needle \xff\xfe\r\nneedle ok\r\nneedle\r"})
	ms, _ := collect(t, grep.Spec{Root: root, Pattern: "needle"})
	require.Len(t, ms, 2)
	require.Equal(t, "needle ok", ms[0].Text)
	require.Equal(t, uint32(2), ms[0].Line)
	require.Equal(t, "needle", ms[1].Text)
	require.Equal(t, uint32(3), ms[1].Line)
}

// Reference port: the 1000-file synthetic tree is searched completely, in parallel.
func TestSearchFindsEveryMatchInAThousandFileTree(t *testing.T) {
	tree := map[string]string{}
	for i := range 1000 {
		tree[fmt.Sprintf("d%02d/f%04d.txt", i%37, i)] = fmt.Sprintf("header line\nnoise noise noise\nneedle line %d\nfooter\n", i)
	}
	root := makeTree(t, tree)
	for _, fanout := range []int{1, 4} {
		ms, st := collect(t, grep.Spec{Root: root, Pattern: "needle", Fanout: fanout})
		require.Len(t, ms, 1000)
		require.Equal(t, int64(1000), st.FilesMatched)
		for _, m := range ms {
			require.Equal(t, uint32(3), m.Line)
		}
	}
}

// Reference port: a long line is cut to MaxMatchText at a UTF-8 boundary, and a match that
// ends past the cut is dropped (with every later span of the line).
func TestSearchTruncatesLongLinesAndDropsMatchesPastTheCut(t *testing.T) {
	long := "needle " + strings.Repeat("é", 100) + " needle " + strings.Repeat("x", 16<<10)
	root := makeTree(t, map[string]string{
		"long.txt": long + "\n" + strings.Repeat("y", 200) + "needle\n",
	})
	ms, _ := collect(t, grep.Spec{Root: root, Pattern: "needle", MaxMatchText: 128})
	require.Len(t, ms, 1)
	require.Equal(t, uint32(1), ms[0].Line)
	require.LessOrEqual(t, len(ms[0].Text), 128)
	require.Equal(t, 127, len(ms[0].Text), "cut back to the start of a two-byte rune")
	require.True(t, strings.HasPrefix(ms[0].Text, "needle "))
	require.Equal(t, [][2]uint32{{0, 6}}, ms[0].Spans)
}

// Reference port: an empty pattern matches nothing and the search ends cleanly.
func TestSearchEmptyPatternMatchesNothing(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": "any line\n"})
	for _, regex := range []bool{false, true} {
		called := false
		st, err := grep.Search(context.Background(), grep.Spec{Root: root, Regex: regex}, func([]grep.Match) error {
			called = true
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, grep.Stats{}, st)
		require.False(t, called)
	}
}

// Bad input is a clear error, from Validate and from Search alike.
func TestValidateRejectsBadRootAndPattern(t *testing.T) {
	root := makeTree(t, map[string]string{"f.txt": "x\n"})
	cases := []struct {
		spec grep.Spec
		is   error
		says string
	}{
		{grep.Spec{Root: filepath.Join(root, "missing"), Pattern: "x"}, grep.ErrBadRoot, "missing"},
		{grep.Spec{Root: filepath.Join(root, "f.txt"), Pattern: "x"}, grep.ErrBadRoot, "not a directory"},
		{grep.Spec{Root: "", Pattern: "x"}, grep.ErrBadRoot, "empty"},
		{grep.Spec{Root: root, Pattern: "a(b", Regex: true}, grep.ErrBadPattern, "a(b"},
		{grep.Spec{Root: root, Pattern: "a\x00b"}, grep.ErrBadPattern, "NUL"},
	}
	for _, c := range cases {
		err := grep.Validate(c.spec)
		require.ErrorIs(t, err, c.is)
		require.Contains(t, err.Error(), c.says)
		_, serr := grep.Search(context.Background(), c.spec, func([]grep.Match) error { return nil })
		require.ErrorIs(t, serr, c.is)
		require.Equal(t, err.Error(), serr.Error())
	}
	require.NoError(t, grep.Validate(grep.Spec{Root: root, Pattern: "a(b"}), "a literal is never a bad regex")
}

// Hidden files and directories are skipped unless Spec.Hidden, as with ripgrep's --hidden.
func TestSearchHiddenOption(t *testing.T) {
	root := makeTree(t, map[string]string{
		".hidden.txt":     "needle\n",
		".cfg/inner.txt":  "needle\n",
		"shown.txt":       "needle\n",
		"sub/.secret.txt": "needle\n",
	})
	ms, _ := collect(t, grep.Spec{Root: root, Pattern: "needle"})
	require.Equal(t, []string{"shown.txt"}, files(ms))
	ms, _ = collect(t, grep.Spec{Root: root, Pattern: "needle", Hidden: true})
	require.Equal(t, []string{".cfg/inner.txt", ".hidden.txt", "shown.txt", "sub/.secret.txt"}, files(ms))
}

// SkipDirs: nil means DefaultSkipDirs, a custom list replaces it, an empty one skips nothing.
func TestSearchSkipDirsOption(t *testing.T) {
	tree := map[string]string{"keep/a.txt": "needle\n", "vendor/a.txt": "needle\n"}
	for _, d := range grep.DefaultSkipDirs {
		tree["x/"+d+"/a.txt"] = "needle\n"
	}
	root := makeTree(t, tree)
	ms, _ := collect(t, grep.Spec{Root: root, Pattern: "needle"})
	require.Equal(t, []string{"keep/a.txt", "vendor/a.txt"}, files(ms))
	ms, _ = collect(t, grep.Spec{Root: root, Pattern: "needle", SkipDirs: []string{"vendor"}})
	require.Len(t, files(ms), 1+len(grep.DefaultSkipDirs))
	ms, _ = collect(t, grep.Spec{Root: root, Pattern: "needle", SkipDirs: []string{}})
	require.Len(t, files(ms), 2+len(grep.DefaultSkipDirs))
}

// Symlinks, to files or to directories, are neither followed nor searched (no cycles).
func TestSearchDoesNotFollowSymlinks(t *testing.T) {
	root := makeTree(t, map[string]string{"real/a.txt": "needle\n"})
	outside := makeTree(t, map[string]string{"b.txt": "needle\n"})
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "linkdir")))
	require.NoError(t, os.Symlink(filepath.Join(root, "real", "a.txt"), filepath.Join(root, "link.txt")))
	require.NoError(t, os.Symlink(root, filepath.Join(root, "real", "loop")))
	ms, _ := collect(t, grep.Spec{Root: root, Pattern: "needle"})
	require.Equal(t, []string{"real/a.txt"}, files(ms))
}

// MaxResults caps the matches emitted, exactly, whatever the fanout; the search ends cleanly.
func TestSearchStopsAtMaxResults(t *testing.T) {
	tree := map[string]string{}
	for i := range 50 {
		tree[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("needle\n", 30)
	}
	root := makeTree(t, tree)
	for _, fanout := range []int{1, 4} {
		ms, st := collect(t, grep.Spec{Root: root, Pattern: "needle", MaxResults: 45, Fanout: fanout})
		require.Len(t, ms, 45)
		require.Equal(t, int64(45), st.Matches)
	}
}

// A file with more matching lines than one batch holds arrives in several batches of that
// file only, in line order.
func TestSearchBatchesHoldOneFileInLineOrder(t *testing.T) {
	root := makeTree(t, map[string]string{
		"big.txt":   strings.Repeat("needle\n", 2500),
		"small.txt": "needle\nneedle\n",
	})
	var mu sync.Mutex
	last := map[string]uint32{}
	total := 0
	_, err := grep.Search(context.Background(), grep.Spec{Root: root, Pattern: "needle", Fanout: 2}, func(ms []grep.Match) error {
		mu.Lock()
		defer mu.Unlock()
		// emit runs on a fanout goroutine: assert, not require (FailNow must stay on the
		// test goroutine).
		assert.NotEmpty(t, ms)
		for _, m := range ms {
			assert.Equal(t, ms[0].File, m.File, "a batch mixes files")
			assert.Equal(t, last[m.File]+1, m.Line, "lines out of order")
			last[m.File] = m.Line
		}
		total += len(ms)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 2502, total)
}

// An error from emit stops the search and is returned as is.
func TestSearchReturnsEmitError(t *testing.T) {
	tree := map[string]string{}
	for i := range 200 {
		tree[fmt.Sprintf("f%03d.txt", i)] = "needle\n"
	}
	root := makeTree(t, tree)
	boom := errors.New("consumer gone")
	var mu sync.Mutex
	calls := 0
	_, err := grep.Search(context.Background(), grep.Spec{Root: root, Pattern: "needle", Fanout: 4}, func([]grep.Match) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Less(t, calls, 200)
}

// Cancel: a cancelled search returns context.Canceled within the 50 ms acceptance bound,
// and only after every fanout goroutine has returned (none is left when Search returns).
// CI machines share their cores, so the bound must hold in one of three attempts; a search
// that did not poll for cancel would miss it every time.
func TestSearchCancelReturnsAfterEveryGoroutineExits(t *testing.T) {
	tree := map[string]string{}
	body := strings.Repeat("noise noise noise needle noise\n", 200)
	for i := range 3000 {
		tree[fmt.Sprintf("d%02d/f%04d.txt", i%20, i)] = body
	}
	root := makeTree(t, tree)
	for _, fanout := range []int{1, 3, 16} {
		var best time.Duration
		for attempt := 0; attempt < 3 && (attempt == 0 || best >= 50*time.Millisecond); attempt++ {
			before := goleak.IgnoreCurrent()
			ctx, cancel := context.WithCancel(context.Background())
			var cancelledAt time.Time
			var once sync.Once
			_, err := grep.Search(ctx, grep.Spec{Root: root, Pattern: "needle", Fanout: fanout}, func([]grep.Match) error {
				once.Do(func() {
					cancelledAt = time.Now()
					cancel()
				})
				return nil
			})
			elapsed := time.Since(cancelledAt)
			require.ErrorIs(t, err, context.Canceled)
			goleak.VerifyNone(t, before)
			cancel()
			if attempt == 0 || elapsed < best {
				best = elapsed
			}
		}
		require.Less(t, best, 50*time.Millisecond, "fanout %d", fanout)
	}
}

// A context that is already done, or that expires, is reported as such.
func TestSearchReportsDoneContext(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": "needle\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := grep.Search(ctx, grep.Spec{Root: root, Pattern: "needle"}, func([]grep.Match) error { return nil })
	require.ErrorIs(t, err, context.Canceled)

	tree := map[string]string{}
	for i := range 2000 {
		tree[fmt.Sprintf("f%04d.txt", i)] = "needle\n"
	}
	root = makeTree(t, tree)
	dctx, dcancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer dcancel()
	_, err = grep.Search(dctx, grep.Spec{Root: root, Pattern: "needle", Fanout: 2}, func([]grep.Match) error {
		<-dctx.Done() // a slow consumer: the deadline passes mid-search
		return nil
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// Files of every size up to the cap are read whole (one read, several reads, a chunked big
// file), a file of exactly MaxFileBytes is searched and one byte more is skipped.
func TestSearchReadsFilesOfEverySizeUpToTheCap(t *testing.T) {
	mk := func(size int) string {
		line := strings.Repeat("x", 99) + "\n"
		body := strings.Repeat(line, size/100)
		body += strings.Repeat("y", size-len(body)-len("needle\n")) + "needle\n"
		require.Len(t, body, size)
		return body
	}
	sizes := []int{7, 8 << 10, 128 << 10, 128<<10 + 1, 3 << 20}
	tree := map[string]string{}
	for _, n := range sizes {
		tree[fmt.Sprintf("f%08d.txt", n)] = mk(n)
	}
	root := makeTree(t, tree)
	ms, st := collect(t, grep.Spec{Root: root, Pattern: "needle"})
	require.Len(t, ms, len(sizes))
	for i, n := range sizes {
		require.Equal(t, fmt.Sprintf("f%08d.txt", n), ms[i].File)
		require.Equal(t, uint32(strings.Count(tree[ms[i].File], "\n")), ms[i].Line)
	}
	require.Equal(t, int64(0), st.FilesSkipped)

	capped := int64(128<<10 + 1)
	ms, st = collect(t, grep.Spec{Root: root, Pattern: "needle", MaxFileBytes: capped})
	require.Equal(t, []string{"f00000007.txt", "f00008192.txt", "f00131072.txt", "f00131073.txt"}, files(ms))
	require.Equal(t, int64(1), st.FilesSkipped)
	ms, _ = collect(t, grep.Spec{Root: root, Pattern: "needle", MaxFileBytes: capped - 1})
	require.Equal(t, []string{"f00000007.txt", "f00008192.txt", "f00131072.txt"}, files(ms))
}

// Progress counts every searched file, matching or not, while the search
// runs: the editor shows it as "files searched".
func TestSearchCountsProgress(t *testing.T) {
	root := t.TempDir()
	for i := range 20 {
		body := "nothing\n"
		if i%5 == 0 {
			body = "needle\n"
		}
		require.NoError(t, os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.txt", i)), []byte(body), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "bin.dat"), []byte("needle\x00"), 0o644))
	var progress atomic.Int64
	ms, st := collect(t, grep.Spec{Root: root, Pattern: "needle", Progress: &progress})
	require.Len(t, ms, 4)
	require.Equal(t, int64(20), progress.Load(), "binary files are skipped, not searched")
	require.Equal(t, st.FilesSearched, progress.Load())
}

// injectedPanic is a value only these tests panic with, so a recovered value can be told
// apart from any other panic.
type injectedPanic struct{ where string }

// searchRecovering runs Search and returns what it panicked with, and whether it returned
// normally instead.
func searchRecovering(spec grep.Spec, emit func([]grep.Match) error) (v any, returned bool) {
	defer func() { v = recover() }()
	_, _ = grep.Search(context.Background(), spec, emit)
	return nil, true
}

func manyFiles(t *testing.T, n int) string {
	tree := map[string]string{}
	for i := range n {
		tree[fmt.Sprintf("d%02d/f%04d.txt", i%7, i)] = "needle\n"
	}
	return makeTree(t, tree)
}

// Issue 11 defect 5: a panic in a fanout goroutine used to kill the process. Search now stops
// the rest of the search and panics on the caller's goroutine with the same value (where the
// runtime's worker isolation settles the job), after every fanout goroutine has ended.
func TestSearchRepanicsAFanoutPanicOnTheCaller(t *testing.T) {
	root := manyFiles(t, 200)
	for _, fanout := range []int{1, 4} {
		before := goleak.IgnoreCurrent()
		want := &injectedPanic{"file hook"}
		var calls atomic.Int64
		remove := grep.SetFileHookForTest(func(string) {
			if calls.Add(1) == 10 {
				panic(want)
			}
		})
		v, returned := searchRecovering(grep.Spec{Root: root, Pattern: "needle", Fanout: fanout}, func([]grep.Match) error { return nil })
		remove()
		require.False(t, returned, "fanout %d: Search returned instead of panicking", fanout)
		require.True(t, v == any(want), "fanout %d: repanicked with %v, not the original value", fanout, v)
		goleak.VerifyNone(t, before)
		if fanout == 1 {
			require.EqualValues(t, 10, calls.Load(), "the search stopped at the panic")
		}
	}
}

// A panic inside the caller's emit runs on a fanout goroutine too: it reaches the caller the
// same way, and nothing is emitted after it.
func TestSearchRepanicsAnEmitPanicOnTheCaller(t *testing.T) {
	root := manyFiles(t, 200)
	for _, fanout := range []int{1, 4} {
		before := goleak.IgnoreCurrent()
		want := &injectedPanic{"emit"}
		var calls atomic.Int64
		v, returned := searchRecovering(grep.Spec{Root: root, Pattern: "needle", Fanout: fanout}, func([]grep.Match) error {
			calls.Add(1)
			panic(want)
		})
		require.False(t, returned, "fanout %d: Search returned instead of panicking", fanout)
		require.True(t, v == any(want), "fanout %d: repanicked with %v, not the original value", fanout, v)
		goleak.VerifyNone(t, before)
		if fanout == 1 {
			require.EqualValues(t, 1, calls.Load(), "no emit after the panic")
		}
	}
}

// An emit that calls runtime.Goexit (t.FailNow does) used to end one fanout goroutine
// silently: Search returned a partial result as a complete one, or, with other goroutines
// waiting for that goroutine's task, never returned. Now Search stops and exits the caller's
// goroutine the same way.
func TestSearchRepeatsAnEmitGoexitOnTheCaller(t *testing.T) {
	root := manyFiles(t, 200)
	for _, fanout := range []int{1, 4} {
		before := goleak.IgnoreCurrent()
		done := make(chan bool, 1)
		go func() {
			returned := false
			defer func() { done <- returned }()
			_, _ = grep.Search(context.Background(), grep.Spec{Root: root, Pattern: "needle", Fanout: fanout}, func([]grep.Match) error {
				runtime.Goexit()
				return nil
			})
			returned = true
		}()
		select {
		case returned := <-done:
			require.False(t, returned, "fanout %d: Search returned instead of exiting", fanout)
		case <-time.After(10 * time.Second):
			t.Fatalf("fanout %d: Search hung after emit called runtime.Goexit", fanout)
		}
		goleak.VerifyNone(t, before)
	}
}
