package wsedit

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testEnv is an Env on a real directory tree that fails the test when the
// planner asks about a path outside the root, and records what it asked.
type testEnv struct {
	t        *testing.T
	root     string
	open     []string
	modified []string
	asked    []string
}

func (e *testEnv) Lstat(path string) (Entry, error) {
	e.asked = append(e.asked, path)
	require.True(e.t, within(path, e.root), "asked about %s, outside the root %s", path, e.root)
	fi, err := os.Lstat(path)
	if err != nil {
		return Entry{}, err
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		return Entry{}, nil
	}
	target, err := os.Readlink(path)
	return Entry{Symlink: true, Target: target}, err
}

func (e *testEnv) Open(path string) bool { return slices.Contains(e.open, path) }
func (e *testEnv) Modified() []string    { return e.modified }

// tree writes top/proj (the root) and top/beside: files (path relative to
// top -> content) and links (path relative to top -> target).
func tree(t *testing.T, files, links map[string]string) (top, proj string) {
	t.Helper()
	top, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for _, d := range []string{"proj", "beside"} {
		require.NoError(t, os.MkdirAll(filepath.Join(top, d), 0o755))
	}
	for p, body := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(top, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(top, p), []byte(body), 0o644))
	}
	for p, target := range links {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(top, p)), 0o755))
		require.NoError(t, os.Symlink(target, filepath.Join(top, p)))
	}
	return top, filepath.Join(top, "proj")
}

// hostile is the tree the refusal tests share: beside/victim.go and
// beside/c.txt outside; in proj a file link and a directory link leading
// out, a link inside, a relative link that leads out once moved up, and a
// directory.
func hostile(t *testing.T) (top, proj string, env *testEnv) {
	top, proj = tree(t, map[string]string{
		"beside/victim.go": "v", "beside/c.txt": "c", "proj/other.go": "o", "proj/a.txt": "a",
		"proj/pkg/p.go": "p", "proj/beside/c.txt": "inside c",
	}, map[string]string{
		"proj/alias.go": "../beside/victim.go", "proj/door": "../beside",
		"proj/inlink.go": "other.go", "proj/deep/ln.go": "../beside/c.txt",
		"proj/loop1": "loop2", "proj/loop2": "loop1",
	})
	return top, proj, &testEnv{t: t, root: proj}
}

func edit(p string) Step             { return Step{Kind: Edit, Path: p} }
func create(p string) Step           { return Step{Kind: Create, Path: p} }
func rename(from, to string) Step    { return Step{Kind: Rename, From: from, To: to} }
func remove(p string) Step           { return Step{Kind: Delete, Path: p} }
func at(dir string, p string) string { return filepath.Join(dir, p) }

// Every step that reaches outside the root, by its own name or only
// through the steps before it, refuses the whole edit with a message
// naming the path as the server gave it and where it leads; the planner
// never asks about a path outside the root (testEnv fails the test if
// it does), so a file beside the root that is missing is refused exactly
// as one that exists.
func TestEscapesAreRefusedWithoutLookingOutside(t *testing.T) {
	for _, c := range []struct {
		name  string
		steps func(proj, beside string) []Step
		want  string // %B beside, %P proj, %T top
	}{
		{"by path", func(p, b string) []Step { return []Step{edit(at(b, "victim.go"))} },
			"the edit changes %B/victim.go, outside the workspace (%P)"},
		{"directory link", func(p, b string) []Step { return []Step{edit(at(p, "door/victim.go"))} },
			"the edit changes door/victim.go, which resolves to %B/victim.go, outside the workspace (%P)"},
		{"file link", func(p, b string) []Step { return []Step{edit(at(p, "alias.go"))} },
			"the edit changes alias.go, which resolves to %B/victim.go, outside the workspace (%P)"},
		{"rename out", func(p, b string) []Step { return []Step{rename(at(p, "other.go"), at(b, "stolen.go"))} },
			"the edit renames other.go to %B/stolen.go, outside the workspace (%P)"},
		{"delete through a link", func(p, b string) []Step { return []Step{remove(at(p, "door/c.txt"))} },
			"the edit deletes door/c.txt, which resolves to %B/c.txt, outside the workspace (%P)"},
		{"create through a link", func(p, b string) []Step { return []Step{create(at(p, "door/new.go"))} },
			"the edit creates door/new.go, which resolves to %B/new.go, outside the workspace (%P)"},
		{"renamed file link", func(p, b string) []Step {
			return []Step{rename(at(p, "alias.go"), at(p, "b.go")), edit(at(p, "b.go"))}
		}, "the edit changes b.go, which resolves to %B/victim.go, outside the workspace (%P)"},
		{"renamed directory link, create", func(p, b string) []Step {
			return []Step{rename(at(p, "door"), at(p, "sub")), create(at(p, "sub/new.go"))}
		}, "the edit creates sub/new.go, which resolves to %B/new.go, outside the workspace (%P)"},
		{"renamed directory link, existing file", func(p, b string) []Step {
			return []Step{rename(at(p, "door"), at(p, "sub")), edit(at(p, "sub/victim.go"))}
		}, "the edit changes sub/victim.go, which resolves to %B/victim.go, outside the workspace (%P)"},
		{"renamed directory link, missing file", func(p, b string) []Step {
			return []Step{rename(at(p, "door"), at(p, "sub")), edit(at(p, "sub/missing.go"))}
		}, "the edit changes sub/missing.go, which resolves to %B/missing.go, outside the workspace (%P)"},
		{"renamed directory link, delete", func(p, b string) []Step {
			return []Step{rename(at(p, "door"), at(p, "sub")), remove(at(p, "sub/c.txt"))}
		}, "the edit deletes sub/c.txt, which resolves to %B/c.txt, outside the workspace (%P)"},
		{"relative link moved up", func(p, b string) []Step {
			return []Step{edit(at(p, "deep/ln.go")), rename(at(p, "deep/ln.go"), at(p, "ln.go"))}
		}, "the edit moves deep/ln.go to ln.go, which resolves to %B/c.txt, outside the workspace (%P)"},
		{"create skipped as existing", func(p, b string) []Step {
			c := create(at(p, "alias.go"))
			c.Options.IgnoreIfExists = true
			return []Step{c, edit(at(p, "alias.go"))}
		}, "the edit creates alias.go, which resolves to %B/victim.go, outside the workspace (%P)"},
		{"the root itself", func(p, b string) []Step { return []Step{remove(p)} },
			"the edit deletes %P, outside the workspace (%P)"},
		{"link loop", func(p, b string) []Step { return []Step{edit(at(p, "loop1"))} },
			"the edit changes loop1, which cannot be checked against the workspace (%P): too many levels of symbolic links"},
	} {
		t.Run(c.name, func(t *testing.T) {
			top, proj, env := hostile(t)
			beside := at(top, "beside")
			plan, err := Make(c.steps(proj, beside), Root{Named: proj}, env)
			require.ErrorIs(t, err, ErrRefused)
			require.Nil(t, plan)
			want := strings.NewReplacer("%B", beside, "%P", proj, "%T", top).Replace(c.want)
			require.Equal(t, want, err.Error())
		})
	}
}

// What stays inside is planned: an edit through a link inside keeps the
// link's name (the buffer a user opened by it), a directory renamed and
// then created and edited in, and a file edited before and after its
// rename, the two groups in order under its path now; the file operations
// are listed in order with the paths they act on.
func TestInsideEditsArePlanned(t *testing.T) {
	_, proj, env := hostile(t)
	steps := []Step{
		edit(at(proj, "inlink.go")),
		rename(at(proj, "pkg"), at(proj, "moved")),
		create(at(proj, "moved/new.go")),
		edit(at(proj, "moved/new.go")),
		edit(at(proj, "moved/p.go")),
		edit(at(proj, "a.txt")),
		rename(at(proj, "a.txt"), at(proj, "sub/dir/a.txt")),
		{Kind: Edit, Path: at(proj, "sub/dir/a.txt"), Version: 7},
	}
	plan, err := Make(steps, Root{Named: proj}, env)
	require.NoError(t, err)
	require.Equal(t, []File{
		{Path: at(proj, "inlink.go"), Groups: []int{0}},
		{Path: at(proj, "moved/new.go"), Fresh: true, Groups: []int{3}},
		{Path: at(proj, "pkg/p.go"), Groups: []int{4}},
		{Path: at(proj, "a.txt"), Groups: []int{5, 7}, Version: 7},
	}, plan.Files)
	require.Equal(t, []Op{
		{Step: 1, Kind: Rename, From: at(proj, "pkg"), To: at(proj, "moved"), Name: at(proj, "pkg")},
		{Step: 6, Kind: Rename, From: at(proj, "a.txt"), To: at(proj, "sub/dir/a.txt"), Name: at(proj, "a.txt")},
	}, plan.Ops)
}

// A root reached through a link: paths named through the link and paths
// named by the real directory both plan, each file under the name the
// editor gives the root; ".." from the root leads to the real parent.
func TestRootReachedThroughALink(t *testing.T) {
	top, real := tree(t, map[string]string{"proj/x.go": "x"}, map[string]string{"named": "proj", "proj/up": "../proj/x.go"})
	named := at(top, "named")
	env := &testEnv{t: t, root: named}
	env.root = named
	plan, err := Make([]Step{edit(at(named, "x.go")), edit(at(real, "x.go"))}, Root{Named: named, Real: real},
		&realRootEnv{env, real, named})
	require.NoError(t, err)
	require.Equal(t, []File{{Path: at(named, "x.go"), Groups: []int{0, 1}}}, plan.Files)

	plan, err = Make([]Step{edit(at(named, "up"))}, Root{Named: named, Real: real}, &realRootEnv{env, real, named})
	require.NoError(t, err)
	require.Equal(t, at(named, "up"), plan.Files[0].Path, "the link's name is kept")
}

// realRootEnv maps the named root to the real one for os.Lstat.
type realRootEnv struct {
	*testEnv
	real, named string
}

func (e *realRootEnv) Lstat(path string) (Entry, error) {
	require.True(e.t, within(path, e.named), "asked about %s, outside the root", path)
	return e.testEnv.lstatAt(e.real + strings.TrimPrefix(path, e.named))
}

func (e *testEnv) lstatAt(path string) (Entry, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return Entry{}, err
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		return Entry{}, nil
	}
	target, err := os.Readlink(path)
	return Entry{Symlink: true, Target: target}, err
}

// Steps that cannot be done as written are refused with what is wrong:
// an edit of a missing file, a create of an existing one, a create after
// edits of it, a rename of a missing file or over an existing or open
// one, a rename or delete of a file the edit creates, an edit of a file
// after its delete, a delete of a file with unsaved changes (also under
// the name a rename before it gives it), a recursive delete; what the
// options allow is skipped instead.
func TestStepsThatCannotBeDoneAreRefused(t *testing.T) {
	_, proj, _ := hostile(t)
	p := func(s string) string { return at(proj, s) }
	with := func(s Step, o Options) Step { s.Options = o; return s }
	for _, c := range []struct {
		steps          []Step
		open, modified []string
		want           string
	}{
		{steps: []Step{edit(p("missing.go"))}, want: "the edit changes missing.go, which does not exist"},
		{steps: []Step{create(p("other.go"))}, want: "the edit creates other.go, which exists"},
		{steps: []Step{edit(p("other.go")), with(create(p("other.go")), Options{Overwrite: true})},
			want: "a create of other.go after edits of it"},
		{steps: []Step{rename(p("missing"), p("x"))}, want: "the edit renames missing, which does not exist"},
		{steps: []Step{rename(p("other.go"), p("a.txt"))}, want: "the edit renames other.go to a.txt, which exists"},
		{steps: []Step{rename(p("other.go"), p("new.go"))}, open: []string{p("new.go")},
			want: "the edit renames other.go over new.go, which is open"},
		{steps: []Step{create(p("n.go")), rename(p("n.go"), p("m.go"))}, want: "the edit renames n.go, a file it creates"},
		{steps: []Step{create(p("n.go")), remove(p("n.go"))}, want: "the edit deletes n.go, a file it creates"},
		{steps: []Step{remove(p("a.txt")), edit(p("a.txt"))}, want: "the edit changes a.txt after it was renamed or deleted"},
		{steps: []Step{remove(p("a.txt"))}, modified: []string{p("a.txt")}, want: "the edit deletes a.txt, which has unsaved changes"},
		{steps: []Step{rename(p("pkg"), p("moved")), remove(p("moved"))}, modified: []string{p("pkg/p.go")},
			want: "the edit deletes pkg/p.go, which has unsaved changes"},
		{steps: []Step{with(remove(p("pkg")), Options{Recursive: true})}, want: "recursive deletes (pkg) are not supported"},
		{steps: []Step{{Kind: "copy", Path: p("a.txt")}}, want: "a file operation LSP does not define (copy)"},
	} {
		t.Run(c.want, func(t *testing.T) {
			env := &testEnv{t: t, root: proj, open: c.open, modified: c.modified}
			_, err := Make(c.steps, Root{Named: proj}, env)
			require.ErrorIs(t, err, ErrRefused)
			require.Equal(t, c.want, err.Error())
		})
	}

	env := &testEnv{t: t, root: proj}
	plan, err := Make([]Step{
		with(create(p("other.go")), Options{IgnoreIfExists: true}),
		with(rename(p("a.txt"), p("other.go")), Options{IgnoreIfExists: true}),
		with(remove(p("missing")), Options{IgnoreIfNotExists: true}),
	}, Root{Named: proj}, env)
	require.NoError(t, err)
	require.Empty(t, plan.Files)
	require.Empty(t, plan.Ops)
}

// An error other than "not there" from the disk is a refusal that says
// the path cannot be checked, with the cause.
func TestUnreadableTreeCannotBeChecked(t *testing.T) {
	_, proj, _ := hostile(t)
	env := &failingEnv{testEnv{t: t, root: proj}, at(proj, "pkg")}
	_, err := Make([]Step{edit(at(proj, "pkg/p.go"))}, Root{Named: proj}, env)
	require.ErrorIs(t, err, ErrRefused)
	require.Equal(t, "the edit changes pkg/p.go, which cannot be checked against the workspace ("+proj+"): permission denied", err.Error())
}

type failingEnv struct {
	testEnv
	fail string
}

func (e *failingEnv) Lstat(path string) (Entry, error) {
	if path == e.fail {
		return Entry{}, errors.New("permission denied")
	}
	return e.testEnv.Lstat(path)
}
