package testenv

import (
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
