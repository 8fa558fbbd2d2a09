// Package testenv finds what the project's tests and benchmark commands
// compare against: the Go distribution's source tree, a large real tree
// present wherever the tests build, and the peer programs (fzf, gopls) that
// .ci/run installs into the module's .bin directory; and what the soak tests
// share: the variable that turns them on and the heap figure they compare.
//
// # Concurrency
//
// Every function may be called from any goroutine; GoSrc asks the go
// command once per process.
package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

var goSrc = sync.OnceValues(func() (string, error) {
	// runtime.GOROOT is deprecated, and wrong for a toolchain moved after
	// it was built: the go command knows.
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("testenv: go env GOROOT: %w", err)
	}
	root := strings.TrimSpace(string(out))
	if root == "" {
		return "", errors.New("testenv: go env GOROOT printed nothing")
	}
	src := filepath.Join(root, "src")
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("testenv: no Go source tree at %s", src)
	}
	return src, nil
})

// GoSrc returns the src directory of the Go distribution the go command
// uses.
func GoSrc() (string, error) { return goSrc() }

// GoSrcOrSkip is GoSrc for a test or benchmark that reads the tree: without
// one it skips, saying why. The tree is no peer, so PMACS_REQUIRE_PEERS
// does not make its absence a failure.
func GoSrcOrSkip(t Skipper) string {
	t.Helper()
	src, err := GoSrc()
	if err != nil {
		t.Skipf("%v", err)
	}
	return src
}

// Tool returns the path of the program name: .bin/name at the root of the
// module that holds the working directory (where .ci/run installs peers),
// else name on PATH. The error says how to install it.
func Tool(name string) (string, error) {
	if root, ok := moduleRoot(); ok {
		if p, ok := program(filepath.Join(root, ".bin", name)); ok {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("testenv: %s is neither in the module's .bin/ nor on PATH (.ci/run installs it there)", name)
}

// moduleRoot is the directory of the go.mod that holds the working
// directory.
func moduleRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// program reports whether p names something other than a directory.
func program(p string) (string, bool) {
	fi, err := os.Stat(p)
	return p, err == nil && !fi.IsDir()
}

// TB is the part of testing.TB that WriteTree uses; it is spelled out so
// that the benchmark commands importing this package do not link testing.
type TB interface {
	Helper()
	Fatal(args ...any)
}

// WriteTree writes files (a '/'-separated path under root -> its content)
// under root, making the directories they need; it fails t on an error.
func WriteTree(t TB, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
