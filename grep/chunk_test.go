package grep_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/grep"
)

// referenceLines is what Search must report for one file, computed line by line: every
// line (CR stripped) that is valid UTF-8 and holds a match ending within the first
// DefaultMaxMatchText bytes, with the spans that do.
func referenceLines(name, content string, re *regexp.Regexp) []grep.Match {
	var out []grep.Match
	for i, line := range strings.Split(content, "\n") {
		if i == strings.Count(content, "\n") && line == "" {
			break // no line after a final newline
		}
		line = strings.TrimSuffix(line, "\r")
		if !utf8.ValidString(line) {
			continue
		}
		text := line
		if len(text) > grep.DefaultMaxMatchText {
			cut := grep.DefaultMaxMatchText
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = text[:cut]
		}
		var spans [][2]uint32
		for _, loc := range re.FindAllStringIndex(line, -1) {
			if loc[1] <= len(text) {
				spans = append(spans, [2]uint32{uint32(loc[0]), uint32(loc[1])})
			}
		}
		if len(spans) > 0 {
			out = append(out, grep.Match{File: name, Line: uint32(i + 1), Text: text,
				MatchStart: spans[0][0], MatchEnd: spans[0][1], Spans: spans})
		}
	}
	return out
}

// Files larger than the read buffer are searched a buffer of whole lines at a time: matches
// on lines that straddle a buffer's end, lines longer than the buffer (a match at their
// start, middle or end, in a part dropped or kept), CRLF endings, a last line without a
// newline, and line numbers counted across buffers all come out as a line-by-line reference
// says, for literals, an ignore-case literal, a regex with a literal to prefilter on and one
// without.
func TestSearchAgreesWithLineByLineReferenceAcrossReadBuffers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 31))
	words := []string{"needle", "NeEdLe", "hay", "stack", " ", " ", "\r", "é", "\xff", "nee", "dle"}
	tree := map[string]string{}
	for f := range 6 {
		var b strings.Builder
		size := 200<<10 + r.IntN(500<<10)
		for b.Len() < size {
			if r.IntN(400) == 0 {
				// A line longer than the buffer, with a match at one of its ends or inside.
				long := strings.Repeat("x", 150<<10+r.IntN(150<<10))
				switch r.IntN(3) {
				case 0:
					long = "needle" + long
				case 1:
					long = long[:len(long)/2] + "needle" + long[len(long)/2:]
				default:
					long += "needle"
				}
				b.WriteString(long)
			}
			for range r.IntN(40) {
				b.WriteString(words[r.IntN(len(words))])
			}
			if r.IntN(5) == 0 {
				b.WriteByte('\r')
			}
			b.WriteByte('\n')
		}
		content := b.String()
		if f%2 == 1 {
			content += "last line needle without a newline"
		}
		tree[fmt.Sprintf("f%d.txt", f)] = content
	}
	root := makeTree(t, tree)
	for _, c := range []struct {
		spec grep.Spec
		re   string
	}{
		{grep.Spec{Pattern: "needle"}, "needle"},
		{grep.Spec{Pattern: "needle", IgnoreCase: true}, "(?i)needle"},
		{grep.Spec{Pattern: `ne+dle|hay\s+stack`, Regex: true}, `ne+dle|hay\s+stack`},
		{grep.Spec{Pattern: `ne+dle`, Regex: true}, `ne+dle`},
		{grep.Spec{Pattern: "xneedle"}, "xneedle"},
	} {
		re := regexp.MustCompile(c.re)
		var want []grep.Match
		for f := range 6 {
			name := fmt.Sprintf("f%d.txt", f)
			want = append(want, referenceLines(name, tree[name], re)...)
		}
		spec := c.spec
		spec.Root = root
		got, st := collect(t, spec)
		require.Equal(t, int64(6), st.FilesSearched)
		require.Equal(t, len(want), len(got), "pattern %q", c.re)
		for i := range want {
			require.Equal(t, want[i], got[i], "pattern %q, match %d", c.re, i)
		}
	}
}

// With ReuseBatch a callee that copies the matches it keeps gets the same matches as
// without, and the search hands it the same slice again, so a search with many matches does
// not allocate one per batch.
func TestSearchReuseBatchGivesTheSameMatches(t *testing.T) {
	tree := map[string]string{}
	for i := range 30 {
		tree[fmt.Sprintf("d%d/f%d.txt", i%3, i)] = strings.Repeat("a needle, another needle\nnone here\n", 700+i)
	}
	root := makeTree(t, tree)
	want, _ := collect(t, grep.Spec{Root: root, Pattern: "needle"})
	got, _ := collect(t, grep.Spec{Root: root, Pattern: "needle", ReuseBatch: true})
	require.Equal(t, want, got)

	var first *grep.Match
	reused := false
	_, err := grep.Search(context.Background(), grep.Spec{Root: root, Pattern: "needle", ReuseBatch: true, Fanout: 1},
		func(ms []grep.Match) error {
			if first == nil {
				first = &ms[0]
			} else if &ms[0] == first {
				reused = true
			}
			return nil
		})
	require.NoError(t, err)
	require.True(t, reused, "the batch slice was not reused")
}

// In a line longer than the read buffer, a hit that straddles the end of the first buffer
// (where the line's head is dropped) and a hit in the dropped head are both found, with the
// line's number and whole text (MaxMatchText allows it), exactly and with case folding.
func TestSearchFindsHitsAcrossTheDroppedHeadOfALongLine(t *testing.T) {
	const buf = 128 << 10
	straddle := strings.Repeat("x", buf-3) + "needle" + strings.Repeat("x", 100<<10)
	head := "needle" + strings.Repeat("y", 3*buf)
	tree := map[string]string{"straddle.txt": straddle + "\n", "head.txt": "short line\n" + head + "\nneedle again\n"}
	root := makeTree(t, tree)
	for _, fold := range []bool{false, true} {
		pattern := "needle"
		if fold {
			pattern = "NEEDLE"
		}
		ms, _ := collect(t, grep.Spec{Root: root, Pattern: pattern, IgnoreCase: fold, MaxMatchText: 1 << 20})
		require.Len(t, ms, 3)
		require.Equal(t, grep.Match{File: "head.txt", Line: 2, Text: head, MatchStart: 0, MatchEnd: 6, Spans: [][2]uint32{{0, 6}}}, ms[0])
		require.Equal(t, uint32(3), ms[1].Line)
		at := uint32(buf - 3)
		require.Equal(t, grep.Match{File: "straddle.txt", Line: 1, Text: straddle, MatchStart: at, MatchEnd: at + 6, Spans: [][2]uint32{{at, at + 6}}}, ms[2])
	}
}
