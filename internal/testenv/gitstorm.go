package testenv

import (
	"fmt"
	"os"
	"path/filepath"
)

// GitStorm is a GitRepo whose branches "one" and "two" differ in about
// 1.25 times n files (a quarter of n removed, the rest rewritten, and n/4
// files added in new directories), checked out at "one": switching
// branches is the storm of changes an editor watching the tree must
// survive. README is the same on both.
type GitStorm struct {
	*GitRepo
}

// NewGitStorm makes the repository under a fresh directory of t's; it
// skips t when git is missing (or fails it when peers are required).
func NewGitStorm(t interface {
	Skipper
	TB
	TempDir() string
}, n int) *GitStorm {
	t.Helper()
	g := &GitStorm{NewGitRepo(t)}
	g.Git("checkout", "-q", "-b", "one")
	tree := map[string]string{"README": "same\n"}
	for i := range n {
		tree[StormFile(i)] = "one\n"
	}
	WriteTree(t, g.Root, tree)
	g.Git("add", "-A")
	g.Git("commit", "-qm", "one")
	g.Git("checkout", "-qb", "two")
	for i := range n {
		p := filepath.Join(g.Root, StormFile(i))
		var err error
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

// StormFile is the path of a GitStorm's i-th file, relative to its root:
// "one" on branch one; on branch two removed when i is a multiple of 4,
// else "two".
func StormFile(i int) string { return fmt.Sprintf("d%02d/f%05d.txt", i%50, i) }

// Checkout switches the work tree to branch; unlike Git it may be called
// from any goroutine, and returns git's failure.
func (g *GitStorm) Checkout(branch string) error {
	_, err := g.Run("checkout", "-q", branch)
	return err
}
