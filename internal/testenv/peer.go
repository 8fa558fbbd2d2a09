package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// RequirePeersEnv names the variable under which a missing or outdated peer
// fails the test instead of skipping it. .ci/run sets it: CI installs every
// peer, so a test that would skip there hides a broken install.
const RequirePeersEnv = "PMACS_REQUIRE_PEERS"

// Skipper is the part of testing.TB that Peer uses; it is spelled out so
// that the benchmark commands importing this package do not link testing.
type Skipper interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// PeerSpec says how to find, check and install a peer program.
type PeerSpec struct {
	// Name is the program's name, looked up as Tool does.
	Name string
	// Min is the oldest version the tests accept ("0.65.2"); "" accepts any.
	Min string
	// VersionArgs print the version ("--version" when empty).
	VersionArgs []string
	// Install says how to get it, for the message.
	Install string
	// Dir, when set, is where .ci/run installs the program, relative to
	// the module root (an npm package's .bin); it is looked for there
	// first, then as Tool looks.
	Dir string
}

// The peers the tests drive, each with the version .ci/run installs.
var (
	Ripgrep = PeerSpec{Name: "rg", Min: "13.0.0", Install: "apt-get install ripgrep"}
	Tmux    = PeerSpec{Name: "tmux", Min: "3.0", VersionArgs: []string{"-V"}, Install: "apt-get install tmux"}
	// Fzf: the agreement tests compare rankings whose tie-breaks changed
	// across releases; Debian's 0.38 ranks differently. (A build from
	// the module proxy prints "0.65 (devel)".)
	Fzf   = PeerSpec{Name: "fzf", Min: "0.65", Install: "GOBIN=$PWD/.bin go install github.com/junegunn/fzf@v0.65.2"}
	Gopls = PeerSpec{Name: "gopls", Min: "0.23.0", VersionArgs: []string{"version"}, Install: "GOBIN=$PWD/.bin go install golang.org/x/tools/gopls@v0.23.0"}
	// FilesystemMCP is the MCP reference filesystem server (Node.js): its
	// list_allowed_directories answers from the client's roots. It has no
	// version flag (any argument is a directory to serve), so .ci/run's
	// pinned install is its version check.
	FilesystemMCP = PeerSpec{Name: "mcp-server-filesystem", Dir: ".npm/node_modules/.bin",
		Install: "npm install --prefix .npm @modelcontextprotocol/server-filesystem@2026.8.31 (needs Node.js)"}
	// Git: the editor's git features run the git program (with
	// --no-optional-locks, 2.15), and the diff package is held to
	// `git diff -U0`'s hunks (the indent heuristic is on by default since
	// 2.14).
	Git = PeerSpec{Name: "git", Min: "2.15", Install: "apt-get install git"}
	// The language servers the client is tested against beside gopls.
	Clangd = PeerSpec{Name: "clangd", Min: "14", Install: "apt-get install clangd"}
	// Pyright's server prints no version; .ci/run's pinned install is its
	// check.
	Pyright = PeerSpec{Name: "pyright-langserver", Dir: ".npm/node_modules/.bin",
		Install: "npm install --prefix .npm pyright@1.1.414 (needs Node.js)"}
	// TypeScriptLS needs the typescript package beside it (its tsserver);
	// 5.3 is the newest that runs on Node.js 20.
	TypeScriptLS = PeerSpec{Name: "typescript-language-server", Min: "5.3.0", Dir: ".npm/node_modules/.bin",
		Install: "npm install --prefix .npm typescript-language-server@5.3.0 typescript@5.9.3 (needs Node.js 20)"}
)

// Peer returns the path of the peer program, found as Tool finds it and
// checked against spec.Min. When it is missing, does not run or is older,
// the test skips with a message saying what to install, or fails when
// PMACS_REQUIRE_PEERS is set (to anything but "" or "0").
func Peer(t Skipper, spec PeerSpec) string {
	t.Helper()
	p, err := FindPeer(spec)
	if err != nil {
		if PeersRequired() {
			t.Fatalf("%v; %s=%s requires it", err, RequirePeersEnv, os.Getenv(RequirePeersEnv))
			return ""
		}
		t.Skipf("%v", err)
	}
	return p
}

// PeersRequired reports whether PMACS_REQUIRE_PEERS asks for every peer.
func PeersRequired() bool {
	v := os.Getenv(RequirePeersEnv)
	return v != "" && v != "0"
}

// FindPeer is Peer without a test: the program's path, or an error saying
// why it cannot serve (missing, not running, too old) and how to install it.
func FindPeer(spec PeerSpec) (string, error) {
	p, err := spec.find()
	if err != nil {
		return "", fmt.Errorf("%s is not installed (%s)", spec.Name, spec.Install)
	}
	if spec.Min == "" {
		return p, nil
	}
	args := spec.VersionArgs
	if len(args) == 0 {
		args = []string{"--version"}
	}
	out, err := exec.Command(p, args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s failed: %v: %s (%s)", p, strings.Join(args, " "), err, firstLine(out), spec.Install)
	}
	have, ok := parseVersion(string(out))
	if !ok {
		return "", fmt.Errorf("%s printed no version (%q); the tests need %s or later (%s)", p, firstLine(out), spec.Min, spec.Install)
	}
	if compareVersions(have, spec.Min) < 0 {
		return "", fmt.Errorf("%s is version %s; the tests need %s or later (%s)", p, have, spec.Min, spec.Install)
	}
	return p, nil
}

// find looks in spec.Dir, then as Tool does.
func (spec PeerSpec) find() (string, error) {
	if root, ok := moduleRoot(); ok && spec.Dir != "" {
		if p, ok := program(filepath.Join(root, spec.Dir, spec.Name)); ok {
			return p, nil
		}
	}
	return Tool(spec.Name)
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

var versionRE = regexp.MustCompile(`\d+\.\d+(?:\.\d+)?`)

// parseVersion finds the first dotted version number in a program's
// version output ("ripgrep 13.0.0", "0.65.2 (devel)", "tmux 3.3a",
// "golang.org/x/tools/gopls v0.23.0").
func parseVersion(out string) (string, bool) {
	v := versionRE.FindString(out)
	return v, v != ""
}

// compareVersions compares dotted versions numerically; a missing part
// counts as 0.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(as), len(bs)) {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}
