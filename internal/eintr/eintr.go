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

import "golang.org/x/sys/unix"

// Retry calls f until it returns something other than EINTR, and returns that.
func Retry(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}

// Value calls f until its error is something other than EINTR, and returns that result.
func Value[T any](f func() (T, error)) (T, error) {
	for {
		v, err := f()
		if err != unix.EINTR {
			return v, err
		}
	}
}
