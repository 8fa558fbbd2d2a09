package walk

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// ignoreResult is the verdict of the ignore files on one path.
type ignoreResult uint8

const (
	ignoreNone      ignoreResult = iota // no pattern matched: the hidden rule decides
	ignoreIgnored                       // a pattern excludes the path
	ignoreWhitelist                     // a negated pattern re-includes it, even if hidden
)

// gitignore is the compiled content of one ignore file. The last matching pattern wins.
type gitignore struct {
	patterns []ignorePattern
}

type ignorePattern struct {
	glob     glob // compiled from the text with its leading '/' and trailing '/' removed
	negate   bool // '!' prefix: re-include
	dirOnly  bool // trailing '/': directories only
	anchored bool // held a '/' other than a trailing one: matched against the whole path
}

// parseGitignore compiles ignore-file text with gitignore's rules: '#' comments, blank lines,
// unescaped trailing spaces dropped, '!' negation, '/' anchoring, trailing '/' for
// directories, '*', '?', '[...]', and '**' across directories.
func parseGitignore(data []byte) *gitignore {
	g := &gitignore{}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if p, ok := parseIgnoreLine(string(bytes.TrimSuffix(line, []byte("\r")))); ok {
			g.patterns = append(g.patterns, p)
		}
	}
	if len(g.patterns) == 0 {
		return nil
	}
	return g
}

func parseIgnoreLine(s string) (ignorePattern, bool) {
	if s == "" || s[0] == '#' || !utf8.ValidString(s) {
		return ignorePattern{}, false
	}
	// Trailing spaces go unless the last one is escaped.
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\\ ") {
		s = s[:len(s)-1]
	}
	if s == "" {
		return ignorePattern{}, false // a line of spaces is blank
	}
	var p ignorePattern
	if s[0] == '!' {
		p.negate = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		p.dirOnly = true
		s = strings.TrimRight(s, "/")
	}
	if strings.Contains(s, "/") {
		p.anchored = true
		s = strings.TrimPrefix(s, "/")
	}
	if s == "" {
		return ignorePattern{}, false
	}
	p.glob = compileGlob(s)
	return p, true
}

// match reports the verdict for rel (relative to the ignore file's directory, '/'-separated).
func (g *gitignore) match(rel string, isDir bool) ignoreResult {
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	for i := len(g.patterns) - 1; i >= 0; i-- {
		p := &g.patterns[i]
		if p.dirOnly && !isDir {
			continue
		}
		subject := base
		if p.anchored {
			subject = rel
		}
		if p.glob.match(subject) {
			if p.negate {
				return ignoreWhitelist
			}
			return ignoreIgnored
		}
	}
	return ignoreNone
}

// ignoreLevel is the ignore state of one directory that holds ignore files or a .git entry.
// Levels form a chain from the deepest directory up to the file system root; a directory
// without either shares its parent's level.
type ignoreLevel struct {
	parent   *ignoreLevel
	strip    int    // bytes of a root-relative path to drop: the level's own path plus '/'
	prepend  string // for levels above the root: the root's path relative to the level, plus '/'
	dot      *gitignore
	git      *gitignore
	exclude  *gitignore
	hasGit   bool // the directory holds a .git entry: a repository root
	inGitAny bool // this level or one above it is a repository root
}

func (l *ignoreLevel) rel(path string) string {
	if l.prepend != "" {
		return l.prepend + path
	}
	return path[l.strip:]
}

// match applies the chain to a root-relative path: .ignore files first, then .gitignore, then
// .git/info/exclude; within each kind the nearest directory wins. .gitignore and exclude only
// count inside a repository and never above its root.
func (l *ignoreLevel) match(path string, isDir bool) ignoreResult {
	if l == nil {
		return ignoreNone
	}
	for lv := l; lv != nil; lv = lv.parent {
		if lv.dot != nil {
			if r := lv.dot.match(lv.rel(path), isDir); r != ignoreNone {
				return r
			}
		}
	}
	if !l.inGitAny {
		return ignoreNone
	}
	for lv := l; lv != nil; lv = lv.parent {
		if lv.git != nil {
			if r := lv.git.match(lv.rel(path), isDir); r != ignoreNone {
				return r
			}
		}
		if lv.hasGit {
			break
		}
	}
	for lv := l; lv != nil; lv = lv.parent {
		if lv.exclude != nil {
			if r := lv.exclude.match(lv.rel(path), isDir); r != ignoreNone {
				return r
			}
		}
		if lv.hasGit {
			break
		}
	}
	return ignoreNone
}

// newLevel builds the level of directory dir if it holds ignore files or .git, else returns
// parent. strip and prepend position the level relative to the search root.
func newLevel(parent *ignoreLevel, dir string, hasDot, hasGitignore, hasGit bool, strip int, prepend string) *ignoreLevel {
	if !hasDot && !hasGitignore && !hasGit {
		return parent
	}
	l := &ignoreLevel{parent: parent, strip: strip, prepend: prepend, hasGit: hasGit}
	l.inGitAny = hasGit || (parent != nil && parent.inGitAny)
	if hasDot {
		l.dot = loadIgnoreFile(filepath.Join(dir, ".ignore"))
	}
	if hasGitignore {
		l.git = loadIgnoreFile(filepath.Join(dir, ".gitignore"))
	}
	if hasGit {
		l.exclude = loadIgnoreFile(filepath.Join(gitDir(dir), "info", "exclude"))
	}
	if l.dot == nil && l.git == nil && l.exclude == nil && !hasGit {
		return parent
	}
	return l
}

// gitDir resolves the repository directory of a work tree: .git itself, or for a linked work
// tree or submodule, the common directory its "gitdir:" file points to.
func gitDir(dir string) string {
	dotGit := filepath.Join(dir, ".git")
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return dotGit // a directory (or nothing usable)
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return dotGit
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	if common, err := os.ReadFile(filepath.Join(target, "commondir")); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(target, c)
		}
		return c
	}
	return target
}

func loadIgnoreFile(path string) *gitignore {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return parseGitignore(data)
}

// ancestorLevels builds the chain for the directories above root, from the file system root
// down, as ripgrep reads the ignore files of a search root's parents.
func ancestorLevels(root string) *ignoreLevel {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil
	}
	var dirs []string
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if abs == filepath.Dir(abs) {
		return nil // the root is the file system root: no ancestors
	}
	var chain *ignoreLevel
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		relRoot, err := filepath.Rel(d, abs)
		if err != nil {
			continue
		}
		hasDot := exists(filepath.Join(d, ".ignore"))
		hasGitignore := exists(filepath.Join(d, ".gitignore"))
		hasGit := exists(filepath.Join(d, ".git"))
		chain = newLevel(chain, d, hasDot, hasGitignore, hasGit, 0, filepath.ToSlash(relRoot)+"/")
	}
	return chain
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
