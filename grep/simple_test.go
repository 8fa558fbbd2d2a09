package grep

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// simpleTokens build patterns: literals, ASCII classes, a non-ASCII class, repeats of every
// kind (greedy and not), and syntax the one-pass form must refuse.
var simpleTokens = []string{"a", "b", "(", "é", `\w`, `\d`, `[a-c]`, `[^a]`, `[é]`, ".", `\s`,
	"+", "*", "?", "{2}", "{1,3}", "{2,}", "+?", "|", `\b`, "$", "(?i)a", "(", ")"}

// simpleText makes inputs where the classes and literals above meet often.
var simpleText = []string{"a", "b", "c", "(", " ", "1", "_", "é", "A", "\xff", "\t"}

// Wherever the one-pass form accepts a pattern, it finds the same match as the regexp
// package anchored at the start of the input: the same end, or none.
func TestSimpleReAgreesWithRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 5))
	accepted := 0
	for range 20000 {
		var p strings.Builder
		for range 1 + r.IntN(6) {
			p.WriteString(simpleTokens[r.IntN(len(simpleTokens))])
		}
		tree, err := syntax.Parse(p.String(), syntax.Perl)
		if err != nil {
			continue
		}
		s := compileSimple(tree.Simplify())
		if s == nil {
			continue
		}
		accepted++
		re := regexp.MustCompile(`^(?:` + p.String() + `)`)
		for range 30 {
			var b strings.Builder
			for range r.IntN(12) {
				b.WriteString(simpleText[r.IntN(len(simpleText))])
			}
			in := []byte(b.String())
			want := -1
			if loc := re.FindIndex(in); loc != nil {
				want = loc[1]
			}
			require.Equal(t, want, s.matchAt(in), "pattern %q on %q", p.String(), in)
		}
	}
	require.Greater(t, accepted, 1000, "too few patterns of the shape to prove anything")
}

// The shapes it must refuse: a repeat that may stop early before what its class can start,
// a lazy repeat, a non-ASCII class, case folding, alternation and assertions.
func TestSimpleReRefusesWhatItCannotMatchInOnePass(t *testing.T) {
	for _, p := range []string{`\w+a`, `a\w*\d`, `a\w+?b`, `a[éa]`, `(?i)ab`, `ab|cd`, `a\b`, `a$`, `a.`, `a\w*\d*`} {
		tree, err := syntax.Parse(p, syntax.Perl)
		require.NoError(t, err)
		require.Nil(t, compileSimple(tree.Simplify()), p)
	}
	for _, p := range []string{`func \w+\(`, `[A-Z][a-z]+Error`, `0x[0-9a-f]+`, `a\d*b`} {
		tree, err := syntax.Parse(p, syntax.Perl)
		require.NoError(t, err)
		require.NotNil(t, compileSimple(tree.Simplify()), p)
	}
}
