//go:build unix

// Package eintr retries system calls that a signal interrupted. The Go runtime installs its
// signal handlers with SA_RESTART, yet some calls (open of a fifo or on a network file
// system, getdents on FUSE, fstatat on some file systems) can still fail with EINTR, which
// is never the caller's error.
//
// # Concurrency
//
// The functions keep no state: any goroutine may call them.
package eintr
