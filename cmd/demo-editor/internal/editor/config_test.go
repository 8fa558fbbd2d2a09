package editor

import (
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The user's modules are found in lua/ beside the init file:
// $XDG_CONFIG_HOME/pmacs/lua, or ~/.config/pmacs/lua when XDG_CONFIG_HOME
// is unset or relative (which the XDG spec says to ignore). (Issue 26: the
// module search path.)
func TestModuleDirsFollowXDGConfigHome(t *testing.T) {
	home, xdg := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	require.Equal(t, []string{filepath.Join(xdg, "pmacs", "lua")}, ModuleDirs())
	t.Setenv("XDG_CONFIG_HOME", "relative/dir")
	require.Equal(t, []string{filepath.Join(home, ".config", "pmacs", "lua")}, ModuleDirs())
	t.Setenv("XDG_CONFIG_HOME", "")
	dir, err := ConfigDir()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(home, ".config", "pmacs"), dir)
}

// The editor's embedded modules are require-able by name: lua/pmacs/path.lua
// is pmacs.path. (Issue 26: the editor's module files, embedded.)
func TestEmbeddedModulesAreFoundByName(t *testing.T) {
	src, err := fs.ReadFile(Modules(), "pmacs/path.lua")
	require.NoError(t, err)
	require.Contains(t, string(src), "function M.join")
}
