//go:build linux

package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/mcp/mcptest"
)

// Spec.Env adds to the environment the server inherits: the server sees a
// variable of the editor's, one only Env sets, and Env's value for one
// both set.
func TestSpecEnvAddsToInheritedEnvironment(t *testing.T) {
	t.Setenv("PMACS_TEST_INHERITED", "from-editor")
	t.Setenv("PMACS_TEST_OVERRIDDEN", "from-editor")
	_, h := newHost(t)
	out := filepath.Join(t.TempDir(), "env")
	script := `printf '%s|%s|%s' "$PMACS_TEST_INHERITED" "$PMACS_TEST_ADDED" "$PMACS_TEST_OVERRIDDEN" > "$0"; exec "$1"`
	c, err := h.Connect(context.Background(), Spec{
		Argv: []string{"sh", "-c", script, out, os.Args[0]},
		Env:  []string{mcptest.Env(mcptest.ModeServe), "PMACS_TEST_ADDED=from-spec", "PMACS_TEST_OVERRIDDEN=from-spec"},
	})
	require.NoError(t, err, "the server started from the inherited PATH and Env's mode")
	defer c.Close()
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "from-editor|from-spec|from-spec", strings.TrimSpace(string(b)))
}
