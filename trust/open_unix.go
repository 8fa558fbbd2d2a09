//go:build unix

package trust

import (
	"os"
	"syscall"
)

// openNoBlock opens p for reading without waiting for a writer, should p
// be a FIFO.
func openNoBlock(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
