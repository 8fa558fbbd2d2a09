package editor

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	lua "github.com/yuin/gopher-lua"
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

// ConfigFile is the user's own init file, init.lua in ConfigDir: the
// embedded init.lua runs it last, with the modules' ctx as its argument
// (docs/editor-api.md, "Your configuration"). It need not exist.
func ConfigFile() (string, error) {
	dir, err := ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "init.lua"), nil
}

// luaUserConfig is ed.user_config(): the user's init file compiled, and
// its path; nil, the path and why when it does not compile or cannot be
// read; nothing when there is none to run (no file, no home, --clean).
func (e *session) luaUserConfig(L *lua.LState) int {
	if e.opts.Clean {
		return 0
	}
	path, err := ConfigFile()
	if err != nil {
		return 0
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return 0
	}
	fn, err := e.lb.LoadFile(path)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "luabind: ")
		msg = strings.TrimPrefix(msg, "load "+path+": ")
		return push(L, lua.LNil, lua.LString(path), lua.LString(strings.TrimRight(msg, "\n")))
	}
	return push(L, fn, lua.LString(path))
}
