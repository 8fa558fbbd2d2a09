// Package dirent reads directories with getdents64 (on Linux) into a caller's reused
// buffer: the one directory reader of the walk and of fsops. The kernel reports each entry's
// type with its name, so a caller that only needs to tell files from directories makes no
// stat call per entry. On other systems the package holds only the types, which a caller's
// portable code shares.
//
// # Concurrency
//
// The functions keep no state; the buffer a caller passes must not be shared with another
// goroutine while a call runs. Reading one descriptor from two goroutines at once
// interleaves their batches, as with any read.
package dirent

// Type is what an entry is, as far as a reader of names cares.
type Type uint8

const (
	Other   Type = iota // a device, socket or fifo
	File                // a regular file
	Dir                 // a directory
	Symlink             // a symbolic link
)

// Entry is one directory entry.
type Entry struct {
	Name string
	Type Type
}
