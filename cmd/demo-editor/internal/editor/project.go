package editor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/trust"
)

// findRoot returns the nearest directory at or above path (a file's own
// directory, for a file or a path that does not exist yet) that holds an
// entry named by one of markers, or "" when none does. path must be
// absolute. A marker is a plain name: a path separator in one is an error,
// as it would name something other than an entry of the directory.
func findRoot(path string, markers []string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%q is not an absolute path", path)
	}
	for _, m := range markers {
		if m == "" || m == "." || m == ".." || strings.ContainsRune(m, filepath.Separator) {
			return "", fmt.Errorf("marker %q is not a file or directory name", m)
		}
	}
	dir := filepath.Clean(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = filepath.Dir(dir)
	}
	for {
		for _, m := range markers {
			if _, err := os.Lstat(filepath.Join(dir, m)); err == nil {
				return dir, nil
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", nil
		}
		dir = up
	}
}

// errRootFixed is why set_root fails once the editor has started: the
// trusted workspace, the runtime's actor and every path already handed
// out would disagree with a new root.
var errRootFixed = errors.New("the project root is set before the editor opens its first path (in the init file or a start hook)")

// setRoot makes dir the project root: the workspace whose trust the editor
// asks, the directory the runtime orders file jobs under, and where the
// Lua modules start their searches. It may run only until the start event
// has been delivered; dir must be an existing directory that contains the
// path the editor was started with.
func (e *session) setRoot(dir string) error {
	if e.rootFixed {
		return errRootFixed
	}
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("%q is not an absolute path", dir)
	}
	dir = filepath.Clean(dir)
	st, err := os.Stat(dir)
	if err != nil {
		return unwrapPath(err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if !trust.Inside(strings.TrimSuffix(e.opts.Path, "/"), dir) {
		return fmt.Errorf("%s does not contain %s, the path being opened", dir, e.opts.Path)
	}
	if dir == e.root {
		return nil
	}
	if _, err := e.rt.RegisterRoot(dir); err != nil {
		return err
	}
	e.rt.RemoveRoot(e.root)
	e.root = dir
	e.trust.real = dir
	if r, err := trust.RealFolder(dir); err == nil {
		e.trust.real = r
	}
	e.refreshTrust()
	return nil
}

// luaFindRoot is ed.find_root(path, markers): the nearest directory at or
// above path holding one of markers, or nil.
func (e *session) luaFindRoot(L *lua.LState) int {
	const fname = "find_root"
	path := strArg(L, fname, 1, "path")
	t, ok := L.Get(2).(*lua.LTable)
	if !ok {
		argErr(L, fname, 2, "markers", "a list of file names")
	}
	var markers []string
	for i := 1; i <= t.Len(); i++ {
		s, ok := t.RawGetInt(i).(lua.LString)
		if !ok {
			L.RaiseError("pmacs.editor.find_root: argument #2 (markers) item %d expected a string, got %s", i, t.RawGetInt(i).Type().String())
		}
		markers = append(markers, string(s))
	}
	dir, err := findRoot(path, markers)
	if err != nil {
		L.RaiseError("pmacs.editor.find_root: %v", err)
	}
	if dir == "" {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LString(dir))
	return 1
}

// luaSetRoot is ed.set_root(dir): true, or nil and why not.
func (e *session) luaSetRoot(L *lua.LState) int {
	if err := e.setRoot(strArg(L, "set_root", 1, "dir")); err != nil {
		return pushErr(L, err)
	}
	return push(L, lua.LTrue)
}
