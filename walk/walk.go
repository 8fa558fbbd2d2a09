package walk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pmacs-go/pmacs-go/internal/dirent"
)

// fileBatch is how many files of one directory make one visit: small enough to balance the
// goroutines near the end of a walk whose visits do real work (grep reads every file), large
// enough to keep queue traffic negligible.
const fileBatch = 8

// direntBuf is each goroutine's getdents buffer: a few hundred names per call, which is also
// how often reading one huge directory polls for the end of the walk.
const direntBuf = 32 << 10

// Options configures a walk. The zero value lists the files that ripgrep's `rg --files`
// lists (with --no-ignore-global: git's core.excludesFile is not read): hidden entries and
// ignored paths left out, symlinks not followed.
type Options struct {
	Hidden   bool     // list hidden files and enter hidden directories (ripgrep's --hidden)
	NoIgnore bool     // do not honour .ignore, .gitignore and .git/info/exclude (ripgrep's --no-ignore)
	SkipDirs []string // directory names never entered, at any depth; nil skips none
	Fanout   int      // goroutines reading directories and visiting files; 0 (or negative) = runtime.NumCPU()
	// Background runs the walk's goroutines (and so the visits) on threads of their own at a
	// lower CPU priority, where the system has one per thread (Linux: nice +10): an editor's
	// loop on the same cores then wins a core when it needs one, instead of waiting behind a
	// search for the kernel's next turn. Each such thread ends with its goroutine.
	Background bool
	// Skipped, if set, counts what the walk leaves out as it goes, so another goroutine can
	// say what a running or finished walk did not list.
	Skipped *Skipped
}

// Skipped counts what a walk left out, by reason. The walk adds to it once per directory it
// reads, so it may be read from any goroutine while the walk runs; entries left out because
// a directory above them was are not counted.
type Skipped struct {
	IgnoredFiles, IgnoredDirs atomic.Int64 // matched by an ignore file
	HiddenFiles, HiddenDirs   atomic.Int64 // names starting with '.', without Options.Hidden
	NamedDirs                 atomic.Int64 // directories named in Options.SkipDirs
	UnreadableDirs            atomic.Int64 // directories that could not be read (Dir.Err)
	Other                     atomic.Int64 // symlinks, devices, fifos and sockets
}

// SkipCounts is a copy of a Skipped's counts at one moment.
type SkipCounts struct {
	IgnoredFiles, IgnoredDirs int64
	HiddenFiles, HiddenDirs   int64
	NamedDirs                 int64
	UnreadableDirs            int64
	Other                     int64
}

// Load returns the counts as they are now.
func (s *Skipped) Load() SkipCounts {
	return SkipCounts{
		IgnoredFiles: s.IgnoredFiles.Load(), IgnoredDirs: s.IgnoredDirs.Load(),
		HiddenFiles: s.HiddenFiles.Load(), HiddenDirs: s.HiddenDirs.Load(),
		NamedDirs: s.NamedDirs.Load(), UnreadableDirs: s.UnreadableDirs.Load(), Other: s.Other.Load(),
	}
}

// add adds one directory's counts.
func (s *Skipped) add(c *SkipCounts) {
	for _, f := range []struct {
		to *atomic.Int64
		n  int64
	}{
		{&s.IgnoredFiles, c.IgnoredFiles}, {&s.IgnoredDirs, c.IgnoredDirs},
		{&s.HiddenFiles, c.HiddenFiles}, {&s.HiddenDirs, c.HiddenDirs},
		{&s.NamedDirs, c.NamedDirs}, {&s.UnreadableDirs, c.UnreadableDirs}, {&s.Other, c.Other},
	} {
		if f.n != 0 {
			f.to.Add(f.n)
		}
	}
}

// Dir is a directory the walk reached. It does not change once a VisitFunc has seen it, so
// its methods may be called from any goroutine, during the walk and after it.
type Dir struct {
	path  string
	rel   string
	ign   *ignoreLevel
	mtime int64
	err   error
	// fd is the directory, held open from its reading until its last batch of files has been
	// visited (then -1), so that a visit can open the files relative to it (see Fd). refs
	// counts the batches not yet visited.
	fd   atomic.Int32
	refs atomic.Int32
}

// Path is the directory's path: the walk's root joined with Rel by '/'.
func (d *Dir) Path() string { return d.path }

// Rel is the directory's path relative to the walk's root, '/'-separated; "" for the root.
func (d *Dir) Rel() string { return d.rel }

// Join returns the root-relative, '/'-separated path of the entry name in d.
func (d *Dir) Join(name string) string {
	if d.rel == "" {
		return name
	}
	return d.rel + "/" + name
}

// ModTime is the directory's modification time when the walk read it, so that a cache of
// the listing can tell that an entry was since added, removed or renamed in it. It is the
// zero Time for a directory that could not be read.
func (d *Dir) ModTime() time.Time {
	if d.err != nil {
		return time.Time{}
	}
	return time.Unix(0, d.mtime)
}

// Fd is a descriptor of the directory open for reading, or -1 when the walk keeps none. It
// is only valid during a visit of this directory's files (names != nil): the walk closes it
// once the last batch has been visited. Opening a file relative to it (openat) spares the
// kernel the walk of every component of Path. The visit must not close it.
func (d *Dir) Fd() int { return int(d.fd.Load()) }

// Err reports why the directory could not be read (an *fs.PathError), or nil. An unreadable
// directory does not end the walk: it is visited once with this error and nothing below it
// is listed, as ripgrep warns and goes on.
func (d *Dir) Err() error { return d.err }

// VisitFunc receives what the walk finds, on the walk's fanout goroutines. worker, in
// [0, Fanout), names the calling goroutine: no two calls with the same worker run at once,
// so a visit may keep per-worker state (buffers) in a slice without locking.
//
// Each directory is visited once with names == nil, right after it was read (d.Err() says
// whether it could be), before anything below it; then its files are visited in batches of
// a few names (names of regular files in d, never empty). Batches of different directories
// and of one directory may be visited concurrently and in any order.
//
// Returning fs.SkipDir from the names == nil visit skips everything in that directory.
// Returning fs.SkipAll stops the walk and Walk returns nil; any other error stops the walk
// and Walk returns it.
type VisitFunc func(worker int, d *Dir, names []string) error

// Walk walks the tree under root on opts.Fanout goroutines, calling visit as described by
// VisitFunc, and returns once every goroutine it started has returned. It returns an error
// wrapping the *fs.PathError of a root that is missing or not a directory, the error a visit
// returned, or one matching ctx.Err() if ctx ended first. A panic in visit (or a
// runtime.Goexit) stops the walk and is repeated on the caller's goroutine once every fanout
// goroutine has returned.
func Walk(ctx context.Context, root string, opts Options, visit VisitFunc) error {
	fi, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("walk: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("walk: %w", &fs.PathError{Op: "walk", Path: root, Err: syscall.ENOTDIR})
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("walk: walk of %q: %w", root, err)
	}
	s := &walker{ctx: ctx, ctxDone: ctx.Done(), root: root, opts: opts, visit: visit}
	s.cond.L = &s.mu
	if len(opts.SkipDirs) > 0 {
		s.skipDirs = make(map[string]struct{}, len(opts.SkipDirs))
		for _, d := range opts.SkipDirs {
			s.skipDirs[d] = struct{}{}
		}
	}
	rootDir := newDir(filepath.Clean(root), "", nil)
	if !opts.NoIgnore {
		rootDir.ign = ancestorLevels(root)
	}
	s.tasks = append(s.tasks, task{dir: rootDir})
	s.pending = 1

	fanout := opts.Fanout
	if fanout <= 0 {
		fanout = defaultFanout()
	}
	var wg sync.WaitGroup
	for i := range fanout {
		wg.Go(func() {
			if opts.Background {
				background()
			}
			returned := false
			defer func() { s.guard(recover(), returned) }()
			w := &worker{s: s, id: i, buf: make([]byte, direntBuf)}
			w.run()
			returned = true
		})
	}
	wg.Wait()
	// A stopped walk leaves tasks queued: their directories are still held open.
	for _, t := range s.tasks {
		if t.files != nil {
			s.release(t.dir)
		}
	}
	s.tasks = nil
	// A goroutine that panicked or called runtime.Goexit (in visit) has stopped the others;
	// the caller now gets the same end as if visit had run on its own goroutine, where a
	// recover or an executor's panic isolation can handle it.
	switch s.abort {
	case abortPanic:
		panic(s.panicValue)
	case abortGoexit:
		runtime.Goexit()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == fs.SkipAll {
		return nil
	}
	return s.err
}

// task is a directory to read (files == nil) or a batch of its files to visit.
type task struct {
	dir   *Dir
	files []string
}

// walker is the state shared by the fanout goroutines of one Walk call.
type walker struct {
	ctx      context.Context
	ctxDone  <-chan struct{}
	root     string
	opts     Options
	skipDirs map[string]struct{}
	visit    VisitFunc

	stop atomic.Bool  // set on cancel or a visit's error: every loop polls it
	held atomic.Int32 // directories held open for their files' visits (Dir.Fd)

	mu         sync.Mutex
	cond       sync.Cond
	tasks      []task    // LIFO: depth first keeps the frontier small
	pending    int       // tasks queued or running
	err        error     // first error: a visit's or the context's
	abort      abortKind // how the first goroutine that did not return normally ended
	panicValue any       // what it panicked with, for abortPanic
}

// abortKind says how a fanout goroutine ended other than by returning.
type abortKind uint8

const (
	abortNone   abortKind = iota
	abortPanic            // it panicked: Walk panics with the same value
	abortGoexit           // visit called runtime.Goexit: so does Walk
)

// errAborted stops the other goroutines after a panic or Goexit; Walk never returns it.
var errAborted = errors.New("walk: a walk goroutine panicked or exited")

// guard runs deferred in every fanout goroutine with what recover returned and whether the
// goroutine's work returned. It records the first panic (or Goexit) and stops the walk.
func (s *walker) guard(v any, returned bool) {
	if returned {
		return
	}
	kind := abortPanic
	if v == nil { // since Go 1.21 a panic never recovers nil: this is runtime.Goexit
		kind = abortGoexit
	}
	s.mu.Lock()
	if s.abort == abortNone {
		s.abort, s.panicValue = kind, v
	}
	s.mu.Unlock()
	s.fail(errAborted)
}

// fail records the first error and stops every goroutine.
func (s *walker) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.stop.Store(true)
	s.cond.Broadcast()
	s.mu.Unlock()
}

// next blocks until a task is available, or returns false once the walk is over.
func (s *walker) next() (task, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.tasks) == 0 && s.pending > 0 && !s.stop.Load() {
		s.cond.Wait()
	}
	if s.stop.Load() || len(s.tasks) == 0 {
		return task{}, false
	}
	t := s.tasks[len(s.tasks)-1]
	s.tasks[len(s.tasks)-1] = task{}
	s.tasks = s.tasks[:len(s.tasks)-1]
	return t, true
}

// done retires one task and queues the tasks it produced.
func (s *walker) done(produced []task) {
	s.mu.Lock()
	s.tasks = append(s.tasks, produced...)
	s.pending += len(produced) - 1
	if s.pending == 0 || len(produced) > 1 {
		s.cond.Broadcast()
	} else if len(produced) == 1 {
		s.cond.Signal()
	}
	s.mu.Unlock()
}

// worker is one fanout goroutine with its reused buffers.
type worker struct {
	s        *walker
	id       int
	buf      []byte // getdents buffer
	entries  []dirent.Entry
	produced []task
}

// stopped polls for the end of the walk. The context is polled here, by the goroutines
// doing the work, rather than through a watcher goroutine, which could wait for a processor
// while every processor runs a busy visit.
func (w *worker) stopped() bool {
	if w.s.stop.Load() {
		return true
	}
	select {
	case <-w.s.ctxDone:
		w.s.fail(fmt.Errorf("walk: walk of %q: %w", w.s.root, w.s.ctx.Err()))
		return true
	default:
		return false
	}
}

func (w *worker) run() {
	for {
		t, ok := w.s.next()
		if !ok {
			return
		}
		w.produced = w.produced[:0]
		if t.files == nil {
			w.readDir(t.dir)
		} else {
			w.visitFiles(t)
		}
		w.s.done(w.produced)
		clear(w.produced)
	}
}

// visitFiles visits one batch of files and then releases its directory, even if the visit
// panics or exits.
func (w *worker) visitFiles(t task) {
	defer w.s.release(t.dir)
	if w.stopped() {
		return
	}
	if err := w.s.visit(w.id, t.dir, t.files); err != nil {
		w.s.fail(err)
	}
}

// maxHeldDirs bounds the directories a walk holds open at once. Depth first keeps the count
// near the depth of the tree; past the bound a directory is closed at once and its files are
// opened by path. A variable so that a test can lower it.
var maxHeldDirs int32 = 128

// hold keeps d's descriptor open for its batches of files, or closes it.
func (s *walker) hold(d *Dir, fd, batches int) {
	if fd < 0 {
		return
	}
	if batches == 0 || s.held.Add(1) > maxHeldDirs {
		if batches > 0 {
			s.held.Add(-1)
		}
		closeDir(fd)
		return
	}
	d.refs.Store(int32(batches))
	d.fd.Store(int32(fd))
}

// release retires one visited (or abandoned) batch of d's files; the last one closes d.
func (s *walker) release(d *Dir) {
	if d.refs.Add(-1) != 0 {
		return
	}
	if fd := int(d.fd.Swap(-1)); fd >= 0 {
		closeDir(fd)
		s.held.Add(-1)
	}
}

func newDir(path, rel string, ign *ignoreLevel) *Dir {
	d := &Dir{path: path, rel: rel, ign: ign}
	d.fd.Store(-1)
	return d
}

// readDir reads one directory, visits it, and queues its subdirectories and batches of its
// files.
func (w *worker) readDir(d *Dir) {
	var err error
	var fd int
	w.entries, fd, d.mtime, err = readDir(d.path, w.buf, w.entries[:0], w.stopped)
	batches := 0
	defer func() { w.s.hold(d, fd, batches) }()
	if w.stopped() {
		return
	}
	if err != nil {
		d.err = &fs.PathError{Op: "readdir", Path: d.path, Err: err}
		if sk := w.s.opts.Skipped; sk != nil {
			sk.UnreadableDirs.Add(1)
		}
		if err := w.s.visit(w.id, d, nil); err != nil && err != fs.SkipDir {
			w.s.fail(err)
		}
		return
	}
	s := w.s
	ign := d.ign
	if !s.opts.NoIgnore {
		var hasDot, hasGitignore, hasGit bool
		for _, e := range w.entries {
			switch e.Name {
			case ".ignore":
				hasDot = e.Type == dirent.File
			case ".gitignore":
				hasGitignore = e.Type == dirent.File
			case ".git":
				hasGit = true
			}
		}
		strip := 0
		if d.rel != "" {
			strip = len(d.rel) + 1
		}
		ign = newLevel(ign, d.path, hasDot, hasGitignore, hasGit, strip, "")
	}
	if err := s.visit(w.id, d, nil); err != nil {
		if err != fs.SkipDir {
			s.fail(err)
		}
		return
	}
	var batch []string
	var skipped SkipCounts
	for _, e := range w.entries {
		if e.Type != dirent.File && e.Type != dirent.Dir {
			skipped.Other++
			continue // symlinks are not followed; devices and the like are not listed
		}
		isDir := e.Type == dirent.Dir
		if isDir && s.skipDirs != nil {
			if _, skip := s.skipDirs[e.Name]; skip {
				skipped.NamedDirs++
				continue
			}
		}
		// A file's relative path is built only for ignore files to match: the visit
		// gets its name.
		var rel string
		verdict := ignoreNone
		if isDir || ign != nil {
			rel = d.Join(e.Name)
			verdict = ign.match(rel, isDir)
		}
		if verdict == ignoreIgnored {
			if isDir {
				skipped.IgnoredDirs++
			} else {
				skipped.IgnoredFiles++
			}
			continue
		}
		if verdict == ignoreNone && !s.opts.Hidden && e.Name[0] == '.' {
			if isDir {
				skipped.HiddenDirs++
			} else {
				skipped.HiddenFiles++
			}
			continue
		}
		if isDir {
			w.produced = append(w.produced, task{dir: newDir(d.path+"/"+e.Name, rel, ign)})
			continue
		}
		if batch == nil {
			batch = make([]string, 0, fileBatch)
		}
		batch = append(batch, e.Name)
		if len(batch) == fileBatch {
			w.produced = append(w.produced, task{dir: d, files: batch})
			batches++
			batch = nil
		}
	}
	if len(batch) > 0 {
		w.produced = append(w.produced, task{dir: d, files: batch})
		batches++
	}
	if s.opts.Skipped != nil {
		s.opts.Skipped.add(&skipped)
	}
}

func defaultFanout() int { return runtime.NumCPU() }
