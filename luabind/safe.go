package luabind

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/fsops"
)

// --safe (Options.Safe) is a promise about what a script can reach, not
// only which libraries it sees:
//
//   - no program starts: pmacs.workers.spawn and system, pmacs.lsp.start,
//     pmacs.mcp.connect (a stdio server is a program; an HTTP server is
//     refused too, as its tools act beyond the script's roots);
//   - nothing is written: pmacs.workers.fs.rename, chmod, remove, mkdir;
//   - files are read only beneath the script's roots, the runtime's
//     registered roots: pmacs.workers.fs.read_dir and stat, the root of
//     grep and find_files, client:open, loadfile and dofile; require loads
//     only the host's embedded modules (Options.Modules), since the files
//     it would search lie outside them (require.go).
//
// Each entry point calls unsafe or safeRead before it does anything, and
// each refusal is a Lua error naming the API and --safe. Reads are checked
// here, when the script asks, and again where they happen: the filesystem
// jobs of a safe script act beneath its roots through the kernel
// (DispatchOptions.Roots), and loadfile and dofile open through os.Root,
// so a symlink swapped in after the check cannot lead either outside. The
// tree walk of grep and find_files never follows a symlink.

// Why --safe refuses, as the refusals say it.
const (
	safeNoProgram = "no program may start"
	safeNoWrite   = "nothing may be written"
	safeNoServer  = "no MCP server may be reached: its tools act beyond the script's roots"
	safeNoModules = "modules on package.path and in the user's lua directory are outside the script's roots"
)

// unsafe raises, under --safe, the Lua error that refuses api for the
// reason why; otherwise it returns.
func (b *Binding) unsafe(L *lua.LState, api, why string) {
	if b.safe {
		raise(L, "%s: not allowed with --safe (%s)", api, why)
	}
}

// safeRead refuses, under --safe, a read of path that does not lie beneath
// the script's roots as the kernel resolves it now. follow says the API
// follows a final symlink (a listing, a walk's root, a file it opens): a
// link inside the roots that points outside is then outside.
func (b *Binding) safeRead(L *lua.LState, api, path string, follow bool) {
	if !b.safe {
		return
	}
	roots := b.rt.Roots()
	check := fsops.Confine
	if follow {
		check = fsops.ConfineFollow
	}
	if check(roots, path) != nil {
		b.unsafe(L, api, fmt.Sprintf("%s is outside the script's roots (%s)", path, rootList(roots)))
	}
}

func rootList(roots []string) string {
	if len(roots) == 0 {
		return "none registered"
	}
	return strings.Join(roots, ", ")
}

// fsRoots returns the roots a filesystem job of api acts beneath: the
// script's own roots option (nil: none), and under --safe those roots
// checked to lie beneath the script's roots, or the script's roots
// themselves when it named none.
func (b *Binding) fsRoots(L *lua.LState, api string, f fields) []string {
	roots := f.strings("roots")
	if roots != nil && len(roots) == 0 {
		raise(L, "%s: option 'roots' is empty (it names the directories the job may act beneath)", api)
	}
	if !b.safe {
		return roots
	}
	if roots == nil {
		return b.rt.Roots()
	}
	for _, r := range roots {
		b.safeRead(L, api, r, true)
	}
	return roots
}

// openFile opens path for reading, under --safe beneath the script's
// roots: through os.Root, which resolves every component beneath the root
// and refuses a symlink that leads out, so a link swapped in after
// safeRead's check is not followed out either.
func (b *Binding) openFile(path string) (*os.File, error) {
	if !b.safe {
		return os.Open(path)
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	if resolved, err = filepath.Abs(resolved); err != nil {
		return nil, err
	}
	for _, r := range b.rt.Roots() {
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(rr, resolved)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		root, err := os.OpenRoot(rr)
		if err != nil {
			return nil, err
		}
		f, err := root.Open(rel)
		root.Close()
		return f, err
	}
	return nil, &fsops.PathError{Op: "open", Path: path, Err: fsops.ErrEscapesRoot}
}

// refuseModules is module under --safe: it registers a module by name
// in package.loaded, which --safe does not open.
func (b *Binding) refuseModules(name string) lua.LGFunction {
	return func(L *lua.LState) int {
		b.unsafe(L, name, safeNoModules)
		return 0
	}
}

// readFile reads the whole file at path through openFile.
func (b *Binding) readFile(path string) ([]byte, error) {
	f, err := b.openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
