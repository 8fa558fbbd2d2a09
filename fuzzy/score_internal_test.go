package fuzzy

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fuzzy/internal/pathgen"
)

// TestRollingScoreEqualsMatrix covers the score-only alignment: on random texts over a
// small alphabet of letters, upper case, digits and separators (so runs, gaps, camel humps
// and repeated letters are frequent) and on real paths, rollingScore returns the same best
// score as the matrix the positions come from, case-sensitive or not.
func TestRollingScoreEqualsMatrix(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	const alphabet = "abcAB1/_-. x"
	var s scratch
	check := func(text, pat []byte, cs bool) {
		s.pos = s.pos[:0]
		want, ok := s.fuzzyScore(text, pat, cs, true)
		got, ok2 := s.fuzzyScore(text, pat, cs, false)
		require.Equal(t, ok, ok2, "%q in %q", pat, text)
		require.Equal(t, want, got, "%q in %q (cs %v)", pat, text, cs)
	}
	for range 200000 {
		text := make([]byte, 1+r.IntN(24))
		for i := range text {
			text[i] = alphabet[r.IntN(len(alphabet))]
		}
		pat := make([]byte, 2+r.IntN(4))
		for i := range pat {
			pat[i] = "abc1/_-."[r.IntN(8)]
		}
		check(text, pat, false)
		for i := range pat {
			if r.IntN(3) == 0 && pat[i] >= 'a' && pat[i] <= 'c' {
				pat[i] -= 32
			}
		}
		check(text, pat, true)
	}
	paths := pathgen.Synthetic(20000)
	for i, p := range paths {
		q := paths[(i*7919)%len(paths)]
		pat := []byte{lowerTable[q[0]], lowerTable[q[len(q)/2]], lowerTable[q[len(q)-4]]}
		check([]byte(p), pat, false)
		check([]byte(p), []byte("rndr"), false)
		check([]byte(p), []byte("srcutil"), false)
	}
}
