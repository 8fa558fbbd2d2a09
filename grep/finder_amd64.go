package grep

import "golang.org/x/sys/cpu"

// pairBlock is how many positions one step of the pair scan tests: 32 with AVX2, else 16
// (SSE2, which every amd64 processor has).
var pairBlock = 16

func init() {
	if cpu.X86.HasAVX2 {
		pairBlock = 32
	}
}

// pairIndex returns the first s with h[s+off1] in {a1, b1} and h[s+off2] in {a2, b2} among
// the positions s < (len(h)-off2)/pairBlock*pairBlock, or -1. It needs 0 <= off1 <= off2 and
// len(h)-off2 >= pairBlock.
func pairIndex(h []byte, off1, off2 int, a1, b1, a2, b2 byte) int {
	if pairBlock == 32 {
		return pairIndexAVX2(h, off1, off2, a1, b1, a2, b2)
	}
	return pairIndexSSE2(h, off1, off2, a1, b1, a2, b2)
}

//go:noescape
func pairIndexSSE2(h []byte, off1, off2 int, a1, b1, a2, b2 byte) int

//go:noescape
func pairIndexAVX2(h []byte, off1, off2 int, a1, b1, a2, b2 byte) int
