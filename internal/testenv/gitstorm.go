package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// GitStorm is a git repository whose branches "one" and "two" differ in
// about 1.25 times n files (a quarter of n removed, the rest rewritten, and
// n/4 files added in new directories), checked out at "one": switching
// branches is the storm of changes an editor watching the tree must
// survive.
type GitStorm struct {
	Root string
	git  string
	t    TB
}

// NewGitStorm makes the repository under a fresh directory of t's; it
// skips t when git is not installed (or fails it when peers are
// required).
func NewGitStorm(t interface {
	TB
	TempDir() string
	Skipf(string, ...any)
}, n int) *GitStorm {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		if PeersRequired() {
			t.Fatal("git is not installed")
		}
		t.Skipf("git is not installed")
	}
	g := &GitStorm{Root: t.TempDir(), git: git, t: t}
	g.Git("init", "-q", "-b", "one")
	tree := map[string]string{"README": "same\n"}
	for i := range n {
		tree[fmt.Sprintf("d%02d/f%05d.txt", i%50, i)] = "one\n"
	}
	WriteTree(t, g.Root, tree)
	g.Git("add", "-A")
	g.Git("commit", "-qm", "one")
	g.Git("checkout", "-qb", "two")
	for i := range n {
		p := filepath.Join(g.Root, fmt.Sprintf("d%02d/f%05d.txt", i%50, i))
		if i%4 == 0 {
			err = os.Remove(p)
		} else {
			err = os.WriteFile(p, []byte("two\n"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	added := map[string]string{}
	for i := range n / 4 {
		added[fmt.Sprintf("n%02d/g%05d.txt", i%10, i)] = "new\n"
	}
	WriteTree(t, g.Root, added)
	g.Git("add", "-A")
	g.Git("commit", "-qm", "two")
	g.Git("checkout", "-q", "one")
	return g
}

// Git runs git with args in the repository, failing the test on an error.
func (g *GitStorm) Git(args ...string) {
	g.t.Helper()
	if err := g.command(args...); err != nil {
		g.t.Fatal(err)
	}
}

// Checkout switches the work tree to branch; unlike Git it may be called
// from any goroutine, and returns git's failure.
func (g *GitStorm) Checkout(branch string) error {
	return g.command("checkout", "-q", branch)
}

func (g *GitStorm) command(args ...string) error {
	cmd := exec.Command(g.git, args...)
	cmd.Dir = g.Root
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1", "HOME="+g.Root)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v: %w: %s", args, err, out)
	}
	return nil
}
