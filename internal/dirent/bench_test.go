//go:build linux

package dirent

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// makeEntries fills a directory with n empty files.
func makeEntries(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("entry-%06d.txt", i)), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// readAll reads the whole directory with one of the readers under test.
func readAll(b *testing.B, dir string, buf []byte, read func(fd int, buf []byte) (more bool, err error)) {
	fd, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(fd)
	for more := true; more; {
		if more, err = read(fd, buf); err != nil {
			b.Fatal(err)
		}
	}
}

// Benchmark: the name phase of a 100,000-entry directory (fsops's 8 KiB buffer) through
// ReadNames and Read beside the x/sys getdents + ParseDirent loop fsops used before, same
// run (use -count to interleave them).
func BenchmarkRead100k(b *testing.B) {
	const n = 100_000
	dir := makeEntries(b, n)
	buf := make([]byte, 8<<10)
	var names []string
	var ents []Entry
	cases := []struct {
		name string
		read func(fd int, buf []byte) (bool, error)
	}{
		{"ReadNames", func(fd int, buf []byte) (more bool, err error) {
			names, more, err = ReadNames(fd, buf, names)
			return more, err
		}},
		{"Read", func(fd int, buf []byte) (more bool, err error) {
			ents, more, err = Read(fd, buf, ents)
			return more, err
		}},
		{"xsys-ParseDirent", func(fd int, buf []byte) (bool, error) {
			for {
				k, err := unix.Getdents(fd, buf)
				if err == unix.EINTR {
					continue
				}
				if err != nil || k <= 0 {
					return false, err
				}
				_, _, names = unix.ParseDirent(buf[:k], -1, names)
				return true, nil
			}
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				names, ents = names[:0], ents[:0]
				readAll(b, dir, buf, c.read)
				if len(names)+len(ents) != n {
					b.Fatalf("%d entries", len(names)+len(ents))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/entry")
		})
	}
}
