// Package wsedit plans a language server's WorkspaceEdit: it takes the
// edit's steps in order (text edits of documents, creates, renames and
// deletes), judges each against the tree the steps before it leave, and
// returns what the editor is to do: which files get which groups of text
// edits (each file by the path its buffer visits), which start empty, and
// which file operations run, in order. It refuses the whole edit, with a
// message naming the path, when any step reaches outside the workspace
// root, names a file that is not there, or cannot be done as written.
//
// Every path is resolved component by component and link by link in the
// tree the earlier steps leave (a link renamed to another name, a
// directory link renamed, a relative link moved elsewhere), and must stay
// beneath the root at every component: the walk stops at the first
// component outside without looking at it, and passes through the root's
// own parent directories without looking at them either. What it asks of
// the disk (Env.Lstat) it asks only of paths inside the root. Each buffer
// the edit changes must also still lead inside once every file operation
// is done, since its save writes through the links its path holds then.
//
// The package knows nothing of buffers, text or servers: the editor gives
// it an Env (a confined lstat and the buffers' paths) and applies the plan.
// A Plan is made on one goroutine; Env is called on that goroutine only.
package wsedit

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
)

// Kind is what a step does.
type Kind string

// The kinds of step LSP defines.
const (
	Edit   Kind = "edit"
	Create Kind = "create"
	Rename Kind = "rename"
	Delete Kind = "delete"
)

// Options are a file operation's options, as LSP names them.
type Options struct {
	Overwrite, IgnoreIfExists, IgnoreIfNotExists, Recursive bool
}

// Step is one change of the edit. Path is the file an edit, a create or a
// delete names, From and To what a rename names: absolute and clean, as
// the server gave them. Version is the document version an edit was made
// for (0: none).
type Step struct {
	Kind     Kind
	Path     string
	From, To string
	Version  int
	Options  Options
}

// Entry is what Env.Lstat found at a path.
type Entry struct {
	Symlink bool
	Target  string // a symlink's target, as stored
}

// Env is what planning asks of the world.
type Env interface {
	// Lstat describes the entry at path, a path beneath the root whose
	// directories are resolved, without following a final link. An error
	// matching fs.ErrNotExist or syscall.ENOTDIR means nothing is there;
	// any other makes the edit one that cannot be checked.
	Lstat(path string) (Entry, error)
	// Open reports whether a buffer visits path: such a file exists,
	// saved or not.
	Open(path string) bool
	// Modified lists the paths of the buffers with unsaved changes.
	Modified() []string
}

// Root is the workspace: as the editor names it, and as the kernel
// resolves it (equal when no link leads to it).
type Root struct{ Named, Real string }

// File is a file the edit changes.
type File struct {
	// Path is the path its buffer visits (opened for the edit when no
	// buffer does).
	Path string
	// Fresh is set for a file the edit creates: it starts empty.
	Fresh bool
	// Groups are the indexes (into the steps) of its text edits, in order;
	// each group's ranges are in the text the groups before it leave.
	Groups []int
	// Version is the document version the first group naming one was
	// made for (0: none).
	Version int
}

// Op is a file operation to run, after the text edits, in order.
type Op struct {
	Step      int    // index into the steps
	Kind      Kind   // Rename or Delete
	Path      string // what a delete removes
	From, To  string // what a rename moves
	Overwrite bool
	// Name is the path the server named (From for a rename), for
	// messages.
	Name string
}

// Plan is what the editor does for an edit: the text edits of Files, then
// Ops.
type Plan struct {
	Files []File
	Ops   []Op
}

// ErrRefused is the cause of every refusal: errors.Is(err, ErrRefused)
// holds for the error Make returns for an edit it will not apply.
var ErrRefused = errors.New("wsedit: workspace edit refused")

// refusal is a refusal's message, matching ErrRefused.
type refusal string

func (r refusal) Error() string        { return string(r) }
func (r refusal) Is(target error) bool { return target == ErrRefused }

func refusef(format string, args ...any) error { return refusal(fmt.Sprintf(format, args...)) }

// maxLinks is where a path counts as a loop, as the kernel's ELOOP.
const maxLinks = 40

// Make plans steps for root. It returns the plan, or an error matching
// ErrRefused whose message says why the edit cannot be applied (naming
// the path as the server gave it, relative to the root, and where a link
// or an earlier step makes it lead).
func Make(steps []Step, root Root, env Env) (*Plan, error) {
	if root.Real == "" {
		root.Real = root.Named
	}
	p := &planner{root: root, env: env, cache: map[string]lstatResult{}}
	p.steps = make([]step, len(steps))
	for i, s := range steps {
		p.steps[i] = step{Step: s}
	}
	return p.plan()
}

type step struct {
	Step
	skip bool
}

type lstatResult struct {
	e   Entry
	err error
}

type planner struct {
	steps []step
	root  Root
	env   Env
	cache map[string]lstatResult
}

// within says whether p is base or lies under it.
func within(p, base string) bool {
	return p == base || (strings.HasPrefix(p, base) && (base == "/" || p[len(base)] == '/'))
}

func dirname(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

func join(dir, name string) string {
	if strings.HasPrefix(name, "/") {
		return name
	}
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

func components(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// rel is p relative to the root as the editor names it, for messages.
func (p *planner) rel(path string) string {
	if r, ok := strings.CutPrefix(path, p.root.Named+"/"); ok {
		return r
	}
	return path
}

func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func (p *planner) lstat(path string) (Entry, error) {
	r, ok := p.cache[path]
	if !ok {
		r.e, r.err = p.env.Lstat(path)
		p.cache[path] = r
	}
	return r.e, r.err
}

// trace follows path back through the steps before upto to what it holds
// then: "disk" and the path it has now, "create" and the index of the step
// that makes it, or "gone" (renamed away or deleted). The steps' paths are
// resolved already, so a path resolved in the same tree is traced by its
// name.
func (p *planner) trace(path string, upto int) (how string, at string, create int) {
	for i := upto - 1; i >= 0; i-- {
		st := &p.steps[i]
		if st.skip {
			continue
		}
		switch st.Kind {
		case Create:
			if st.Path == path {
				return "create", "", i
			}
		case Delete:
			if within(path, st.Path) {
				return "gone", "", -1
			}
		case Rename:
			if within(path, st.To) {
				path = st.From + path[len(st.To):]
			} else if within(path, st.From) {
				return "gone", "", -1
			}
		}
	}
	return "disk", path, -1
}

// forward is where the file at path now is just before step upto; ok is
// false once a step before it deleted it. A buffer follows a rename as
// this does, by its path's name.
func (p *planner) forward(path string, upto int) (string, bool) {
	for i := 0; i < upto; i++ {
		st := &p.steps[i]
		if st.skip {
			continue
		}
		if st.Kind == Delete && within(path, st.Path) {
			return "", false
		}
		if st.Kind == Rename && within(path, st.From) {
			path = st.To + path[len(st.From):]
		}
	}
	return path, true
}

// entryAt is what the tree just before step upto holds at path (inside
// the root, its directories resolved): found is false for nothing.
func (p *planner) entryAt(path string, upto int) (e Entry, found bool, err error) {
	how, at, _ := p.trace(path, upto)
	switch how {
	case "gone":
		return Entry{}, false, nil
	case "create":
		return Entry{}, true, nil
	}
	e, err = p.lstat(at)
	if err == nil {
		return e, true, nil
	}
	if absent(err) {
		return Entry{}, false, nil
	}
	return Entry{}, false, err
}

// errOutside ends a walk that left the root; reached is where it led.
type errOutside struct{ reached string }

func (e *errOutside) Error() string { return "outside" }

// errUnchecked ends a walk that could not look at a component.
type errUnchecked struct {
	at  string
	err error
}

func (e *errUnchecked) Error() string { return e.err.Error() }

// resolve is path as the kernel would resolve it just before step upto,
// with the root named as the editor names it: every directory link
// followed (and, with follow, a final one), ".." applied after the link it
// follows. Components that do not exist are kept as named. It looks at
// nothing outside the root: a component that leaves it ends the walk with
// *errOutside (the path it reached, the rest appended); the root's own
// ancestors are only passed through.
func (p *planner) resolve(path string, upto int, follow bool) (string, error) {
	named, real := p.root.Named, p.root.Real
	todo := components(path)
	k := 0
	cur, links, gone := "/", 0, false
	reached := func(at string) string {
		if k >= len(todo) {
			return at
		}
		return join(at, strings.Join(todo[k:], "/"))
	}
	for k < len(todo) {
		c := todo[k]
		k++
		switch {
		case c == "..":
			switch {
			case cur == named:
				cur = dirname(real)
			case within(named, cur) && !within(real, cur):
				// Above the root by a name a link may stand for: where
				// ".." leads from here is not known without looking
				// outside.
				return "", &errOutside{reached(join(cur, ".."))}
			default:
				cur = dirname(cur)
			}
		case c == ".":
		default:
			cand := join(cur, c)
			switch {
			case cand == named || cand == real:
				cur = named
			case within(named, cand) || within(real, cand):
				cur = cand
			case !within(cand, named):
				return "", &errOutside{reached(cand)}
			case gone || (k >= len(todo) && !follow):
				cur = cand
			default:
				e, found, err := p.entryAt(cand, upto)
				if err != nil {
					return "", &errUnchecked{cand, err}
				}
				if found && e.Symlink {
					links++
					if links > maxLinks {
						return "", &errUnchecked{cand, errors.New("too many levels of symbolic links")}
					}
					t := components(e.Target)
					if strings.HasPrefix(e.Target, "/") {
						cur = "/"
					}
					todo = append(append(append([]string(nil), todo[:k]...), t...), todo[k:]...)
				} else {
					gone, cur = !found, cand
				}
			}
		}
	}
	return cur, nil
}

// confined is path resolved just before step upto, or a refusal: what it
// reaches is not beneath the root, or could not be checked. verb says
// what the step does ("changes ", "renames a to ").
func (p *planner) confined(path string, upto int, follow bool, verb string) (string, error) {
	at, err := p.resolve(path, upto, follow)
	if err == nil {
		if at != p.root.Named && within(at, p.root.Named) {
			return at, nil
		}
		err = &errOutside{at}
	}
	where := p.root.Named
	var out *errOutside
	if !errors.As(err, &out) {
		return "", refusef("the edit %s%s, which cannot be checked against the workspace (%s): %v", verb, p.rel(path), where, err)
	}
	if out.reached != path {
		return "", refusef("the edit %s%s, which resolves to %s, outside the workspace (%s)", verb, p.rel(path), out.reached, where)
	}
	return "", refusef("the edit %s%s, outside the workspace (%s)", verb, p.rel(path), where)
}

// onDisk says whether the file at path (resolved, inside the root) is
// there now; a file open in a buffer is.
func (p *planner) onDisk(path string) (bool, error) {
	if p.env.Open(path) {
		return true, nil
	}
	_, err := p.lstat(path)
	if err == nil {
		return true, nil
	}
	if absent(err) {
		return false, nil
	}
	return false, refusal(err.Error())
}

func (p *planner) exists(path string, upto int) (bool, error) {
	how, at, _ := p.trace(path, upto)
	switch how {
	case "create":
		return true, nil
	case "gone":
		return false, nil
	}
	return p.onDisk(at)
}

func (p *planner) plan() (*Plan, error) {
	files := map[string]*File{}
	var order []string
	target := func(path string) *File {
		f := files[path]
		if f == nil {
			f = &File{Path: path}
			files[path] = f
			order = append(order, path)
		}
		return f
	}
	var ops []Op
	for i := range p.steps {
		st := &p.steps[i]
		var err error
		switch st.Kind {
		case Edit:
			name := st.Path
			if st.Path, err = p.confined(name, i, true, "changes "); err != nil {
				return nil, err
			}
			how, at, create := p.trace(st.Path, i)
			switch how {
			case "gone":
				return nil, refusef("the edit changes %s after it was renamed or deleted", p.rel(name))
			case "create":
				at = p.steps[create].Path
			default:
				ok, err := p.onDisk(at)
				if err != nil {
					return nil, err
				}
				if !ok {
					return nil, refusef("the edit changes %s, which does not exist", p.rel(name))
				}
				// The file keeps the name the server gave it beneath the
				// root as the editor names it (a link inside the root,
				// open in a buffer by that name) when that name leads to
				// it in the tree as it is now.
				if kept, byName, _ := p.trace(name, i); kept == "disk" && byName != at && within(byName, p.root.Named) {
					if r, err := p.resolve(byName, 0, true); err == nil && r == at {
						at = byName
					}
				}
			}
			f := target(at)
			f.Groups = append(f.Groups, i)
			if st.Version > 0 && f.Version == 0 {
				f.Version = st.Version
			}
		case Create:
			name := st.Path
			if st.Path, err = p.confined(name, i, true, "creates "); err != nil {
				return nil, err
			}
			there, err := p.exists(st.Path, i)
			if err != nil {
				return nil, err
			}
			if there && !st.Options.Overwrite {
				if !st.Options.IgnoreIfExists {
					return nil, refusef("the edit creates %s, which exists", p.rel(name))
				}
				st.skip = true
				break
			}
			if files[st.Path] != nil {
				return nil, refusef("a create of %s after edits of it", p.rel(name))
			}
			target(st.Path).Fresh = true
		case Rename:
			from, to := st.From, st.To
			if st.From, err = p.confined(from, i, false, "renames "); err != nil {
				return nil, err
			}
			if st.To, err = p.confined(to, i, false, "renames "+p.rel(from)+" to "); err != nil {
				return nil, err
			}
			if how, _, _ := p.trace(st.From, i); how == "create" {
				return nil, refusef("the edit renames %s, a file it creates", p.rel(from))
			}
			there, err := p.exists(st.From, i)
			if err != nil {
				return nil, err
			}
			if !there {
				return nil, refusef("the edit renames %s, which does not exist", p.rel(from))
			}
			taken, err := p.exists(st.To, i)
			if err != nil {
				return nil, err
			}
			switch {
			case taken && p.env.Open(st.To):
				return nil, refusef("the edit renames %s over %s, which is open", p.rel(from), p.rel(to))
			case taken && !st.Options.Overwrite:
				if !st.Options.IgnoreIfExists {
					return nil, refusef("the edit renames %s to %s, which exists", p.rel(from), p.rel(to))
				}
				st.skip = true
			}
			if !st.skip {
				ops = append(ops, Op{Step: i, Kind: Rename, From: st.From, To: st.To, Overwrite: st.Options.Overwrite, Name: from})
			}
		case Delete:
			name := st.Path
			if st.Options.Recursive {
				return nil, refusef("recursive deletes (%s) are not supported", p.rel(name))
			}
			if st.Path, err = p.confined(name, i, false, "deletes "); err != nil {
				return nil, err
			}
			if how, _, _ := p.trace(st.Path, i); how == "create" {
				return nil, refusef("the edit deletes %s, a file it creates", p.rel(name))
			}
			there, err := p.exists(st.Path, i)
			if err != nil {
				return nil, err
			}
			if !there {
				if !st.Options.IgnoreIfNotExists {
					return nil, refusef("the edit deletes %s, which does not exist", p.rel(name))
				}
				st.skip = true
				break
			}
			for _, b := range p.env.Modified() {
				if at, ok := p.forward(b, i); ok && within(at, st.Path) {
					return nil, refusef("the edit deletes %s, which has unsaved changes", p.rel(b))
				}
			}
			ops = append(ops, Op{Step: i, Kind: Delete, Path: st.Path, Name: name})
		default:
			return nil, refusef("a file operation LSP does not define (%s)", st.Kind)
		}
	}
	// Once every file operation is done, each buffer the edit changes
	// visits the path its file then has, and a save writes through the
	// links that path holds then: it must still lead inside the root.
	plan := &Plan{Ops: ops}
	for _, path := range order {
		if at, ok := p.forward(path, len(p.steps)); ok {
			verb := "leaves "
			if at != path {
				verb = "moves " + p.rel(path) + " to "
			}
			if _, err := p.confined(at, len(p.steps), true, verb); err != nil {
				return nil, err
			}
		}
		plan.Files = append(plan.Files, *files[path])
	}
	return plan, nil
}
