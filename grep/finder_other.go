//go:build !amd64

package grep

// pairBlock is 0: there is no vectorised pair scan, candidateFrom does the whole work.
const pairBlock = 0

func pairIndex(h []byte, off1, off2 int, a1, b1, a2, b2 byte) int { return -1 }
