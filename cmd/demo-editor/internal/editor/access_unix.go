//go:build unix

package editor

import "golang.org/x/sys/unix"

// canWrite reports whether the user may write the file at path, as the
// kernel decides it (permission bits, ACLs, a read-only mount).
func canWrite(path string) bool { return unix.Access(path, unix.W_OK) == nil }
