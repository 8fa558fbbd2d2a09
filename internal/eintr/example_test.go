//go:build unix

package eintr_test

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/internal/eintr"
)

// A system call wrapped in Value is repeated while a signal interrupts it;
// any other error, or success, is returned as is.
func ExampleValue() {
	interrupted := 2
	fd, err := eintr.Value(func() (int, error) {
		if interrupted > 0 {
			interrupted--
			return -1, unix.EINTR
		}
		return unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		panic(err)
	}
	defer unix.Close(fd)
	fmt.Println(interrupted, fd >= 0)

	err = eintr.Retry(func() error { return unix.Rmdir("/does/not/exist") })
	fmt.Println(err == unix.ENOENT)
	// Output:
	// 0 true
	// true
}
