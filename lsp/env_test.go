package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Config.Env adds to the environment the server inherits: the server sees
// a variable of the editor's, one only Env sets, and Env's value for one
// both set.
func TestConfigEnvAddsToInheritedEnvironment(t *testing.T) {
	t.Setenv("PMACS_TEST_INHERITED", "from-editor")
	t.Setenv("PMACS_TEST_OVERRIDDEN", "from-editor")
	rt := newRT(t)
	out := filepath.Join(t.TempDir(), "env")
	script := `printf '%s|%s|%s' "$PMACS_TEST_INHERITED" "$PMACS_TEST_ADDED" "$PMACS_TEST_OVERRIDDEN" > "$0"; exec "$1"`
	c, err := Start(rt, Config{
		Argv: []string{"sh", "-c", script, out, os.Args[0]},
		Env: []string{fakeServerEnv + "=1", "GORACE=atexit_sleep_ms=0",
			"PMACS_TEST_ADDED=from-config", "PMACS_TEST_OVERRIDDEN=from-config"},
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	pump(t, rt, c, 10*time.Second, c.Initialized)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "from-editor|from-config|from-config", strings.TrimSpace(string(b)))
}
