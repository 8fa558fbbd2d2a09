package fsops

import "testing"

// Acceptance: on a kernel without openat2 the confined operations walk the
// path themselves and still act as the unconfined ones inside the roots,
// except that the walk follows no link at all.
func TestRootsWithoutOpenat2ActLikeTheUnconfinedOperations(t *testing.T) {
	withoutOpenat2(t)
	rootsActLikeUnconfined(t, map[string]string{
		"readdir dangling": "the walk meets the dangling link and answers ELOOP, not ENOENT",
	})
}
