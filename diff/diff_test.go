package diff

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// editScript applies a few random edits to lines: insertions of new lines
// or of copies of lines nearby (blank lines, closing braces: the repeated
// lines that make a change slide), deletions and rewrites of runs.
func editScript(r *rand.Rand, lines []string) []string {
	out := append([]string(nil), lines...)
	for range 1 + r.IntN(6) {
		at := r.IntN(len(out) + 1)
		n := 1 + r.IntN(4)
		switch r.IntN(4) {
		case 0: // insert new lines
			var ins []string
			for k := range n {
				ins = append(ins, fmt.Sprintf("\tinserted(%d, %d)\n", at, k))
			}
			out = append(out[:at], append(ins, out[at:]...)...)
		case 1: // insert copies of the lines around
			var ins []string
			for k := range n {
				src := max(0, min(len(out)-1, at-2+r.IntN(5)))
				if len(out) == 0 {
					break
				}
				_ = k
				ins = append(ins, out[src])
			}
			out = append(out[:at], append(ins, out[at:]...)...)
		case 2: // delete
			end := min(len(out), at+n)
			out = append(out[:at], out[end:]...)
		case 3: // rewrite
			for k := at; k < min(len(out), at+n); k++ {
				out[k] = strings.TrimSuffix(out[k], "\n") + " // changed\n"
			}
		}
	}
	return out
}

// rowsOf strips the lines' breaks, as an editor's rows come.
func rowsOf(lines []string) []string {
	rows := make([]string, len(lines))
	for i, l := range lines {
		rows[i] = strings.TrimSuffix(l, "\n")
	}
	return rows
}

var hunkHeader = regexp.MustCompile(`(?m)^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// parseHunks reads the @@ headers of a -U0 diff.
func parseHunks(t *testing.T, out string) []Hunk {
	var hs []Hunk
	num := func(s string) int {
		if s == "" {
			return 1
		}
		n, err := strconv.Atoi(s)
		require.NoError(t, err)
		return n
	}
	for _, m := range hunkHeader.FindAllStringSubmatch(out, -1) {
		hs = append(hs, Hunk{OldStart: num(m[1]), OldCount: num(m[2]), NewStart: num(m[3]), NewCount: num(m[4])})
	}
	return hs
}

// The hunks of 50 random edit scripts on a real source file equal, hunk
// for hunk, the @@ headers `git diff -U0` prints for the same edit in a
// real repository, with git's defaults (Myers, indent heuristic): the
// agreement the editor's gutter relies on. The edits insert copies of
// nearby lines (blank lines, braces), so many changes can slide and the
// test covers git's placement of them, not only the edit distance.
func TestLinesEqualGitDiffU0OnRandomEditScripts(t *testing.T) {
	repo := testenv.NewGitRepo(t)
	src, err := os.ReadFile("../runtime/runtime.go")
	require.NoError(t, err)
	file := filepath.Join(repo.Root, "runtime.go")
	require.NoError(t, os.WriteFile(file, src, 0o644))
	repo.Git("add", "runtime.go")
	repo.Git("commit", "-qm", "base")
	base := SplitLines(string(src))
	slid := 0
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 7))
		edited := editScript(r, base)
		require.NoError(t, os.WriteFile(file, []byte(strings.Join(edited, "")), 0o644))
		want := parseHunks(t, repo.Git("diff", "-U0", "--no-color", "--no-ext-diff", "runtime.go"))
		got, err := Lines(context.Background(), base, edited, Options{})
		require.NoError(t, err)
		require.Equal(t, want, got, "seed %d", seed)
		rows, err := Lines(context.Background(), rowsOf(base), rowsOf(edited), Options{Rows: true})
		require.NoError(t, err)
		require.Equal(t, want, rows, "seed %d, as rows without line breaks", seed)
		plain, err := Lines(context.Background(), base, edited, Options{NoIndentHeuristic: true})
		require.NoError(t, err)
		if fmt.Sprint(plain) != fmt.Sprint(got) {
			slid++
		}
		// The same without the heuristic, against git without it.
		wantPlain := parseHunks(t, repo.Git("diff", "-U0", "--no-color", "--no-ext-diff", "--no-indent-heuristic", "runtime.go"))
		require.Equal(t, wantPlain, plain, "seed %d without the indent heuristic", seed)
	}
	t.Logf("%d of 50 scripts had a change the indent heuristic placed differently", slid)
}

// Hunks apply: replaying them on the old lines gives the new ones, for
// random texts over a tiny alphabet (many ties) and for a tiny work bound
// (the coarse fallback).
func TestLinesHunksTurnOldIntoNew(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 11))
		gen := func() []string {
			n := r.IntN(40)
			ls := make([]string, n)
			for i := range ls {
				ls[i] = string(rune('a'+r.IntN(4))) + "\n"
			}
			return ls
		}
		a, b := gen(), gen()
		for _, o := range []Options{{}, {MaxWork: 1}} {
			hs, err := Lines(context.Background(), a, b, o)
			require.NoError(t, err)
			require.True(t, slices.Equal(b, apply(a, b, hs)), "seed %d %+v: %v", seed, o, hs)
		}
	}
}

// apply rebuilds the new text from the old one and the hunks (taking the
// added lines from b, as a patch carries them).
func apply(a, b []string, hs []Hunk) []string {
	var out []string
	i := 0
	for _, h := range hs {
		oldFirst := h.OldStart // 0-based index of the first old line changed
		if h.OldCount > 0 {
			oldFirst--
		}
		newFirst := h.NewStart
		if h.NewCount > 0 {
			newFirst--
		}
		out = append(out, a[i:oldFirst]...)
		out = append(out, b[newFirst:newFirst+h.NewCount]...)
		i = oldFirst + h.OldCount
	}
	return append(out, a[i:]...)
}

// A cancelled context ends a diff with its error.
func TestLinesStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := make([]string, 5000)
	b := make([]string, 5000)
	for i := range a {
		a[i], b[i] = fmt.Sprintf("a%d\n", i%97), fmt.Sprintf("b%d\n", i%89)
	}
	_, err := Lines(ctx, a, b, Options{})
	require.ErrorIs(t, err, context.Canceled)
}

func TestSplitLinesKeepsNewlines(t *testing.T) {
	require.Equal(t, []string{"a\n", "\n", "b"}, SplitLines("a\n\nb"))
	require.Nil(t, SplitLines(""))
}
