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

// TestNextOfEqualsByteLoop covers the word-at-a-time search texts are scanned with: on
// random texts of letters of both cases, digits, punctuation (with '_' and '@', whose
// 0x20 bit differs from their neighbours'), bytes >= 0x80 and the character codes of a
// recoded non-ASCII text (a lower-case code and its upper case), from every start, nextOf
// finds the same first byte equal to either of two wanted bytes as a plain folded loop,
// case-sensitive or not.
func TestNextOfEqualsByteLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	lower := byte(codeTerm + classLower)
	upper := byte(codeTerm + classUpper)
	alphabet := "abcxyzABCXYZ019/_-.@`{\x7f\x80\xc3\xa9 " + string([]byte{lower, upper})
	wanted := "abcxyz019/_-.@`{ " + string([]byte{lower})
	plain := func(text []byte, from int, a, b byte, cs bool) int {
		for i := from; i < len(text); i++ {
			c := text[i]
			if !cs {
				c = lowerTable[c]
			}
			if c == a || c == b {
				return i
			}
		}
		return -1
	}
	for range 100000 {
		text := make([]byte, r.IntN(40))
		for i := range text {
			text[i] = alphabet[r.IntN(len(alphabet))]
		}
		a, b := wanted[r.IntN(len(wanted))], wanted[r.IntN(len(wanted))]
		cs := r.IntN(2) == 0
		if cs && r.IntN(2) == 0 && a >= 'a' && a <= 'z' {
			a -= 32
		}
		from := r.IntN(len(text) + 1)
		require.Equal(t, plain(text, from, a, b, cs), nextOf(text, from, a, b, cs), "%q from %d for %q %q (cs %v)", text, from, a, b, cs)
	}
}
