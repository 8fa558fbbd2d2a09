package fileuri

import "testing"

// BenchmarkURI measures each conversion on a path of a typical depth: a
// plain one and one that needs escapes, and Canonical of a URI already in
// canonical form (the usual case: the server echoes the client's URI) and
// of gopls's spelling.
func BenchmarkURI(b *testing.B) {
	plain, escaped := "/home/user/src/project/internal/server/handler.go", "/home/user/src/my project/ü/a#b.go"
	plainURI := "file://" + plain
	for _, bc := range []struct {
		name string
		f    func()
	}{
		{"FromPath/plain", func() { _ = FromPath(plain) }},
		{"FromPath/escaped", func() { _ = FromPath(escaped) }},
		{"ToPath/plain", func() { _, _ = ToPath(plainURI) }},
		{"ToPath/escaped", func() { _, _ = ToPath("file:///home/user/src/my%20project/%C3%BC/a%23b.go") }},
		{"Canonical/canonical", func() { _, _ = Canonical("file:///home/user/src/my%20project/%C3%BC/a%23b.go") }},
		{"Canonical/gopls", func() { _, _ = Canonical("file:///home/user/src/x@y+z/my%20project/a.go") }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bc.f()
			}
		})
	}
}
