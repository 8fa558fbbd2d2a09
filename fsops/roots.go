package fsops

import (
	"context"
	"path/filepath"
	"strings"
)

// Roots is a set of directories that operations may not leave: its methods
// are the package's operations, confined. Each first runs Confine's check
// (ConfineFollow's for ReadDir), so a path that escapes now is refused with
// the same *PathError wrapping ErrEscapesRoot, and then acts through a
// directory descriptor that the kernel resolved beneath the root the check
// found: on Linux openat2 with RESOLVE_BENEATH, elsewhere os.Root. A parent
// directory swapped for a symlink leading out between the check and the
// operation is therefore never followed out: the operation is refused with
// ErrEscapesRoot (or fails as the kernel reports the changed path) and
// touches nothing outside. The final component is acted on relative to that
// descriptor, with the same no-follow rules as the unconfined operations.
//
// Within the roots, the meaning of a path is Confine's: symlinks in its
// parent directories are followed wherever they lead inside a root (into
// another root too), ".." is applied after the link it follows, and a path
// equal to a root names the root itself. What the roots do not contain
// cannot be reached, named or observed through these methods, including by
// the errors they return.
//
// A nil or empty Roots confines everything out. Inside the roots each
// method answers as the unconfined operation of the same name would, with
// the same values and errors; see ReadDir, Stat, Rename, Chmod and Remove
// for the rest of each contract. Roots are resolved (symlinks and all) at
// every call, and a Roots value is never modified, so it is safe for
// concurrent use.
type Roots []string

// ReadDir is the package's ReadDir confined to r.
func (r Roots) ReadDir(ctx context.Context, path string, tol Tolerance) (Listing, error) {
	const op = "readdir"
	if err := checkPath(op, path, "", path); err != nil {
		return Listing{}, err
	}
	if err := checkCancel(ctx, op, path, ""); err != nil {
		return Listing{}, err
	}
	if err := ConfineFollow(r, path); err != nil {
		return Listing{}, err
	}
	p, ok := locate(r, path, reachFollow)
	if !ok {
		return Listing{}, escapes(path)
	}
	return readDirIn(ctx, p, path, tol)
}

// Stat is the package's Stat confined to r.
func (r Roots) Stat(ctx context.Context, path string) (Entry, error) {
	const op = "stat"
	if err := checkPath(op, path, "", path); err != nil {
		return Entry{}, err
	}
	if err := checkCancel(ctx, op, path, ""); err != nil {
		return Entry{}, err
	}
	if err := Confine(r, path); err != nil {
		return Entry{}, err
	}
	p, ok := locate(r, path, reachResolved)
	if !ok {
		return Entry{}, escapes(path)
	}
	e, err := statIn(p, path)
	if err != nil {
		return Entry{}, err
	}
	e.Name = filepath.Base(path)
	return e, nil
}

// Rename is the package's Rename confined to r: both paths must lie inside
// a root (not necessarily the same one). Without overwrite the destination
// is still refused atomically where Rename does so.
func (r Roots) Rename(ctx context.Context, from, to string, overwrite bool) error {
	const op = "rename"
	if err := checkPath(op, from, to, from); err != nil {
		return err
	}
	if err := checkPath(op, from, to, to); err != nil {
		return err
	}
	if err := checkCancel(ctx, op, from, to); err != nil {
		return err
	}
	if err := Confine(r, from); err != nil {
		return err
	}
	if err := Confine(r, to); err != nil {
		return err
	}
	pf, ok := locate(r, from, reachEntry)
	if !ok {
		return escapes(from)
	}
	pt, ok := locate(r, to, reachEntry)
	if !ok {
		return escapes(to)
	}
	return renameIn(pf, pt, from, to, overwrite)
}

// Chmod is the package's Chmod confined to r.
func (r Roots) Chmod(ctx context.Context, path string, mode uint32) error {
	const op = "chmod"
	if err := checkPath(op, path, "", path); err != nil {
		return err
	}
	if mode&^0o7777 != 0 {
		return &PathError{Op: op, Path: path, Err: ErrBadMode}
	}
	if err := checkCancel(ctx, op, path, ""); err != nil {
		return err
	}
	if err := Confine(r, path); err != nil {
		return err
	}
	p, ok := locate(r, path, reachResolved)
	if !ok {
		return escapes(path)
	}
	return chmodIn(p, path, mode)
}

// Remove is the package's Remove confined to r.
func (r Roots) Remove(ctx context.Context, path string) error {
	return r.onEntry(ctx, "remove", path, removeIn)
}

// Mkdir is the package's Mkdir confined to r.
func (r Roots) Mkdir(ctx context.Context, path string) error {
	return r.onEntry(ctx, "mkdir", path, mkdirIn)
}

// onEntry runs a confined operation on path's final component as named
// (never followed): the checks every operation makes, then act at the
// place the kernel will resolve beneath the root.
func (r Roots) onEntry(ctx context.Context, op, path string, act func(place, string) error) error {
	if err := checkPath(op, path, "", path); err != nil {
		return err
	}
	if err := checkCancel(ctx, op, path, ""); err != nil {
		return err
	}
	if err := Confine(r, path); err != nil {
		return err
	}
	p, ok := locate(r, path, reachEntry)
	if !ok {
		return escapes(path)
	}
	return act(p, path)
}

// sep is the path separator as a string.
const sep = string(filepath.Separator)

// place is where a confined operation acts: on name in the directory dir,
// which the kernel resolves beneath anchor when the operation runs. anchor
// is absolute and was resolved when the operation was located: a root, or
// a root's parent when the path names the root itself. dir is relative to
// anchor and is not cleaned, so a ".." in it is applied by the kernel after
// whatever precedes it, as for the unconfined path. An empty name means dir
// itself.
type place struct {
	anchor, dir, name string
	// mustDir is set when the path ended in a separator, which the kernel
	// reads as "resolve the link and require a directory": the link is
	// resolved already, so what remains is to require the directory
	// (rather than pass the separator on, which would follow a link
	// swapped in since).
	mustDir bool
}

// target is dir and name as one path relative to anchor.
func (p place) target() string { return joinRaw(p.dir, p.name) }

// reach says how much of a path an operation resolves.
type reach uint8

const (
	// reachEntry acts on the final component as named, never following
	// it, even when it is ".", ".." or ends in a separator (rename,
	// remove: the kernel refuses those or never follows them).
	reachEntry reach = iota
	// reachResolved is reachEntry, except that a final ".", ".." or
	// trailing separator names the directory it resolves to (stat, chmod).
	reachResolved
	// reachFollow resolves the whole path, final symlink included
	// (readdir).
	reachFollow
)

// locate finds where an operation on path acts, from the tree as it is now.
// It only computes names: the check that the place stays inside its anchor
// is the kernel's, when the operation opens it. false means no root
// contains the place, which after a passed Confine means the tree changed
// in between; the caller refuses the path.
func locate(roots []string, path string, how reach) (place, bool) {
	rs := resolveRoots(roots)
	parent, last := splitLast(path)
	mustDir := how == reachResolved && strings.HasSuffix(last, sep)
	if how == reachFollow || (how == reachResolved && !plainName(last)) {
		if c, err := resolve(path, true); err == nil {
			root, rel, ok := under(rs, c)
			switch {
			case !ok:
				return place{}, false
			case how == reachFollow:
				return place{anchor: root, dir: rel}, true
			case rel == ".":
				return place{anchor: root, dir: ".", name: "."}, true
			}
			return place{anchor: root, dir: filepath.Dir(rel), name: filepath.Base(rel), mustDir: mustDir}, true
		}
		// The path does not resolve, so the operation will fail where the
		// kernel stops; act on the final component as named, without
		// letting a trailing separator follow a link created meanwhile.
		if how == reachResolved {
			if last = strings.TrimRight(last, sep); last == "" {
				last = "."
			}
		}
	}
	dirAbs, rest := resolvePrefix(parent)
	if root, rel, ok := under(rs, dirAbs); ok {
		return place{anchor: root, dir: joinRaw(rel, rest), name: last, mustDir: mustDir}, true
	}
	if rest == "" {
		named := filepath.Join(dirAbs, last)
		for _, r := range rs {
			if r == named {
				return place{anchor: dirAbs, dir: ".", name: last, mustDir: mustDir}, true
			}
		}
	}
	return place{}, false
}

// splitLast splits path before its final component, which keeps any
// trailing separators; parent is "." for a single relative component.
func splitLast(path string) (parent, last string) {
	t := strings.TrimRight(path, sep)
	if t == "" {
		return sep, "."
	}
	i := strings.LastIndexByte(t, filepath.Separator)
	switch {
	case i < 0:
		return ".", path
	case i == 0:
		return sep, path[1:]
	}
	return t[:i], path[i+1:]
}

// plainName reports whether a final component names an entry of its
// directory, rather than "." or ".." or, with a trailing separator, what a
// link there resolves to.
func plainName(last string) bool {
	return last != "." && last != ".." && !strings.HasSuffix(last, sep)
}

// resolvePrefix resolves the deepest ancestor of p that resolves, and
// returns it with the rest of p appended uncleaned.
func resolvePrefix(p string) (string, string) {
	cur, rest := p, ""
	for {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			a, err := filepath.Abs(r)
			if err != nil {
				return "", ""
			}
			return a, rest
		}
		i := strings.LastIndexByte(strings.TrimRight(cur, sep), filepath.Separator)
		switch {
		case i < 0:
			a, err := filepath.Abs(".")
			if err != nil {
				return "", ""
			}
			return a, joinRaw(cur, rest)
		case i == 0:
			return sep, joinRaw(cur[1:], rest)
		}
		cur, rest = cur[:i], joinRaw(cur[i+1:], rest)
	}
}

// under finds the root holding the clean absolute path p, and p relative
// to it.
func under(roots []string, p string) (root, rel string, ok bool) {
	for _, r := range roots {
		if within(r, p) {
			rel, err := filepath.Rel(r, p)
			if err == nil {
				return r, rel, true
			}
		}
	}
	return "", "", false
}

// joinRaw joins two relative paths without cleaning either.
func joinRaw(a, b string) string {
	switch {
	case b == "":
		return a
	case a == "" || a == ".":
		return b
	}
	return a + sep + b
}
