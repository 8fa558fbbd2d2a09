package grep

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/pmacs-go/pmacs-go/walk"
)

// DefaultSkipDirs holds the directory names skipped when Spec.SkipDirs is nil: build outputs
// and dependency caches that are large and rarely what a search is after.
var DefaultSkipDirs = []string{"node_modules", "target", "build", "dist", "__pycache__"}

// Defaults for the zero values of Spec's limits.
const (
	DefaultMaxFileBytes = 16 << 20
	DefaultMaxMatchText = 4096
)

// Spec describes one search. The zero value of every field but Root and Pattern is usable.
type Spec struct {
	Root         string
	Pattern      string
	Regex        bool     // RE2 syntax (regexp package); literal otherwise
	IgnoreCase   bool     // zero value = case-sensitive; Unicode simple case folding in both modes
	Hidden       bool     // search hidden files and directories (ripgrep's --hidden)
	NoIgnore     bool     // do not honour .ignore / .gitignore / .git/info/exclude (ripgrep's --no-ignore)
	SkipDirs     []string // nil = DefaultSkipDirs; a non-nil empty slice = skip none
	MaxResults   int      // 0 (or negative) = unlimited
	MaxFileBytes int64    // 0 (or negative) = DefaultMaxFileBytes
	MaxMatchText int      // 0 (or negative) = DefaultMaxMatchText
	Fanout       int      // 0 (or negative) = runtime.NumCPU()
	// ReuseBatch lets the search reuse the slice it passes to emit once emit has returned,
	// for a callee that copies the matches it keeps (their texts and spans stay the
	// callee's): a search with many matches then allocates a third less.
	ReuseBatch bool
	// Background searches on threads of lower CPU priority (walk.Options.Background), so a
	// search running beside an editor's loop does not take the core the loop needs.
	Background bool
	// Progress, if set, is incremented as each file's content is searched,
	// so another goroutine can show how far a running search has got.
	Progress *atomic.Int64
	// Skipped, if set, counts what the search leaves out as it goes, so
	// another goroutine can say what a running search did not look at.
	Skipped *Skipped
}

// Skipped counts what a search left out, by reason: the walk's reasons
// (ignored, hidden, SkipDirs, unreadable directories, symlinks and other
// non-files) and the files the walk listed but the search did not search.
// Its fields may be read from any goroutine while the search runs.
type Skipped struct {
	walk.Skipped
	BinaryFiles     atomic.Int64 // a NUL byte in the first 8 KiB
	OversizeFiles   atomic.Int64 // larger than MaxFileBytes
	UnreadableFiles atomic.Int64 // could not be opened or read
}

// SkipCounts is a copy of a Skipped's counts at one moment.
type SkipCounts struct {
	walk.SkipCounts
	BinaryFiles, OversizeFiles, UnreadableFiles int64
}

// Load returns the counts as they are now.
func (s *Skipped) Load() SkipCounts {
	return SkipCounts{
		SkipCounts:  s.Skipped.Load(),
		BinaryFiles: s.BinaryFiles.Load(), OversizeFiles: s.OversizeFiles.Load(), UnreadableFiles: s.UnreadableFiles.Load(),
	}
}

// Total is the number of entries skipped, whatever the reason.
func (c SkipCounts) Total() int64 {
	w := c.SkipCounts
	return w.IgnoredFiles + w.IgnoredDirs + w.HiddenFiles + w.HiddenDirs + w.NamedDirs + w.UnreadableDirs + w.Other +
		c.BinaryFiles + c.OversizeFiles + c.UnreadableFiles
}

// Match is one matching line.
type Match struct {
	File       string      // relative to Root, '/'-separated
	Line       uint32      // 1-based
	Text       string      // the line, trailing CR stripped, cut to MaxMatchText at a UTF-8 boundary
	MatchStart uint32      // first span start (byte offset in Text)
	MatchEnd   uint32      // first span end (exclusive)
	Spans      [][2]uint32 // every occurrence in the line that ends within Text, in order
}

// Stats summarises a search, including a stopped one.
type Stats struct {
	FilesSearched int64 // files whose content was searched
	FilesMatched  int64 // files with at least one emitted match
	Matches       int64 // emitted matches (lines)
	FilesSkipped  int64 // files skipped as binary, oversize or unreadable
	BytesSearched int64 // bytes of the searched files
	// Skipped is what the search left out, by reason; its three file counts
	// add up to FilesSkipped.
	Skipped SkipCounts
}

func (s *Stats) add(o Stats) {
	s.FilesSearched += o.FilesSearched
	s.FilesMatched += o.FilesMatched
	s.Matches += o.Matches
	s.FilesSkipped += o.FilesSkipped
	s.BytesSearched += o.BytesSearched
}

// Sentinels for errors.Is: every error Validate returns wraps one of them.
var (
	ErrBadRoot    = errors.New("grep: bad search root")
	ErrBadPattern = errors.New("grep: bad search pattern")
)

// Validate reports bad input without searching: a root that is empty, missing or not a
// directory (ErrBadRoot), an invalid regular expression or a pattern holding a NUL byte
// (ErrBadPattern). Search returns the same errors.
func Validate(spec Spec) error {
	_, err := prepare(spec)
	return err
}

// plan is a validated Spec with its defaults applied.
type plan struct {
	spec     Spec
	matcher  *matcher // nil for the empty pattern
	skipDirs []string // never nil: the walk's nil means none
	fanout   int
}

func prepare(spec Spec) (*plan, error) {
	if spec.Root == "" {
		return nil, fmt.Errorf("%w: root is empty", ErrBadRoot)
	}
	fi, err := os.Stat(spec.Root)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrBadRoot, spec.Root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%w %q: not a directory", ErrBadRoot, spec.Root)
	}
	if strings.IndexByte(spec.Pattern, 0) >= 0 {
		return nil, fmt.Errorf("%w %q: holds a NUL byte", ErrBadPattern, spec.Pattern)
	}
	p := &plan{spec: spec, fanout: spec.Fanout}
	if spec.Pattern != "" {
		m, err := compileMatcher(spec.Pattern, spec.Regex, spec.IgnoreCase)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %w", ErrBadPattern, spec.Pattern, err)
		}
		p.matcher = m
	}
	if p.fanout <= 0 {
		p.fanout = runtime.NumCPU()
	}
	if p.spec.MaxFileBytes <= 0 {
		p.spec.MaxFileBytes = DefaultMaxFileBytes
	}
	if p.spec.MaxMatchText <= 0 {
		p.spec.MaxMatchText = DefaultMaxMatchText
	}
	if p.spec.MaxResults < 0 {
		p.spec.MaxResults = 0
	}
	p.skipDirs = spec.SkipDirs
	if p.skipDirs == nil {
		p.skipDirs = DefaultSkipDirs
	}
	return p, nil
}
