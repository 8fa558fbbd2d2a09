package walk

import (
	"os"
	"path/filepath"
)

// Filter is the walk's verdict on the entries of one directory, for a caller that follows a
// tree entry by entry rather than listing it (a watcher told that a name appeared): Skip
// leaves out exactly what Walk with the same Options would leave out there, by the ignore
// files, the hidden rule and Options.SkipDirs. A Filter does not change once made; it may be
// used from any goroutine. It reads the ignore files when it is made, so after one of them
// changes a new Filter must be made to see it.
type Filter struct {
	path, rel string
	ign       *ignoreLevel
	opts      *Options
	skipDirs  map[string]struct{}
}

// NewFilter returns the filter of root itself: the ignore files of root's ancestors and of
// root apply, as when Walk starts at root.
func NewFilter(root string, opts Options) *Filter {
	root = filepath.Clean(root)
	f := &Filter{path: root, opts: &opts}
	if len(opts.SkipDirs) > 0 {
		f.skipDirs = make(map[string]struct{}, len(opts.SkipDirs))
		for _, d := range opts.SkipDirs {
			f.skipDirs[d] = struct{}{}
		}
	}
	if !opts.NoIgnore {
		f.ign = f.level(ancestorLevels(root), 0)
	}
	return f
}

// level reads the ignore files of the filter's own directory, as readDir does.
func (f *Filter) level(parent *ignoreLevel, strip int) *ignoreLevel {
	regular := func(name string) bool {
		fi, err := os.Lstat(filepath.Join(f.path, name))
		return err == nil && fi.Mode().IsRegular()
	}
	return newLevel(parent, f.path, regular(".ignore"), regular(".gitignore"), exists(filepath.Join(f.path, ".git")), strip, "")
}

// Path is the directory the filter decides for.
func (f *Filter) Path() string { return f.path }

// Rel is the directory's path relative to the root, '/'-separated; "" for the root.
func (f *Filter) Rel() string { return f.rel }

// Skip reports whether a walk leaves out the entry name of the filter's directory.
func (f *Filter) Skip(name string, isDir bool) bool {
	if name == "" {
		return true
	}
	if isDir && f.skipDirs != nil {
		if _, skip := f.skipDirs[name]; skip {
			return true
		}
	}
	rel := name
	if f.rel != "" {
		rel = f.rel + "/" + name
	}
	switch f.ign.match(rel, isDir) {
	case ignoreIgnored:
		return true
	case ignoreWhitelist:
		return false
	}
	return !f.opts.Hidden && name[0] == '.'
}

// Child returns the filter of the subdirectory name, reading its ignore files. It does not
// check that name is not skipped.
func (f *Filter) Child(name string) *Filter {
	c := &Filter{path: f.path + "/" + name, rel: name, opts: f.opts, skipDirs: f.skipDirs}
	if f.rel != "" {
		c.rel = f.rel + "/" + name
	}
	c.ign = f.ign
	if !f.opts.NoIgnore {
		c.ign = c.level(f.ign, len(c.rel)+1)
	}
	return c
}
