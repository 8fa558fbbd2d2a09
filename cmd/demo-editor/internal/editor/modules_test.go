package editor

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// luaSources returns init.lua and every embedded module, by name.
func luaSources(t *testing.T) map[string]string {
	t.Helper()
	srcs := map[string]string{"init.lua": EmbeddedInit()}
	err := fs.WalkDir(Modules(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".lua") {
			return err
		}
		b, err := fs.ReadFile(Modules(), path)
		srcs["lua/"+path] = string(b)
		return err
	})
	require.NoError(t, err)
	require.Greater(t, len(srcs), 10, "init.lua and the modules under lua/pmacs/")
	return srcs
}

var (
	// bareLocal is a local declared without a value ("local open_dired --
	// defined below").
	bareLocal = regexp.MustCompile(`^\s*local\s+([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?:--.*)?$`)
	// assignedFunction is a function assigned to a plain name.
	assignedFunction = regexp.MustCompile(`^\s*([A-Za-z_]\w*)\s*=\s*function\b`)
)

// forwardDeclared lists the functions src declares as a bare local and
// defines further down: "name (declared at line d, defined at line f)".
func forwardDeclared(src string) []string {
	declared := map[string]int{}
	var found []string
	for i, line := range strings.Split(src, "\n") {
		if m := bareLocal.FindStringSubmatch(line); m != nil {
			for _, name := range strings.Split(m[1], ",") {
				declared[strings.TrimSpace(name)] = i + 1
			}
		}
		if m := assignedFunction.FindStringSubmatch(line); m != nil {
			if d, ok := declared[m[1]]; ok {
				found = append(found, fmt.Sprintf("%s (declared at line %d, defined at line %d)", m[1], d, i+1))
			}
		}
	}
	return found
}

// init.lua and the editor's modules define each function before what uses
// it, or share it through ctx (a module adds to ctx what the ones set up
// after it need, or a hook to a list another calls): no function is
// declared as a bare local to be defined further down, the tangle the
// modules replaced.
func TestEditorLuaHasNoForwardDeclarations(t *testing.T) {
	var found []string
	for name, src := range luaSources(t) {
		for _, f := range forwardDeclared(src) {
			found = append(found, name+": "+f)
		}
	}
	sort.Strings(found)
	require.Empty(t, found, "functions declared before they are defined:\n%s", strings.Join(found, "\n"))
}

// strictGlobals makes reading or setting a global that the runtime did not
// define an error, so init.lua and its modules run as if every name they
// use must be a local or come through ctx.
const strictGlobals = `setmetatable(_G, {
  __newindex = function(_, k) error("sets the global " .. tostring(k), 2) end,
  __index = function(_, k) error("reads the undefined global " .. tostring(k), 2) end,
})
`

// The embedded init.lua and the modules it sets up neither set nor read a
// global of their own while they start, and bind exactly the editor's keys
// and hooks: a module that reaches another through a global, or a key or
// hook lost in a move, fails here.
func TestEmbeddedInitUsesNoGlobalsAndBindsEveryKey(t *testing.T) {
	initFile := filepath.Join(t.TempDir(), "init.lua")
	require.NoError(t, os.WriteFile(initFile, []byte(strictGlobals+EmbeddedInit()), 0o644))
	var stderr strings.Builder
	h := startEditor(t, Options{Path: t.TempDir(), InitFile: initFile, Stderr: &stderr})
	// The start hook shows the directory, unless the init file stopped.
	h.waitScreen("the directory or an init error", func(rows []string) bool {
		return anyContains(rows, "..") || strings.Contains(messageLine(rows), "init:")
	})

	var initErrs, keys []string
	hooks := map[string]int{}
	h.until("the bindings read", func(e *session) bool {
		initErrs = append([]string(nil), e.initErrs...)
		for k := range e.keys.global {
			keys = append(keys, k)
		}
		for name, hs := range e.hooks.byName {
			hooks[name] = len(hs)
		}
		return true
	})
	require.Empty(t, initErrs)
	require.Empty(t, stderr.String())

	sort.Strings(keys)
	want := []string{
		"C-Space", "C-b", "C-c", "C-d", "C-e", "C-f", "C-o", "C-p", "C-q", "C-s", "C-v", "C-w", "C-x", "C-y", "C-z",
		"Down", "End", "Esc", "F1", "F2", "F3", "Home", "Left", "M-!", "M-.", "M-/", "M-1", "M-2", "M-:", "M-?",
		"M-%", "M-a", "M-c", "M-e", "M-f", "M-g", "M-k", "M-n", "M-o", "M-p", "M-s", "M-x", "M-{", "M-}", "PgDn", "PgUp", "Right",
		"S-Down", "S-End", "S-F3", "S-Home", "S-Left", "S-PgDn", "S-PgUp", "S-Right", "S-Up", "Up",
		"C-Home", "C-End", "C-S-Home", "C-S-End",
		// pmacs.editing
		"C-Right", "C-Left", "C-S-Right", "C-S-Left", "M-Right", "M-Left", "M-S-Right", "M-S-Left",
		"M-Backspace", "C-Backspace", "C-h", "M-d", "C-Delete", "C-k", "M-Up", "M-Down", "M-S-Down",
		"Enter", "M-;", "M-l",
		// pmacs.jumps, pmacs.files, pmacs.disk
		"M-,", "M->", "M-w", "M-R", "M-S", "M-D",
		// pmacs.symbols, pmacs.calls
		"M-i", "M-t", "M-h",
	}
	sort.Strings(want)
	require.Equal(t, want, keys, "the global keys")
	require.Equal(t, map[string]int{"change": 4, "close": 12, "cursor": 1, "frame": 5, "loaded": 2, "open": 5, "resource": 1, "save": 3,
		"show": 1, "start": 3, "trust": 2, "view": 3}, hooks, "the hooks by event")
}
