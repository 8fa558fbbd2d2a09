//go:build !linux

package walk

// background does nothing where a thread has no priority of its own: lowering it would lower
// the whole process's.
func background() {}
