package fsops

import (
	"path/filepath"
	"strings"
)

// Confine reports whether path lies inside one of roots, as the kernel would
// resolve it now: symlinks in path's parent directories are resolved (so is
// "..", after the link it follows, as the kernel does), and the result is made
// absolute. The final component is not followed, because Stat, Rename, Chmod
// and Remove do not follow it either: a symlink inside a root can be
// inspected, renamed or removed whatever it points at. A path equal to a root
// is inside it. Roots are resolved the same way (fully) before comparing.
//
// An escape returns a *PathError (op "confine") wrapping ErrEscapesRoot; no
// roots at all confines everything out. When path's parent cannot be resolved
// (a component is missing, not a directory or not searchable) the operation
// would fail on its own, so the path is judged by its deepest ancestor that
// does resolve with the missing components appended: inside lets the
// operation report its own error, outside is an escape, so the answer never
// reveals what exists outside the roots.
//
// Confine touches nothing and holds nothing open. It is a check, not a
// capability: a parent directory replaced by a symlink between Confine and
// an unconfined operation is followed by the operation. Roots' methods run
// this check and then act beneath the root, which closes that window; use
// them rather than Confine followed by an operation.
//
// ReadDir follows its final symlink, so confine a listing with ConfineFollow.
func Confine(roots []string, path string) error {
	return confine(roots, path, false)
}

// ConfineFollow is Confine for operations that follow the final component,
// such as ReadDir: the whole path is resolved, so a symlink inside a root
// that points outside is an escape.
func ConfineFollow(roots []string, path string) error {
	return confine(roots, path, true)
}

func confine(roots []string, path string, followFinal bool) error {
	const op = "confine"
	if err := checkPath(op, path, "", path); err != nil {
		return err
	}
	resolved, err := resolve(path, followFinal)
	if err != nil {
		// The kernel cannot resolve it either, so the operation would fail
		// on its own; judge by the deepest ancestor that does resolve.
		resolved, err = resolveExisting(path)
		if err != nil {
			return escapes(path)
		}
	}
	for _, r := range resolveRoots(roots) {
		if within(r, resolved) {
			return nil
		}
	}
	return escapes(path)
}

// escapes is the refusal of a path outside every root.
func escapes(path string) error {
	return &PathError{Op: "confine", Path: path, Err: ErrEscapesRoot}
}

// resolveRoots resolves each root fully and makes it absolute; a root that
// does not resolve is kept as given (nothing inside it exists either).
func resolveRoots(roots []string) []string {
	out := make([]string, 0, len(roots))
	for _, root := range roots {
		if root == "" {
			continue
		}
		r, err := filepath.EvalSymlinks(root)
		if err != nil {
			r = root
		}
		if r, err = filepath.Abs(r); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// resolve makes path absolute with symlinks resolved in every component but
// the last (or in every component, with followFinal). A final ".", ".." or a
// trailing separator makes the kernel resolve the whole path, so it is
// resolved whole here too.
func resolve(path string, followFinal bool) (string, error) {
	parent, base := filepath.Split(path)
	var out string
	if followFinal || base == "" || base == "." || base == ".." {
		r, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", err
		}
		out = r
	} else {
		if parent == "" {
			parent = "."
		}
		r, err := filepath.EvalSymlinks(parent)
		if err != nil {
			return "", err
		}
		out = filepath.Join(r, base)
	}
	return filepath.Abs(out)
}

// resolveExisting resolves the deepest ancestor of path that resolves and
// appends the rest lexically. It splits without cleaning, so a ".." is never
// applied before the symlink it follows has been resolved.
func resolveExisting(path string) (string, error) {
	cur, rest := path, ""
	for {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Abs(filepath.Join(r, rest))
		}
		i := strings.LastIndexByte(strings.TrimRight(cur, string(filepath.Separator)), filepath.Separator)
		switch {
		case i < 0:
			// A relative path with no resolvable prefix starts at ".".
			return filepath.Abs(filepath.Join(".", cur, rest))
		case i == 0:
			return filepath.Abs(filepath.Join(cur, rest))
		}
		cur, rest = cur[:i], filepath.Join(cur[i+1:], rest)
	}
}

// within is a lexical test on two clean absolute paths.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
