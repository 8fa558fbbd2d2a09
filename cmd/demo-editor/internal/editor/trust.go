package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/trust"
)

// workspaceTrust is what the editor knows of its workspace's trust
// (docs/security.md): the user's decisions, and the workspace's status as
// last read. The status is read again before every decision that depends
// on it (a program to run, a server to find), so a .bin changed while the
// editor runs is noticed; the status line shows the last reading.
type workspaceTrust struct {
	db    *trust.DB // nil when there is no state directory
	dbErr error     // why db is nil
	real  string    // the workspace's real path, the database's key
	// report is the workspace's last status, err why it could not be read
	// (the report then says Untrusted).
	report trust.Report
	err    error
	// path is PATH as the editor was started with. While the workspace is
	// untrusted, the process's PATH, which every program the editor starts
	// inherits, is path without the entries that could lead into the
	// workspace (childPath).
	path string
}

// openTrust opens the user's trust database and reads the workspace's
// status. Without a database every folder stays untrusted.
func (e *session) openTrust() {
	e.trust.db, e.trust.dbErr = trust.OpenDefault()
	e.trust.path = os.Getenv("PATH")
	e.trust.real = e.root
	if r, err := trust.RealFolder(e.root); err == nil {
		e.trust.real = r
	}
	e.refreshTrust()
}

// refreshTrust reads the workspace's status again and returns it; the
// PATH the editor's programs inherit follows it.
func (e *session) refreshTrust() trust.Report {
	t := &e.trust
	if t.db == nil {
		t.report = trust.Report{Folder: t.real, Status: trust.Untrusted}
		t.err = t.dbErr
	} else {
		t.report, t.err = t.db.Status(e.root)
	}
	e.setChildPath()
	return t.report
}

// setChildPath sets the process's PATH, which every program the editor
// starts inherits (M-c, M-!, spawn, system, language and MCP servers, and
// what they start in turn), to the PATH the editor was started with while
// the workspace is trusted, and else to childPath's: a shell running a
// compile, or a server running its tools, then finds nothing of the
// checkout's by name either.
func (e *session) setChildPath() {
	want := e.trust.path
	if !e.trust.report.Trusted() {
		want = childPath(want, e.root)
	}
	if os.Getenv("PATH") != want {
		os.Setenv("PATH", want)
	}
}

// restorePath gives the process back the PATH it was started with, when
// the session ends.
func (e *session) restorePath() { os.Setenv("PATH", e.trust.path) }

// childPath is the PATH list without the entries that can name a program
// of the untrusted workspace root: empty and relative ones (resolved
// against whatever directory a child runs in, the workspace's for a
// compile) and those inside it, as written or through a symlink.
func childPath(list, root string) string {
	var keep []string
	for _, dir := range filepath.SplitList(list) {
		if dir == "" || !filepath.IsAbs(dir) || trust.Inside(dir, root) {
			continue
		}
		keep = append(keep, dir)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// restricted reports whether the workspace was untrusted at the last
// reading: the status line says "restricted" then.
func (e *session) restricted() bool { return !e.trust.report.Trusted() }

// untrustedNote describes the workspace for a message about a program it
// keeps from running: "the untrusted folder /p", with why when that is
// more than no decision yet.
func (e *session) untrustedNote() string {
	r := e.trust.report
	note := "the untrusted folder " + e.root
	switch {
	case e.trust.err != nil:
		note += " (" + e.trust.err.Error() + ")"
	case r.Status == trust.Denied:
		note += " (you refused to trust it)"
	case r.Status == trust.Changed:
		note += " (changed since you trusted it: " + strings.Join(r.Changes, ", ") + ")"
	}
	return note
}

// programPolicy is the binding's ProgramPolicy: a program that lies inside
// the workspace, as written or through a symlink, runs only while the
// workspace is trusted. A bare name is looked up on PATH as exec.LookPath
// does, without relative entries and without entries inside the untrusted
// workspace; the file found is what runs. Commands the user types (M-c,
// M-!) run through sh, which is outside: what they name runs as typed.
func (e *session) programPolicy(api string, argv []string, dir string) (string, error) {
	name := argv[0]
	// Read at every start, also of a program outside the workspace: the
	// PATH the program inherits follows the status (setChildPath).
	trusted := e.refreshTrust().Trusted()
	untrusted := func(p string) bool { return !trusted && trust.Inside(p, e.root) }
	if strings.ContainsRune(name, '/') {
		p := name
		if !filepath.IsAbs(p) {
			base := dir
			if !filepath.IsAbs(base) {
				wd, err := os.Getwd()
				if err != nil {
					return "", fmt.Errorf("%s: %w", name, err)
				}
				base = filepath.Join(wd, base)
			}
			p = filepath.Join(base, p)
		}
		if untrusted(p) {
			return "", fmt.Errorf("%s is in %s; M-x trust to run it", p, e.untrustedNote())
		}
		return p, nil
	}
	found, skipped := trust.LookPath(name, e.trust.path, untrusted)
	switch {
	case found != "" && untrusted(found):
		return "", fmt.Errorf("%s on PATH leads to %s, in %s; M-x trust to run it", found, realOr(found), e.untrustedNote())
	case found != "":
		return found, nil
	case skipped != "" && !filepath.IsAbs(skipped):
		return "", fmt.Errorf("%s is found only through a relative PATH entry, which is never searched", name)
	case skipped != "":
		return "", fmt.Errorf("%s is in %s; M-x trust to run it", skipped, e.untrustedNote())
	}
	// Nowhere: starting it fails as it always did (ENOENT).
	return "", nil
}

func realOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// installTrustAPI adds pmacs.trust (docs/editor-api.md).
func (e *session) installTrustAPI(pmacs *lua.LTable) {
	L := e.L
	pmacs.RawSetString("trust", L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"status": e.luaTrustStatus,
		"allow":  e.luaTrustDecide("allow", (*trust.DB).Allow),
		"deny":   e.luaTrustDecide("deny", (*trust.DB).Deny),
		"remove": e.luaTrustDecide("remove", (*trust.DB).Remove),
		"find":   e.luaTrustFind,
	}))
}

// trustFolder reads the optional folder argument: the workspace when nil,
// a relative path from the workspace.
func (e *session) trustFolder(L *lua.LState, fname string) string {
	v := L.Get(1)
	if v == lua.LNil {
		return e.root
	}
	s, ok := v.(lua.LString)
	if !ok || s == "" {
		L.RaiseError("pmacs.trust.%s: argument #1 (folder) expected a path or nil, got %s", fname, v.Type().String())
	}
	p := string(s)
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.root, p)
	}
	return p
}

// pushReport pushes a report as {status, folder, workspace, programs,
// changes}.
func (e *session) pushReport(L *lua.LState, r trust.Report) int {
	t := L.CreateTable(0, 5)
	t.RawSetString("status", lua.LString(r.Status.String()))
	t.RawSetString("folder", lua.LString(r.Folder))
	t.RawSetString("workspace", lua.LBool(r.Folder == e.trust.real))
	progs := L.CreateTable(len(r.Items), 0)
	for _, n := range r.Names() {
		progs.Append(lua.LString(n))
	}
	t.RawSetString("programs", progs)
	changes := L.CreateTable(len(r.Changes), 0)
	for _, c := range r.Changes {
		changes.Append(lua.LString(c))
	}
	t.RawSetString("changes", changes)
	L.Push(t)
	return 1
}

func pushFail(L *lua.LState, fname string, err error) int {
	L.Push(lua.LNil)
	L.Push(lua.LString(fmt.Sprintf("pmacs.trust.%s: %v", fname, err)))
	return 2
}

// luaTrustStatus is pmacs.trust.status([folder]): the folder's report, or
// nil and why it cannot be read (the folder is then untrusted).
func (e *session) luaTrustStatus(L *lua.LState) int {
	folder := e.trustFolder(L, "status")
	var r trust.Report
	var err error
	if e.trust.db == nil {
		r, err = trust.Report{Folder: folder, Status: trust.Untrusted}, e.trust.dbErr
	} else {
		r, err = e.trust.db.Status(folder)
	}
	if r.Folder == e.trust.real {
		e.trust.report, e.trust.err = r, err
		e.setChildPath()
	}
	if err != nil {
		return pushFail(L, "status", err)
	}
	return e.pushReport(L, r)
}

// luaTrustDecide makes pmacs.trust.allow, deny and remove: the decision is
// stored, and when it is the workspace's, the status line follows and the
// "trust" event tells init.lua (which starts the servers held back).
func (e *session) luaTrustDecide(fname string, decide func(*trust.DB, string) (trust.Report, error)) lua.LGFunction {
	return func(L *lua.LState) int {
		folder := e.trustFolder(L, fname)
		if e.trust.db == nil {
			return pushFail(L, fname, e.trust.dbErr)
		}
		r, err := decide(e.trust.db, folder)
		if err != nil {
			return pushFail(L, fname, err)
		}
		if r.Folder == e.trust.real {
			e.refreshTrust()
			e.raise(event{name: "trust", path: e.trust.report.Status.String()})
		}
		return e.pushReport(L, r)
	}
}

// luaTrustFind is pmacs.trust.find(name): the program to start for name
// (a language server): <root>/.bin/<name> while the workspace is trusted,
// else name on PATH outside the untrusted workspace. Nil, why and a code
// ("untrusted" when only the workspace has it, "ENOENT" when nothing
// does) otherwise.
func (e *session) luaTrustFind(L *lua.LState) int {
	v, ok := L.Get(1).(lua.LString)
	name := string(v)
	if !ok || name == "" || strings.ContainsRune(name, '/') {
		L.RaiseError("pmacs.trust.find: argument #1 (name) expected a program name without a slash, got %s", luaQuote(L.Get(1)))
	}
	r := e.refreshTrust()
	local := filepath.Join(e.root, trust.LocalBin, name)
	if r.Trusted() && trust.Executable(local) {
		return push(L, lua.LString(local))
	}
	untrusted := func(p string) bool { return !r.Trusted() && trust.Inside(p, e.root) }
	found, skipped := trust.LookPath(name, e.trust.path, untrusted)
	if found != "" && !untrusted(found) {
		return push(L, lua.LString(found))
	}
	held := ""
	switch {
	case trust.Executable(local):
		held = trust.LocalBin + "/" + name
	case found != "":
		held = found
	case skipped != "" && filepath.IsAbs(skipped):
		held = skipped
	}
	L.Push(lua.LNil)
	if held != "" {
		L.Push(lua.LString(fmt.Sprintf("%s is in %s; M-x trust to use it", held, e.untrustedNote())))
		L.Push(lua.LString("untrusted"))
		return 3
	}
	L.Push(lua.LString(name + " not found in .bin/ or PATH"))
	L.Push(lua.LString("ENOENT"))
	return 3
}

// luaQuote shows a Lua value in an error: a string quoted, else its type.
func luaQuote(v lua.LValue) string {
	if s, ok := v.(lua.LString); ok {
		return fmt.Sprintf("%q", string(s))
	}
	return v.Type().String()
}
