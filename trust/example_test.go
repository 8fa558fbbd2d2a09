package trust_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pmacs-go/pmacs-go/trust"
)

// A folder with a program in .bin is untrusted until allowed, and changed
// (so untrusted again) when the program changes.
func Example() {
	state, _ := os.MkdirTemp("", "state")
	defer os.RemoveAll(state)
	proj, _ := os.MkdirTemp("", "proj")
	defer os.RemoveAll(proj)
	os.Mkdir(filepath.Join(proj, ".bin"), 0o755)
	gopls := filepath.Join(proj, ".bin", "gopls")
	os.WriteFile(gopls, []byte("#!/bin/sh\n"), 0o755)

	db, _ := trust.Open(filepath.Join(state, "pmacs", "trust.json"))
	r, _ := db.Status(proj)
	fmt.Println(r.Status, r.Names())
	db.Allow(proj)
	r, _ = db.Status(proj)
	fmt.Println(r.Status)
	os.WriteFile(gopls, []byte("#!/bin/sh\necho changed\n"), 0o755)
	r, _ = db.Status(proj)
	fmt.Println(r.Status, r.Changes)
	// Output:
	// untrusted [.bin/gopls]
	// trusted
	// changed [.bin/gopls changed]
}

// LookPath resolves a program as the editor does for a folder that is not
// trusted: entries inside it are passed over.
func ExampleLookPath() {
	proj, _ := os.MkdirTemp("", "proj")
	defer os.RemoveAll(proj)
	os.Mkdir(filepath.Join(proj, "bin"), 0o755)
	os.WriteFile(filepath.Join(proj, "bin", "tool"), []byte("#!/bin/sh\n"), 0o755)

	found, skipped := trust.LookPath("tool", filepath.Join(proj, "bin"), func(dir string) bool {
		return trust.Inside(dir, proj)
	})
	fmt.Printf("found %q, passed over %s\n", found, filepath.Base(filepath.Dir(skipped))+"/"+filepath.Base(skipped))
	// Output: found "", passed over bin/tool
}
