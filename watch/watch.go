package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/pmacs-go/pmacs-go/walk"
)

// Op is what happened to a path.
type Op uint8

// The operations. A rename reports the old path as Rename and the new one as Create.
const (
	Create Op = iota + 1
	Write
	Remove
	Rename
	Chmod
)

var opNames = [...]string{Create: "create", Write: "write", Remove: "remove", Rename: "rename", Chmod: "chmod"}

// String returns the operation's name as the Lua API spells it ("create"); "" for none.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Event is one change, or a notice about the watch itself.
type Event struct {
	Path string // absolute
	Op   Op     // zero for a notice
	Dir  bool   // the path is (or was) a directory
	// Notice, when not empty, makes the event a message about the watch rather than a
	// change: the watch limit was reached and some directories are polled, or changes were
	// dropped (a consumer that keeps a listing should list Path afresh).
	Notice string
}

// Defaults of Options.
const (
	// DefaultLatency is a frame at 60 Hz: a storm arrives as a batch per frame.
	DefaultLatency = 16 * time.Millisecond
	// DefaultMaxPending bounds the paths waiting for the consumer: a few MiB.
	DefaultMaxPending = 64 << 10
	// DefaultPollEvery is how often the directories that could not be watched are polled.
	DefaultPollEvery = time.Second
)

// Options configures a watch. The zero value watches what walk.List with zero options lists.
type Options struct {
	Hidden   bool     // watch hidden directories and report hidden files (walk.Options.Hidden)
	NoIgnore bool     // do not honour the ignore files (walk.Options.NoIgnore)
	SkipDirs []string // directory names never watched, at any depth
	// Latency is how long a change waits for others to join its batch; 0 means
	// DefaultLatency.
	Latency time.Duration
	// MaxPending bounds the distinct paths waiting for emit; 0 means DefaultMaxPending.
	MaxPending int
	// PollEvery is how often the directories the kernel would not watch are polled; 0
	// means DefaultPollEvery.
	PollEvery time.Duration
	// Ready, if set, is called once on Watch's goroutine when the tree has been scanned
	// and every directory in it is watched or polled: changes made after it are reported.
	Ready func(Stats)
	// Counts, if set, is kept up to date with the directories followed, so another
	// goroutine can say what a running watch costs.
	Counts *Counts
}

// Counts is Stats kept up to date while a watch runs; read it from any goroutine.
type Counts struct {
	Watched, Polled atomic.Int64
}

// count adds to the followed directories' counts.
func (w *watcher) count(watched, polled int) {
	w.watched += watched
	w.polled += polled
	if c := w.opts.Counts; c != nil {
		c.Watched.Add(int64(watched))
		c.Polled.Add(int64(polled))
	}
}

// Stats counts the directories a watch follows.
type Stats struct {
	Watched int // by a kernel watch
	Polled  int // by polling, for want of a watch
}

// maxMoved bounds watcher.moved: past it the oldest reports are forgotten, at worst
// reporting a moved directory twice.
const maxMoved = 1024

// addWatch adds a kernel watch; tests swap it to pretend the watch limit is reached.
var addWatch = func(w *fsnotify.Watcher, path string) error { return w.Add(path) }

// dirState is one directory the watch follows.
type dirState struct {
	filter *walk.Filter
	polled bool
	// For a polled directory: its modification time and entries (name -> is a directory)
	// when last read.
	mtime time.Time
	names map[string]bool
}

// watcher is the state of one Watch call; only its collector goroutine touches it, but
// for pending, which the emitting goroutine takes under mu.
type watcher struct {
	ctx      context.Context
	root     string
	opts     Options
	fsn      *fsnotify.Watcher
	dirs     map[string]*dirState
	watched  int
	polled   int
	limitHit bool
	// moved holds the directories dropped because they were renamed, whose own
	// watch's report of the move may still come.
	moved map[string]struct{}

	mu       sync.Mutex
	pending  map[string]int // path -> index in events
	events   []Event
	overflow bool
	ready    chan struct{} // a token when pending should be handed over
	timer    *time.Timer
	armed    bool
}

// Watch reports the changes under root to emit, in batches, until ctx ends (it then returns
// an error matching ctx.Err()) or emit returns an error (Watch returns it). It fails at once
// if root is not a directory or the kernel watcher cannot be made. See the package doc for
// what is watched, how changes are coalesced and what happens at the watch limit.
func Watch(ctx context.Context, root string, opts Options, emit func([]Event) error) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("watch: %w", &fs.PathError{Op: "watch", Path: abs, Err: syscall.ENOTDIR})
	}
	if opts.Latency <= 0 {
		opts.Latency = DefaultLatency
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = DefaultMaxPending
	}
	if opts.PollEvery <= 0 {
		opts.PollEvery = DefaultPollEvery
	}
	// The buffer absorbs a burst while the collector scans a new directory.
	fsn, err := fsnotify.NewBufferedWatcher(4096)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	// The collector's scans poll cctx, so that emit's error stops a scan of a large tree too.
	w := &watcher{ctx: cctx, root: abs, opts: opts, fsn: fsn, dirs: map[string]*dirState{},
		pending: map[string]int{}, ready: make(chan struct{}, 1), moved: map[string]struct{}{}}
	w.timer = time.AfterFunc(time.Hour, w.signal)
	w.timer.Stop()

	var wg sync.WaitGroup
	wg.Go(func() { w.collect(cctx) })
	defer func() {
		cancel()
		wg.Wait()
		w.timer.Stop()
		fsn.Close()
	}()
	for {
		select {
		case <-cctx.Done():
			return fmt.Errorf("watch: watch of %q: %w", abs, ctx.Err())
		case <-w.ready:
		}
		if batch := w.take(); len(batch) > 0 {
			if err := emit(batch); err != nil {
				return err
			}
		}
	}
}

func (w *watcher) signal() {
	select {
	case w.ready <- struct{}{}:
	default:
	}
}

// take hands the pending set over.
func (w *watcher) take() []Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	batch := w.events
	w.events, w.overflow, w.armed = nil, false, false
	clear(w.pending)
	return batch
}

// note adds a change to the pending set, replacing the path's earlier change.
func (w *watcher) note(ev Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.overflow {
		return
	}
	if i, ok := w.pending[ev.Path]; ok && ev.Notice == "" {
		w.events[i] = ev
		return
	}
	if len(w.events) >= w.opts.MaxPending {
		w.overflow = true
		clear(w.pending)
		w.events = append(w.events[:0], Event{Path: w.root, Dir: true,
			Notice: fmt.Sprintf("more than %d changes waited: list %s afresh", w.opts.MaxPending, w.root)})
		w.arm()
		if notedHook != nil {
			notedHook(len(w.events), true)
		}
		return
	}
	if ev.Notice == "" {
		w.pending[ev.Path] = len(w.events)
	}
	w.events = append(w.events, ev)
	w.arm()
	if notedHook != nil {
		notedHook(len(w.events), w.overflow)
	}
}

// notedHook, when set by a test, is called under the pending set's lock after each change
// is noted, with the set's size and whether it overflowed.
var notedHook func(pending int, overflow bool)

// arm starts the latency timer for the first change of a batch.
func (w *watcher) arm() {
	if !w.armed {
		w.armed = true
		w.timer.Reset(w.opts.Latency)
	}
}

// collect scans the tree, then follows the kernel's events and polls, until ctx ends.
func (w *watcher) collect(ctx context.Context) {
	w.addTree(walk.NewFilter(w.root, w.walkOptions()), false)
	if w.opts.Ready != nil {
		w.opts.Ready(Stats{Watched: w.watched, Polled: w.polled})
	}
	var pollC <-chan time.Time
	poll := time.NewTicker(w.opts.PollEvery)
	defer poll.Stop()
	for {
		if w.polled > 0 {
			pollC = poll.C
		} else {
			pollC = nil
		}
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fsn.Events:
			if !ok {
				return
			}
			w.handle(ev)
		case err, ok := <-w.fsn.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.note(Event{Path: w.root, Dir: true,
					Notice: "the kernel's event queue overflowed: list " + w.root + " afresh"})
				w.resync(w.root)
			}
		case <-pollC:
			w.poll()
		}
	}
}

func (w *watcher) walkOptions() walk.Options {
	return walk.Options{Hidden: w.opts.Hidden, NoIgnore: w.opts.NoIgnore, SkipDirs: w.opts.SkipDirs}
}

// addTree follows the directory of f and every directory below it that the filters keep.
// With report, what it finds is noted as created: it appeared before its watch did.
func (w *watcher) addTree(f *walk.Filter, report bool) {
	stack := []*walk.Filter{f}
	for len(stack) > 0 {
		if w.ctx.Err() != nil {
			return
		}
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		path := f.Path()
		if _, ok := w.dirs[path]; ok {
			continue
		}
		d := &dirState{filter: f}
		if err := addWatch(w.fsn, path); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				continue // gone already, or unreadable: nothing to follow
			}
			if !w.limitHit {
				w.limitHit = true
				w.note(Event{Path: path, Dir: true, Notice: fmt.Sprintf(
					"the kernel's watch limit is reached (fs.inotify.max_user_watches) at %s: directories not watched are polled every %s",
					path, w.opts.PollEvery)})
			}
			d.polled = true
		}
		var mtime time.Time
		if d.polled {
			fi, err := os.Lstat(path)
			if err != nil {
				continue
			}
			mtime = fi.ModTime()
		}
		ents, err := os.ReadDir(path)
		if err != nil && len(ents) == 0 {
			if !d.polled {
				w.fsn.Remove(path)
			}
			continue
		}
		w.dirs[path] = d
		if d.polled {
			d.mtime, d.names = mtime, make(map[string]bool, len(ents))
			w.count(0, 1)
		} else {
			w.count(1, 0)
		}
		for _, e := range ents {
			isDir := e.IsDir()
			if f.Skip(e.Name(), isDir) {
				continue
			}
			if d.polled {
				d.names[e.Name()] = isDir
			}
			if report {
				w.note(Event{Path: path + "/" + e.Name(), Op: Create, Dir: isDir})
			}
			if isDir {
				stack = append(stack, f.Child(e.Name()))
			}
		}
	}
}

// dropTree stops following path and every directory below it.
func (w *watcher) dropTree(path string) {
	prefix := path + "/"
	for p, d := range w.dirs {
		if p == path || strings.HasPrefix(p, prefix) {
			w.dropDir(p, d)
		}
	}
}

func (w *watcher) dropDir(p string, d *dirState) {
	if d.polled {
		w.count(0, -1)
	} else {
		w.count(-1, 0)
		// The kernel drops the watch of a removed directory itself; of a renamed one it
		// does not, and the watcher's path for it is stale.
		w.fsn.Remove(p)
	}
	delete(w.dirs, p)
}

// handle turns one kernel event into a change, following directories as they come and go.
func (w *watcher) handle(ev fsnotify.Event) {
	path := filepath.Clean(ev.Name)
	var op Op
	switch {
	case ev.Has(fsnotify.Remove):
		op = Remove
	case ev.Has(fsnotify.Rename):
		op = Rename
	case ev.Has(fsnotify.Create):
		op = Create
	case ev.Has(fsnotify.Write):
		op = Write
	case ev.Has(fsnotify.Chmod):
		op = Chmod
	default:
		return
	}
	if path == w.root {
		if op == Remove || op == Rename {
			w.dropTree(path)
		}
		w.note(Event{Path: path, Op: op, Dir: true})
		return
	}
	parent, name := filepath.Dir(path), filepath.Base(path)
	pd := w.dirs[parent]
	if pd == nil {
		return // an event of a directory no longer followed
	}
	w.change(pd, parent, name, op)
}

// change notes a change of the entry name of the followed directory parent.
func (w *watcher) change(pd *dirState, parent, name string, op Op) {
	if name == ".gitignore" || name == ".ignore" || name == ".git" {
		// Hidden, so usually not reported, but it changes what is followed.
		defer w.resync(parent)
	}
	path := parent + "/" + name
	known := w.dirs[path] != nil
	switch op {
	case Remove, Rename:
		if !known {
			if _, ok := w.moved[path]; ok {
				// The kernel's report of the moved directory's own watch, after the
				// parent's: already told, as a directory.
				delete(w.moved, path)
				return
			}
			if pd.filter.Skip(name, false) || pd.filter.Skip(name, true) {
				return
			}
		}
		if known {
			w.dropTree(path)
			if op == Rename {
				if len(w.moved) >= maxMoved {
					clear(w.moved)
				}
				w.moved[path] = struct{}{}
			}
		}
		if pd.names != nil {
			delete(pd.names, name)
		}
		w.note(Event{Path: path, Op: op, Dir: known})
	default:
		delete(w.moved, path)
		isDir := known
		if !known {
			fi, err := os.Lstat(path)
			if err != nil {
				return // gone again: its Remove follows
			}
			isDir = fi.IsDir()
		}
		if pd.filter.Skip(name, isDir) {
			return
		}
		if pd.names != nil {
			pd.names[name] = isDir
		}
		w.note(Event{Path: path, Op: op, Dir: isDir})
		if isDir && !known && op == Create {
			w.addTree(pd.filter.Child(name), true)
		}
	}
}

// resync makes the directories followed under dir agree with its ignore files again: one
// changed, so trees may have become ignored (dropped) or not (followed, without reporting
// their content as created: it was there before).
func (w *watcher) resync(dir string) {
	var f *walk.Filter
	if dir == w.root {
		f = walk.NewFilter(w.root, w.walkOptions())
	} else if pd := w.dirs[filepath.Dir(dir)]; pd != nil {
		f = pd.filter.Child(filepath.Base(dir))
	} else {
		return
	}
	keep := map[string]*walk.Filter{}
	stack := []*walk.Filter{f}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		keep[f.Path()] = f
		ents, _ := os.ReadDir(f.Path())
		for _, e := range ents {
			if e.IsDir() && !f.Skip(e.Name(), true) {
				stack = append(stack, f.Child(e.Name()))
			}
		}
	}
	prefix := dir + "/"
	for p, d := range w.dirs {
		if p != dir && !strings.HasPrefix(p, prefix) {
			continue
		}
		if nf, ok := keep[p]; ok {
			d.filter = nf
		} else {
			w.dropDir(p, d)
		}
	}
	for p, f := range keep {
		if _, ok := w.dirs[p]; !ok {
			w.addTree(f, false)
		}
	}
}

// poll compares the polled directories' modification times with the last ones and notes
// what appeared and went in those that changed.
func (w *watcher) poll() {
	var changed []string
	for p, d := range w.dirs {
		if !d.polled {
			continue
		}
		if fi, err := os.Lstat(p); err != nil || !fi.ModTime().Equal(d.mtime) {
			changed = append(changed, p)
		}
	}
	for _, p := range changed {
		d := w.dirs[p]
		if d == nil {
			continue // dropped with a directory above it
		}
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() {
			// Its parent reports it gone: the kernel if the parent is watched, the
			// parent's own listing if it is polled.
			w.dropTree(p)
			continue
		}
		d.mtime = fi.ModTime()
		ents, err := os.ReadDir(p)
		if err != nil {
			continue
		}
		seen := make(map[string]bool, len(ents))
		for _, e := range ents {
			name, isDir := e.Name(), e.IsDir()
			if d.filter.Skip(name, isDir) {
				continue
			}
			seen[name] = true
			if was, ok := d.names[name]; !ok || was != isDir {
				if ok {
					w.change(d, p, name, Remove)
				}
				w.change(d, p, name, Create)
			}
		}
		for name := range d.names {
			if !seen[name] {
				w.change(d, p, name, Remove)
			}
		}
	}
}
