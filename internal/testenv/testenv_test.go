package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGoSrcHoldsTheStandardLibrary(t *testing.T) {
	src, err := GoSrc()
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(src, "fmt", "print.go"))
}

// GoSrcOrSkip gives the tree GoSrc finds, without skipping where there is
// one.
func TestGoSrcOrSkipGivesTheTree(t *testing.T) {
	want, err := GoSrc()
	require.NoError(t, err)
	require.Equal(t, want, GoSrcOrSkip(t))
}

// A program in the module's .bin wins over PATH, and a missing one is an
// error that names it.
func TestToolPrefersTheModulesBin(t *testing.T) {
	mod := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module m\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(mod, ".bin"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(mod, "pkg", "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mod, ".bin", "sh"), []byte("#!/bin/sh\n"), 0o755))
	t.Chdir(filepath.Join(mod, "pkg", "sub"))

	p, err := Tool("sh")
	require.NoError(t, err)
	require.Equal(t, filepath.Join(mod, ".bin", "sh"), p)

	p, err = Tool("cat")
	require.NoError(t, err, "falls back to PATH")
	require.NotEqual(t, filepath.Join(mod, ".bin", "cat"), p)

	_, err = Tool("no-such-program-anywhere")
	require.ErrorContains(t, err, "no-such-program-anywhere")
}

// A peer installed in a directory of its own (an npm package's .bin) is
// found there first; without it, as Tool finds it.
func TestFindPeerLooksInItsDir(t *testing.T) {
	mod := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module m\n"), 0o644))
	dir := filepath.Join(mod, ".npm", "node_modules", ".bin")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "npmpeer"), []byte("#!/bin/sh\n"), 0o755))
	t.Chdir(mod)
	spec := PeerSpec{Name: "npmpeer", Dir: ".npm/node_modules/.bin"}
	p, err := FindPeer(spec)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "npmpeer"), p)
	spec.Dir = "elsewhere"
	_, err = FindPeer(spec)
	require.ErrorContains(t, err, "npmpeer is not installed")
}

// The version check reads what real peers print.
func TestParseVersionReadsThePeersOutput(t *testing.T) {
	for out, want := range map[string]string{
		"ripgrep 13.0.0\n-SIMD -AVX (compiled)": "13.0.0",
		"0.65.2 (devel)":                        "0.65.2",
		"0.38.0 (debian)":                       "0.38.0",
		"tmux 3.3a":                             "3.3",
		"golang.org/x/tools/gopls v0.23.0\n    golang.org/x/tools/gopls@v0.23.0 h1:": "0.23.0",
	} {
		got, ok := parseVersion(out)
		require.True(t, ok, out)
		require.Equal(t, want, got, out)
	}
	_, ok := parseVersion("no digits here")
	require.False(t, ok)
}

func TestCompareVersionsIsNumeric(t *testing.T) {
	require.Equal(t, -1, compareVersions("0.38.0", "0.65.2"))
	require.Equal(t, 1, compareVersions("0.100.0", "0.65.2"))
	require.Equal(t, 0, compareVersions("3.3", "3.3.0"))
	require.Equal(t, 1, compareVersions("14.1.1", "13.0.0"))
}

// An fzf older than the tests need is refused with a message naming both
// versions; one new enough is found.
func TestFindPeerRefusesAnOldVersion(t *testing.T) {
	mod := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module m\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(mod, ".bin"), 0o755))
	fake := filepath.Join(mod, ".bin", "fakepeer")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\necho '0.38.0 (debian)'\n"), 0o755))
	t.Chdir(mod)

	_, err := FindPeer(PeerSpec{Name: "fakepeer", Min: "0.65.2", Install: "install it"})
	require.ErrorContains(t, err, "version 0.38.0")
	require.ErrorContains(t, err, "0.65.2 or later")

	p, err := FindPeer(PeerSpec{Name: "fakepeer", Min: "0.30"})
	require.NoError(t, err)
	require.Equal(t, fake, p)

	_, err = FindPeer(PeerSpec{Name: "no-such-peer-anywhere", Install: "apt-get install it"})
	require.ErrorContains(t, err, "no-such-peer-anywhere is not installed (apt-get install it)")
}

// fakeT records what Peer did with a test.
type fakeT struct{ skipped, failed string }

func (f *fakeT) Helper()                        {}
func (f *fakeT) Skipf(format string, a ...any)  { f.skipped = fmt.Sprintf(format, a...) }
func (f *fakeT) Fatalf(format string, a ...any) { f.failed = fmt.Sprintf(format, a...) }

// Without PMACS_REQUIRE_PEERS a missing peer skips with a message; with it,
// the test fails.
func TestPeerFailsInsteadOfSkippingWhenRequired(t *testing.T) {
	missing := PeerSpec{Name: "no-such-peer-anywhere", Install: "apt-get install it"}
	t.Setenv(RequirePeersEnv, "")
	var f fakeT
	Peer(&f, missing)
	require.Contains(t, f.skipped, "no-such-peer-anywhere is not installed")
	require.Empty(t, f.failed)

	t.Setenv(RequirePeersEnv, "1")
	f = fakeT{}
	Peer(&f, missing)
	require.Contains(t, f.failed, "PMACS_REQUIRE_PEERS=1 requires it")
	require.Empty(t, f.skipped)
}
