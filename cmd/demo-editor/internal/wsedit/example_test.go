package wsedit_test

import (
	"fmt"
	"io/fs"

	"github.com/pmacs-go/pmacs-go/cmd/demo-editor/internal/wsedit"
)

// mapEnv is a tree in a map: path -> symlink target ("" for a file).
type mapEnv map[string]string

func (m mapEnv) Lstat(path string) (wsedit.Entry, error) {
	target, ok := m[path]
	if !ok {
		return wsedit.Entry{}, fs.ErrNotExist
	}
	return wsedit.Entry{Symlink: target != "", Target: target}, nil
}

func (m mapEnv) Open(string) bool   { return false }
func (m mapEnv) Modified() []string { return nil }

// A server renames a file and edits it by its new name: the plan edits the
// file as it is now, then renames it. Renaming a link that leads out of
// the workspace and editing it by its new name is refused whole.
func Example() {
	root := wsedit.Root{Named: "/src/proj"}
	env := mapEnv{"/src/proj/a.go": "", "/src/proj/alias.go": "../beside/victim.go"}

	plan, err := wsedit.Make([]wsedit.Step{
		{Kind: wsedit.Rename, From: "/src/proj/a.go", To: "/src/proj/b.go"},
		{Kind: wsedit.Edit, Path: "/src/proj/b.go"},
	}, root, env)
	fmt.Println(plan.Files[0].Path, plan.Files[0].Groups, plan.Ops[0].To, err)

	_, err = wsedit.Make([]wsedit.Step{
		{Kind: wsedit.Rename, From: "/src/proj/alias.go", To: "/src/proj/c.go"},
		{Kind: wsedit.Edit, Path: "/src/proj/c.go"},
	}, root, env)
	fmt.Println(err)
	// Output:
	// /src/proj/a.go [1] /src/proj/b.go <nil>
	// the edit changes c.go, which resolves to /src/beside/victim.go, outside the workspace (/src/proj)
}
