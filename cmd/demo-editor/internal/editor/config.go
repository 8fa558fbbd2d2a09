package editor

import (
	"errors"
	"os"
	"path/filepath"
)

// ConfigDir is the user's pmacs directory: $XDG_CONFIG_HOME/pmacs, or
// ~/.config/pmacs when XDG_CONFIG_HOME is unset or not absolute (the XDG
// base directory spec says to ignore a relative one). It need not exist.
func ConfigDir() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "pmacs"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(home) {
		return "", errors.New("home directory is not an absolute path: " + home)
	}
	return filepath.Join(home, ".config", "pmacs"), nil
}

// ModuleDirs are the directories of the user's own Lua modules, which
// require searches after the editor's embedded ones: lua/ in ConfigDir,
// beside the user's init file. None when there is no home to find it in.
func ModuleDirs() []string {
	dir, err := ConfigDir()
	if err != nil {
		return nil
	}
	return []string{filepath.Join(dir, "lua")}
}
