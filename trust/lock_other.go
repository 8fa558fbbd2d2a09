//go:build !unix

package trust

import "os"

// lockFile is a no-op where flock is not at hand: two processes changing
// the database at once may lose one decision (each write is still whole).
func lockFile(string) (func(), error) { return func() {}, nil }

// othersMayWrite checks nothing where permission bits do not say who may
// write.
func othersMayWrite(os.FileInfo) string { return "" }
