//go:build unix

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
