package trust

import (
	"os"
	"path/filepath"
	"testing"
)

// benchFolder is a folder whose .bin holds one program of size bytes, as a
// checkout with its own gopls (42 MB) does.
func benchFolder(b *testing.B, size int) string {
	b.Helper()
	dir := b.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".bin"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".bin", "gopls"), make([]byte, size), 0o755); err != nil {
		b.Fatal(err)
	}
	return dir
}

// The editor reads its trusted workspace's status when it starts (cold:
// every file hashed) and before every program it starts from the
// workspace (warm: a stat per file); an undecided workspace's status
// lists names only.
func BenchmarkStatus42MB(b *testing.B) {
	dir := benchFolder(b, 42<<20)
	state := filepath.Join(b.TempDir(), "trust.json")
	b.Run("undecided", func(b *testing.B) {
		db, _ := Open(state)
		for b.Loop() {
			if r, err := db.Status(dir); err != nil || r.Status != Untrusted {
				b.Fatal(r.Status, err)
			}
		}
	})
	db, _ := Open(state)
	if _, err := db.Allow(dir); err != nil {
		b.Fatal(err)
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			db, _ := Open(state)
			if r, err := db.Status(dir); err != nil || r.Status != Trusted {
				b.Fatal(r.Status, err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			if r, err := db.Status(dir); err != nil || r.Status != Trusted {
				b.Fatal(r.Status, err)
			}
		}
	})
}
