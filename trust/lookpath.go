package trust

import (
	"os"
	"path/filepath"
	"strings"
)

// LookPath finds the program name (a bare name, without a slash) in the
// directories of pathList (PATH's syntax) as exec.LookPath does on Unix,
// with two differences: a relative entry ("", ".", "bin") is never
// searched, since it names a directory inside whatever folder the editor
// stands in (and os/exec refuses what it finds there anyway), and a
// directory for which skip reports true is passed over (skip may be nil).
//
// It returns the path found, the directory joined with name (symlinks not
// resolved, so the program sees the name it was called by), or "" and the
// first executable it passed over in a skipped or relative directory, so
// that the caller can say why name did not resolve ("" when there was
// none).
func LookPath(name, pathList string, skip func(dir string) bool) (found, skipped string) {
	if name == "" || strings.ContainsRune(name, filepath.Separator) {
		return "", ""
	}
	for _, dir := range filepath.SplitList(pathList) {
		p := filepath.Join(dir, name)
		if !filepath.IsAbs(dir) || (skip != nil && skip(dir)) {
			if skipped == "" && Executable(p) {
				skipped = p
			}
			continue
		}
		if Executable(p) {
			return p, ""
		}
	}
	return "", skipped
}

// Executable reports whether p leads (through symlinks) to a regular file
// with an execute bit, as LookPath requires of what it finds.
func Executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// Inside reports whether path is folder or lies beneath it, as written or
// once symlinks are resolved, against folder as given and against its real
// path: a program reached through a link into the folder is inside it, and
// so is one reached through a link to the folder. Relative paths are taken
// from the working directory; a path that does not exist is resolved as
// far as its parents exist.
func Inside(path, folder string) bool {
	p, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	f, err := filepath.Abs(folder)
	if err != nil {
		return false
	}
	folders := []string{f}
	if rf := realPath(f); rf != f {
		folders = append(folders, rf)
	}
	paths := []string{p}
	if rp := realPath(p); rp != p {
		paths = append(paths, rp)
	}
	for _, x := range paths {
		for _, d := range folders {
			if within(x, d) {
				return true
			}
		}
	}
	return false
}

// within reports whether the clean absolute path p is d or beneath it.
func within(p, d string) bool {
	rel, err := filepath.Rel(d, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// realPath resolves every symlink in the absolute path p; for a path that
// does not exist, the longest existing prefix is resolved and the rest
// kept.
func realPath(p string) string {
	rest := ""
	for dir := p; ; {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}
