package fileuri_test

import (
	"fmt"

	"github.com/pmacs-go/pmacs-go/fileuri"
)

// The URI a client sends for a path: everything but the unreserved
// characters and '/' is percent-encoded, as VS Code does.
func ExampleFromPath() {
	fmt.Println(fileuri.FromPath("/src/my file#2.go"))
	fmt.Println(fileuri.FromPath("/src/ü.go"))
	// Output:
	// file:///src/my%20file%232.go
	// file:///src/%C3%BC.go
}

// A URI from a server, in whatever spelling it uses, and one that names
// no local file.
func ExampleToPath() {
	p, err := fileuri.ToPath("file:///src/x@y/my%20file%232.go")
	fmt.Printf("%q %v\n", p, err)
	_, err = fileuri.ToPath("https://example.com/a.go")
	fmt.Println(err)
	// Output:
	// "/src/x@y/my file#2.go" <nil>
	// fileuri: not a file URI: "https://example.com/a.go"
}

// Two servers' spellings of one file compare equal once canonical.
func ExampleCanonical() {
	a, _ := fileuri.Canonical("file:///src/x@y/my%20file.go")   // gopls
	b, _ := fileuri.Canonical("file:///src/x%40y/my%20file.go") // vscode-uri
	fmt.Println(a == b, a)
	// Output: true file:///src/x%40y/my%20file.go
}
