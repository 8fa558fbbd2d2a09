package grep

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// naiveIndex is the reference for finder.index: every position, compared byte by byte.
func naiveIndex(h, needle []byte, fold bool) int {
	for s := 0; s+len(needle) <= len(h); s++ {
		ok := true
		for i := range needle {
			a, b := h[s+i], needle[i]
			if fold {
				a, b = lowerASCII(a), lowerASCII(b)
			}
			if a != b {
				ok = false
				break
			}
		}
		if ok {
			return s
		}
	}
	return -1
}

// finderAlphabet makes candidates frequent: letters in both cases, a byte whose value is
// a letter's with the case bit flipped but is no letter ('@' and '`'), a newline, non-ASCII.
var finderAlphabet = []byte("aAbBkKxX@`\n\xc3\xa9\xff")

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = finderAlphabet[r.IntN(len(finderAlphabet))]
	}
	return b
}

// checkFinder compares finder.index with naiveIndex for a needle over haystacks of many
// lengths (around the scan's block sizes) with the needle planted at many offsets.
func checkFinder(t *testing.T, r *rand.Rand, needle []byte, fold bool) {
	t.Helper()
	f := newFinder(needle, fold)
	for n := 0; n < 200; n++ {
		h := randomBytes(r, n)
		if n >= len(needle) && r.IntN(2) == 0 {
			at := r.IntN(n - len(needle) + 1)
			copy(h[at:], needle)
		}
		require.Equal(t, naiveIndex(h, needle, fold), f.index(h), "needle %q fold %v in %q", needle, fold, h)
	}
}

// The finder agrees with the naive search on random needles and haystacks, exact and folded,
// through whichever scan this machine uses.
func TestFinderAgreesWithNaiveSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		needle := randomBytes(r, 1+r.IntN(6))
		checkFinder(t, r, needle, false)
		checkFinder(t, r, needle, true)
	}
}

// Fuzz: the finder agrees with the naive search on any needle and haystack.
func FuzzFinderAgreesWithNaiveSearch(f *testing.F) {
	f.Add([]byte("ErrUnexpectedEOF"), bytes.Repeat([]byte("errunexpectedeoX "), 9), true)
	f.Add([]byte("func"), []byte("\nfunc main() {}\n"), false)
	f.Fuzz(func(t *testing.T, needle, h []byte, fold bool) {
		if len(needle) == 0 {
			return
		}
		require.Equal(t, naiveIndex(h, needle, fold), newFinder(needle, fold).index(h))
	})
}
