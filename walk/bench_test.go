package walk_test

import (
	"context"
	"os/exec"
	"runtime"
	"strconv"
	"testing"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/walk"
)

// Benchmark: a full listing of the Go source tree (warm cache) beside `rg --files` on the
// same tree with the same thread count, in the same run. The rg figure includes its process
// start and output through a pipe; the walk's includes building every path string.
func BenchmarkListGoSource(b *testing.B) {
	root := testenv.GoSrcOrSkip(b)
	threads := runtime.NumCPU()
	b.Run("walk", func(b *testing.B) {
		files := 0
		for b.Loop() {
			files = 0
			err := walk.List(context.Background(), root, walk.Options{Fanout: threads}, func(c walk.Chunk) error {
				files += len(c.Files)
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(files), "files")
	})
	b.Run("rg", func(b *testing.B) {
		testenv.Peer(b, testenv.Ripgrep)
		for b.Loop() {
			cmd := exec.Command("rg", append(append([]string{}, rgFilesArgs...), "-j", strconv.Itoa(threads))...)
			cmd.Dir = root
			if _, err := cmd.Output(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
