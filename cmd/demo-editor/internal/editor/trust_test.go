//go:build unix

package editor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/luabind"
	"github.com/pmacs-go/pmacs-go/trust"
)

// freshTrust gives the test a trust database of its own, empty.
func freshTrust(t *testing.T) *trust.DB {
	t.Helper()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	db, err := trust.OpenDefault()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(state, "pmacs", "trust.json"), db.Path())
	return db
}

// markerScript is a program that appends a line to marker, then execs
// then (if any) with its arguments.
func markerScript(t *testing.T, path, marker, then string) {
	t.Helper()
	body := fmt.Sprintf("#!/bin/sh\necho ran >> %q\n", marker)
	if then != "" {
		body += fmt.Sprintf("exec %q \"$@\"\n", then)
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o755))
}

func messagesHave(text string) func(e *session) bool {
	return func(e *session) bool { return strings.Contains(e.messages.Text(), text) }
}

// untilPrompt waits for a prompt whose label holds text.
func (h *harness) untilPrompt(text string) {
	h.t.Helper()
	h.until("a prompt with "+text, func(e *session) bool {
		return e.prompt != nil && strings.Contains(e.prompt.label, text)
	})
}

func statusHas(text string) func(e *session) bool {
	return func(e *session) bool { return strings.Contains(e.statusText(), text) }
}

// runTask runs src as a task on the editor's loop (with the given globals
// set) and returns its results as strings once it ended.
func (h *harness) runTask(src string, globals map[string]string) []string {
	h.t.Helper()
	var task *luabind.Task
	h.e.call(func() {
		for k, v := range globals {
			h.e.L.SetGlobal(k, lua.LString(v))
		}
		fn, err := h.e.lb.LoadString(src, "test.lua")
		require.NoError(h.t, err)
		task = h.e.lb.Spawn(fn)
	})
	h.untilLong("the task's end", func(e *session) bool { return task.Done() })
	var out []string
	h.e.call(func() {
		require.NoError(h.t, task.Err())
		for _, v := range task.Results() {
			out = append(out, v.String())
		}
	})
	return out
}

// Issue 25, point 2 (regression): opening a Go file in a checkout whose
// .bin/gopls is a script must not run the script while the folder is
// untrusted. The editor says why the server did not start, the status line
// says "restricted", and the script never ran; after M-x trust the script
// runs (it then execs the real gopls) and the buffer syncs with the
// server, without reopening the file. M-x untrust stops it again.
func TestCheckoutBinGoplsRunsOnlyOnceTrusted(t *testing.T) {
	gopls := testenv.Peer(t, testenv.Gopls)
	goTool, err := exec.LookPath("go")
	require.NoError(t, err)
	freshTrust(t)
	// gopls only in the checkout; go (which gopls runs) and sh on PATH.
	t.Setenv("PATH", filepath.Dir(goTool)+":/usr/bin:/bin")
	_, err = exec.LookPath("gopls")
	require.Error(t, err, "no gopls on PATH outside the checkout")

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644))
	path := filepath.Join(dir, "m.go")
	require.NoError(t, os.WriteFile(path, []byte("package m\n\nvar X = undefinedName\n"), 0o644))
	marker := filepath.Join(t.TempDir(), "marker")
	markerScript(t, filepath.Join(dir, ".bin", "gopls"), marker, gopls)
	ran := func() bool { _, err := os.Stat(marker); return err == nil }

	h := startEditor(t, Options{Path: path})
	h.untilLong("the server held back (or run)", func(e *session) bool {
		return ran() || messagesHave(".bin/gopls is in the untrusted folder "+dir)(e)
	})
	require.False(t, ran(), "the checkout's .bin/gopls ran while the folder was untrusted")
	h.until("restricted in the status line", statusHas("restricted"))
	h.e.call(func() {
		require.Contains(t, h.e.messages.Text(), "M-x trust to use it")
		require.Zero(t, h.e.lb.Stats().LSPClients)
	})
	// The first-open question is on screen; M-x replaces it.
	h.untilPrompt("has project-local programs (.bin/gopls): trust it? (y/n)")
	h.until("the question in *messages*", messagesHave(dir+" has project-local programs (.bin/gopls): trust it? (y/n)"))

	require.Equal(t, "trusted "+dir+": its programs may run (.bin/gopls)", h.command("trust"))
	h.untilSynced()
	h.untilLong("gopls's diagnostic", statusHas("E1 W0"))
	require.True(t, ran(), "trusted: the checkout's gopls runs")
	h.until("restricted gone", func(e *session) bool { return !e.restricted() })
	require.NotContains(t, h.e.statusText(), "restricted")

	require.Contains(t, h.command("untrust"), dir+" is restricted")
	h.until("the checkout's server stopped", func(e *session) bool {
		return e.lb.Stats().LSPClients == 0 && strings.Count(e.messages.Text(), ".bin/gopls is in the untrusted folder") == 2
	})
	h.until("restricted again", statusHas("restricted"))
}

// Issue 25, workspace trust: the binding's policy refuses a program inside
// the untrusted workspace at every process start (w.spawn, w.system,
// pmacs.lsp.start, pmacs.mcp.connect) whether named by path, relative to
// its cwd, through a PATH entry inside the workspace or through a symlink
// on PATH leading into it, with a message naming the program, the folder
// and M-x trust; programs on PATH outside it run. Once trusted, the
// workspace's programs run.
func TestProgramPolicyRefusesWorkspaceProgramsUntilTrusted(t *testing.T) {
	freshTrust(t)
	root := t.TempDir()
	outside := t.TempDir()
	marker := filepath.Join(t.TempDir(), "marker")
	markerScript(t, filepath.Join(root, ".bin", "tool"), marker, "")
	markerScript(t, filepath.Join(root, "bin", "ptool"), marker, "")
	require.NoError(t, os.Symlink(filepath.Join(root, ".bin", "tool"), filepath.Join(outside, "linked")))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "otool"), []byte("#!/bin/sh\necho outside \"$@\"\n"), 0o755))
	useFakeLSP(t) // a scripted "gopls" on PATH, outside the workspace
	t.Setenv("PATH", filepath.Join(root, "bin")+":"+outside+":"+os.Getenv("PATH"))
	exe, err := os.Executable()
	require.NoError(t, err)

	h := startEditor(t, Options{Path: root})
	h.untilPrompt("has project-local programs")
	refused := h.runTask(`
		local w = pmacs.workers
		local out = {}
		local function raised(f, spec)
			local ok, err = pcall(f, spec)
			out[#out + 1] = ok and "ran" or err
		end
		raised(w.spawn, {cmd = {ROOT .. "/.bin/tool"}})
		raised(w.system, {cmd = {"./.bin/tool"}, cwd = ROOT})
		local c, err = pmacs.lsp.start{cmd = {"ptool"}, root = ROOT}
		out[#out + 1] = c and "ran" or err
		local s, serr = pmacs.mcp.connect{cmd = {"linked"}}
		out[#out + 1] = s and "ran" or serr
		return unpack(out)
	`, map[string]string{"ROOT": root})
	require.Len(t, refused, 4)
	note := "in the untrusted folder " + root + "; M-x trust to run it"
	require.Contains(t, refused[0], "pmacs.workers.spawn: "+root+"/.bin/tool is "+note)
	require.Contains(t, refused[1], "pmacs.workers.system: "+root+"/.bin/tool is "+note)
	require.Equal(t, "pmacs.lsp.start: "+root+"/bin/ptool is "+note, refused[2])
	require.Equal(t, "pmacs.mcp.connect: "+outside+"/linked on PATH leads to "+root+"/.bin/tool, "+note, refused[3])
	require.NoFileExists(t, marker)

	allowed := h.runTask(`
		local w = pmacs.workers
		local r = w.system{cmd = {"otool", "system"}}:await()
		local lines = {}
		for batch in w.spawn{cmd = {"otool", "spawn"}}:batches() do
			for _, it in ipairs(batch) do lines[#lines + 1] = it.text end
		end
		local c = assert(pmacs.lsp.start{cmd = {"gopls"}, root = ROOT})
		c:stop()
		local s = assert(pmacs.mcp.connect{cmd = {EXE}, env = {PMACS_MCPTEST_MODE = "serve"}})
		local tools = assert(s:tools():await())
		s:close()
		return r.stdout, table.concat(lines), #tools > 0
	`, map[string]string{"ROOT": root, "EXE": exe})
	require.Equal(t, []string{"outside system\n", "outside spawn", "true"}, allowed)
	require.NoFileExists(t, marker)

	trusted := h.runTask(`
		assert(pmacs.trust.allow())
		local w = pmacs.workers
		local r1 = w.system{cmd = {ROOT .. "/.bin/tool"}}:await()
		local r2 = w.system{cmd = {"ptool"}}:await()
		local r3 = w.system{cmd = {"linked"}}:await()
		return r1.code, r2.code, r3.code
	`, map[string]string{"ROOT": root})
	require.Equal(t, []string{"0", "0", "0"}, trusted)
	data, err := os.ReadFile(marker)
	require.NoError(t, err)
	require.Equal(t, "ran\nran\nran\n", string(data))
}

// Issue 25, workspace trust: the first open of a folder that has
// project-local programs and no decision asks; y then Enter trusts (and
// the next editor on the folder does not ask), n then Enter refuses and is
// remembered too (the folder stays restricted, not asked again), Esc
// leaves it undecided. A stray key decides nothing (security review: the
// question used to take the first key pressed as the answer): y alone
// leaves the folder untrusted with the question open, its hint saying
// what Enter would do, and another answer confirmed with Enter asks again.
// A folder without programs is not asked about.
func TestTrustPromptOnFirstOpen(t *testing.T) {
	for _, tc := range []struct {
		name, answer string // answer: typed, then "\n" Enter or "\x1b" Esc
		want         trust.Status
		msg          string
	}{
		{"yes", "y\n", trust.Trusted, "its programs may run (.bin/tool)"},
		{"no", "n\n", trust.Denied, "is restricted: none of its own programs run"},
		{"later", "\x1b", trust.Untrusted, "no decision: the workspace stays restricted"},
		{"other then no", "x\nn\n", trust.Denied, "is restricted: none of its own programs run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshTrust(t)
			root := t.TempDir()
			markerScript(t, filepath.Join(root, ".bin", "tool"), filepath.Join(t.TempDir(), "m"), "")
			h := startEditor(t, Options{Path: root})
			h.untilPrompt(".../" + filepath.Base(root) + " has project-local programs (.bin/tool): trust it? (y/n)")
			h.until("restricted meanwhile", statusHas("restricted"))
			h.until("the hint says how to answer", func(e *session) bool {
				return e.prompt != nil && strings.Contains(e.prompt.hint, "type y (trust) or n (refuse), then Enter; Esc: decide later")
			})
			typed := ""
			for _, r := range tc.answer {
				switch r {
				case '\n':
					h.key(tcell.KeyEnter)
					if typed == "x" {
						h.until("asked again", func(e *session) bool {
							return e.prompt != nil && e.prompt.text == "" && strings.Contains(e.msg, "answer y (trust) or n (refuse), then Enter")
						})
					}
					typed = ""
				case '\x1b':
					h.key(tcell.KeyEscape)
				default:
					h.typeText(string(r))
					typed += string(r)
				}
			}
			h.until("the answer's message", func(e *session) bool { return strings.Contains(e.msg, tc.msg) })
			r, err := db.Status(root)
			require.NoError(t, err)
			require.Equal(t, tc.want, r.Status)
			h.until("the status line", func(e *session) bool { return e.restricted() == (tc.want != trust.Trusted) })

			again := startEditor(t, Options{Path: root})
			again.waitText("..")
			again.until("the start's tasks ended", onlyWatching)
			var asked bool
			again.e.call(func() { asked = again.e.prompt != nil && strings.Contains(again.e.prompt.label, "trust it?") })
			require.Equal(t, tc.want == trust.Untrusted, asked, "asked again only while undecided")
		})
	}

	t.Run("stray key", func(t *testing.T) {
		db := freshTrust(t)
		root := t.TempDir()
		markerScript(t, filepath.Join(root, ".bin", "tool"), filepath.Join(t.TempDir(), "m"), "")
		h := startEditor(t, Options{Path: root})
		h.untilPrompt("trust it? (y/n)")
		h.typeText("y")
		h.until("the y typed, the question still open", func(e *session) bool {
			return e.prompt != nil && e.prompt.text == "y" && strings.Contains(e.prompt.hint, "Enter: trust it")
		})
		r, err := db.Status(root)
		require.NoError(t, err)
		require.Equal(t, trust.Untrusted, r.Status, "a key without Enter decides nothing")
		h.e.call(func() { require.True(t, h.e.restricted()) })
		h.key(tcell.KeyBackspace2)
		h.typeText("n")
		h.until("the hint follows the answer", func(e *session) bool {
			return e.prompt != nil && strings.Contains(e.prompt.hint, "Enter: refuse")
		})
		h.key(tcell.KeyEnter)
		h.until("refused", func(e *session) bool { return strings.Contains(e.msg, "is restricted") })
		r, err = db.Status(root)
		require.NoError(t, err)
		require.Equal(t, trust.Denied, r.Status)
	})

	freshTrust(t)
	h := startEditor(t, Options{Path: t.TempDir()})
	h.waitText("..")
	h.until("restricted", statusHas("restricted"))
	h.until("the start's tasks ended", onlyWatching)
	h.e.call(func() { require.Nil(t, h.e.prompt, "nothing to ask about") })
}

// Issue 25, workspace trust: a trusted folder whose .bin changed since is
// restricted again; the editor says what changed and asks again.
func TestChangedWorkspaceIsRestrictedAndSaysWhatChanged(t *testing.T) {
	db := freshTrust(t)
	root := t.TempDir()
	marker := filepath.Join(t.TempDir(), "m")
	markerScript(t, filepath.Join(root, ".bin", "tool"), marker, "")
	_, err := db.Allow(root)
	require.NoError(t, err)
	markerScript(t, filepath.Join(root, ".bin", "tool"), marker, "/bin/true")

	h := startEditor(t, Options{Path: root})
	h.untilPrompt("changed since you trusted it (.bin/tool changed): trust it again? (y/n)")
	h.until("the note in *messages*", messagesHave("it is restricted until you trust it again"))
	h.until("restricted", statusHas("restricted"))
	out := h.runTask(`
		local ok, err = pcall(pmacs.workers.system, {cmd = {ROOT .. "/.bin/tool"}})
		return err
	`, map[string]string{"ROOT": root})
	require.Contains(t, out[0], "(changed since you trusted it: .bin/tool changed); M-x trust to run it")
	h.typeText("y")
	h.key(tcell.KeyEnter)
	h.until("trusted", func(e *session) bool { return !e.restricted() })
}

// Issue 25, workspace trust: pmacs.trust reads and records decisions for
// the workspace or a given folder (relative to the workspace); misuse is
// a Lua error naming the function; a database that cannot be read is nil
// and a message naming the file, and the workspace stays restricted.
func TestLuaTrustAPI(t *testing.T) {
	db := freshTrust(t)
	root := t.TempDir()
	markerScript(t, filepath.Join(root, ".bin", "tool"), filepath.Join(t.TempDir(), "m"), "")
	require.NoError(t, os.Mkdir(filepath.Join(root, "sub"), 0o755))
	h := startEditor(t, Options{Path: root})
	h.untilPrompt("trust it?")
	h.key(tcell.KeyEscape)

	out := h.runTask(`
		local t = pmacs.trust
		local s1 = t.status()
		local s2 = assert(t.allow())
		local s3 = assert(t.deny("sub"))
		local s4 = t.status("sub")
		local s5 = assert(t.remove())
		local s6 = t.status()
		return s1.status, s1.folder, table.concat(s1.programs, ","), tostring(s1.workspace),
			s2.status, s3.status, tostring(s3.workspace), s4.status, s4.folder, s5.status, s6.status
	`, nil)
	require.Equal(t, []string{"untrusted", root, ".bin/tool", "true", "trusted", "denied", "false", "denied",
		filepath.Join(root, "sub"), "untrusted", "untrusted"}, out)

	h.e.call(func() {
		for src, want := range map[string]string{
			`pmacs.trust.status(42)`:  "pmacs.trust.status: argument #1 (folder) expected a path or nil, got number",
			`pmacs.trust.allow("")`:   "pmacs.trust.allow: argument #1 (folder) expected a path or nil",
			`pmacs.trust.find("a/b")`: `pmacs.trust.find: argument #1 (name) expected a program name without a slash, got "a/b"`,
			`pmacs.trust.find()`:      "pmacs.trust.find: argument #1 (name) expected a program name without a slash, got nil",
		} {
			err := h.e.L.DoString(src)
			require.ErrorContains(t, err, want, src)
		}
	})

	require.NoError(t, os.WriteFile(db.Path(), []byte("{not json"), 0o600))
	out = h.runTask(`
		local s, err = pmacs.trust.status()
		local a, aerr = pmacs.trust.allow()
		return tostring(s), err, tostring(a), aerr
	`, nil)
	require.Equal(t, "nil", out[0])
	require.Contains(t, out[1], "pmacs.trust.status: trust: not a trust database ("+db.Path())
	require.Equal(t, "nil", out[2])
	require.Contains(t, out[3], "move it away to start afresh")
	h.until("restricted", statusHas("restricted"))
	data, err := os.ReadFile(db.Path())
	require.NoError(t, err)
	require.Equal(t, "{not json", string(data), "left as it was")
}

// Workspace trust (security review, PATH): while the workspace is
// untrusted, the programs the editor starts inherit a PATH without empty
// or relative entries and without entries inside the workspace, so a
// compile's shell (M-c, the workspace its directory) finds none of the
// checkout's programs by name: not through "bin", not through the empty
// entry (the current directory), not through an absolute entry inside
// it; what w.system starts sees the same PATH. Once the workspace is
// trusted, the children get the PATH the editor was started with, and the
// same compile runs all three. Before, the children inherited the PATH
// whole and the compile ran the checkout's programs while restricted.
func TestUntrustedWorkspaceIsNotOnTheChildrensPath(t *testing.T) {
	freshTrust(t)
	root := t.TempDir()
	marker := filepath.Join(t.TempDir(), "marker")
	markerScript(t, filepath.Join(root, "bin", "relprog"), marker, "")
	markerScript(t, filepath.Join(root, "cwdprog"), marker, "")
	markerScript(t, filepath.Join(root, "tools", "absprog"), marker, "")
	outside := t.TempDir()
	started := strings.Join([]string{"bin", "", filepath.Join(root, "tools"), outside, os.Getenv("PATH")}, ":")
	clean := outside + ":" + os.Getenv("PATH")
	t.Setenv("PATH", started)

	h := startEditor(t, Options{Path: root})
	h.waitText(root + ":")
	h.until("restricted", statusHas("restricted"))
	h.alt('x')
	h.waitText("command (")
	h.typeText(`compile relprog; cwdprog; absprog; echo "PATH=$PATH"`)
	h.key(tcell.KeyEnter)
	var lines []string
	h.until("the compile's end", func(e *session) bool {
		b := e.findBuffer("*compile*")
		if b == nil || !strings.Contains(b.Text(), "exited with code") {
			return false
		}
		lines = b.lines.all()
		return true
	})
	require.Contains(t, lines, "PATH="+clean, "the compile's shell got the cleaned PATH")
	require.NoFileExists(t, marker, "no program of the checkout ran")
	out := h.runTask(`return pmacs.workers.system{cmd = {"sh", "-c", "echo $PATH"}}:await().stdout`, nil)
	require.Equal(t, []string{clean + "\n"}, out)

	h.runTask(`assert(pmacs.trust.allow())`, nil)
	out = h.runTask(`return pmacs.workers.system{cmd = {"sh", "-c", "echo $PATH"}}:await().stdout`, nil)
	require.Equal(t, []string{started + "\n"}, out, "trusted: the PATH the editor was started with")
	h.runTask(`return pmacs.workers.system{cmd = {"sh", "-c", "relprog; cwdprog; absprog"}, cwd = ROOT}:await().code`,
		map[string]string{"ROOT": root})
	data, err := os.ReadFile(marker)
	require.NoError(t, err)
	require.Equal(t, "ran\nran\nran\n", string(data))
}

// Workspace trust (security review, PATH): the children's PATH follows the
// workspace's status as read at every program start, also of a program
// outside the workspace: a trusted workspace whose .bin changed since (a
// pull) is restricted again, and the next shell the editor starts gets the
// cleaned PATH. Before, only the start of a program inside the workspace
// read the status again, so a shell kept the trusted PATH.
func TestChildrensPathFollowsAChangedWorkspace(t *testing.T) {
	db := freshTrust(t)
	root := t.TempDir()
	marker := filepath.Join(t.TempDir(), "m")
	markerScript(t, filepath.Join(root, ".bin", "tool"), marker, "")
	_, err := db.Allow(root)
	require.NoError(t, err)
	clean := os.Getenv("PATH")
	started := "bin:" + clean
	t.Setenv("PATH", started)

	h := startEditor(t, Options{Path: root})
	h.waitText(root + ":")
	echo := `return pmacs.workers.system{cmd = {"sh", "-c", "echo $PATH"}}:await().stdout`
	require.Equal(t, []string{started + "\n"}, h.runTask(echo, nil), "trusted: the PATH as started")

	markerScript(t, filepath.Join(root, ".bin", "tool"), marker, "/bin/true")
	require.Equal(t, []string{clean + "\n"}, h.runTask(echo, nil), "changed since trusted: the cleaned PATH")
	h.until("restricted", statusHas("restricted"))
}
