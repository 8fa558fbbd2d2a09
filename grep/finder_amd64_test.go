package grep

import (
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// Each scan amd64 has (none, SSE2, AVX2 where the processor has it) agrees with the naive
// search, whichever one the processor would pick.
func TestFinderScansAgreeWithNaiveSearch(t *testing.T) {
	blocks := []int{0, 16}
	if cpu.X86.HasAVX2 {
		blocks = append(blocks, 32)
	} else {
		t.Log("this processor has no AVX2: its 32-byte scan is not tested here")
	}
	defer func(old int) { pairBlock = old }(pairBlock)
	for _, b := range blocks {
		pairBlock = b
		r := rand.New(rand.NewPCG(3, uint64(b)))
		for range 300 {
			needle := randomBytes(r, 1+r.IntN(40))
			checkFinder(t, r, needle, false)
			checkFinder(t, r, needle, true)
		}
	}
}
