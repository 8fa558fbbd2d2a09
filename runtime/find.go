package runtime

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pmacs-go/pmacs-go/fuzzy"
	"github.com/pmacs-go/pmacs-go/walk"
	"github.com/pmacs-go/pmacs-go/workers"
)

// DefaultFindLimit is the number of ranked matches a find_files or fuzzy job
// returns when its spec names none.
const DefaultFindLimit = 200

// MaxFindLimit caps a spec's Limit, so a snapshot stays a few frames' worth
// of work to build and convert.
const MaxFindLimit = 100_000

// findSnapshotEvery is how often a walking find_files sends a ranked snapshot:
// about twice a default frame, so results show while the walk runs without
// re-ranking the growing list after every chunk.
var findSnapshotEvery = 8 * time.Millisecond

// findStatEvery is how long a cache trusts its directories' mtimes after
// comparing them: a burst of keystrokes stats the tree once, not once per
// key (about 2 ms for GOROOT/src's 1,300 directories on two cores). A rename
// or remove through an fs job is applied at the next query regardless.
var findStatEvery = 250 * time.Millisecond

// maxFindCaches and maxFuzzySources bound what the finder keeps on the worker
// side; the least recently used entry goes first.
const (
	maxFindCaches   = 8
	maxFuzzySources = 64
	maxKeyResults   = 16 // previous results kept per cache or source, for refinement
	// maxFindInbox bounds the renames and removes a cache keeps for its
	// next query: past it they are dropped and the next query lists the
	// root afresh, so a cache no query uses does not grow with every
	// operation under its root.
	maxFindInbox = 1024
)

// A root's first walk outlives the job that started it (see bgWalk), and
// what it lists waits for the next query's job. walkPendingMax bounds the
// bytes of paths waiting so: past it the walk waits for a job to take them,
// and after walkIdleMax without one it gives up (errWalkAbandoned), its
// listing dropped; the next query walks afresh. Variables for tests.
var (
	walkPendingMax = 16 << 20
	walkIdleMax    = 30 * time.Second
)

// errWalkAbandoned ends a first walk that no job took from for
// walkIdleMax while it had walkPendingMax of paths waiting.
var errWalkAbandoned = errors.New("the walk waited for a query too long")

// FindSpec is a find_files request.
type FindSpec struct {
	Root     string // directory whose files are ranked
	Query    string // fuzzy's extended syntax; "" lists files in walk order
	Limit    int    // matches per snapshot and in the final ranking; 0 means DefaultFindLimit
	Hidden   bool   // list hidden files (walk.Options.Hidden)
	NoIgnore bool   // ignore .gitignore and friends (walk.Options.NoIgnore)
}

// FuzzySpec is a fuzzy request: Items, or Source for a list sent once with
// FuzzySource.
type FuzzySpec struct {
	Items  []string
	Source SourceID
	Query  string
	Limit  int // 0 means DefaultFindLimit
}

// SourceID names a list kept on the worker side by FuzzySource.
type SourceID uint64

// ErrUnknownSource fails a fuzzy job whose source was never made, was freed
// or was evicted to keep the table within its cap.
var ErrUnknownSource = errors.New("runtime: unknown fuzzy source")

// finderState is the runtime's side of the finder: the file caches by root
// and options, and the fuzzy sources. The maps are touched only on the main
// goroutine; what they point to is shared with workers under each entry's
// own lock.
type finderState struct {
	life       *walkLife
	caches     map[cacheKey]*fileCache
	cacheUse   uint64
	sources    map[SourceID]*fuzzySource
	nextSource SourceID
}

// walkLife bounds the first walks of roots, which outlive the job that
// started them (see fileCache.bg): Close stops them and waits for them.
type walkLife struct {
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// start runs fn on a goroutine of its own unless the runtime is closing.
func (l *walkLife) start(fn func(ctx context.Context)) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.wg.Go(func() { fn(l.ctx) })
	return true
}

// closeFinder stops the walks in flight and waits for them; called by Close.
func (rt *Runtime) closeFinder() {
	l := rt.finder.life
	if l == nil {
		return
	}
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.cancel()
	l.wg.Wait()
}

// bgWalk is a root's first listing. It runs on a goroutine of its own, not
// under the job that started it, so that a query superseded while the tree
// is still being listed (the user typing into a picker that just opened)
// stops at once without throwing the listing away: the next query's job
// takes the files listed so far and waits for the rest. The walk hands its
// chunks over under mu; only the job holding the cache's lock moves them
// into the store.
type bgWalk struct {
	mu    sync.Mutex
	files []string
	dirs  []walk.DirInfo
	// pending is the bytes of paths in files and dirs, and peak the most
	// there ever were (for tests).
	pending, peak int
	done          bool
	err           error
	wake          chan struct{} // to the job: a token after every chunk and at the end
	taken         chan struct{} // to the walk: a token when a job took what was pending
}

type cacheKey struct {
	root             string
	hidden, noIgnore bool
}

// refineEntry is the previous result under a supersede key, kept so that a
// query extending it searches only its matches.
type refineEntry struct {
	store  *fuzzy.Store
	result *fuzzy.Result
	use    uint64
}

// fileCache is one root's file list. The runtime (main goroutine) only
// creates it and posts resource ops to its inbox; everything else belongs to
// the one job holding lock.
type fileCache struct {
	key     cacheKey
	lastUse uint64 // main goroutine only

	inboxMu sync.Mutex
	inbox   []ResourceOp // absolute paths, posted by Tick
	// overflow: more than maxFindInbox ops were posted, and dropped.
	overflow bool

	life     *walkLife
	lock     chan struct{} // a one-slot semaphore a job can wait on and give up when cancelled
	complete bool          // a walk finished; otherwise the next job walks afresh
	bg       *bgWalk       // the first walk, while it runs
	walks    int           // first walks started, for tests
	store    *fuzzy.Store
	index    map[string]int       // live path -> store index
	dirs     map[string]time.Time // directory -> its mtime when listed
	last     map[string]*refineEntry
	uses     uint64
	// checkedAt is when the directories' mtimes were last compared.
	checkedAt time.Time
}

// fuzzySource is a list kept by FuzzySource; its store is built by the first
// job that needs it.
type fuzzySource struct {
	items   []string
	lastUse uint64 // main goroutine only

	lock  chan struct{}
	store *fuzzy.Store
	last  map[string]*refineEntry
	uses  uint64
}

// DispatchFindFiles ranks the files under spec.Root against spec.Query in the
// stream lane of the actor owning the root. The job's items are ranked
// snapshots (StreamBatch.Ranking), sent while a walk runs; it completes with
// the final Ranking as its value (also sent as the last snapshot). The list
// is cached per root and options: a later job re-lists only the directories
// whose modification time changed or that a rename or remove reported by Tick
// touched. Under a supersede key, a query that extends the previous one
// (fuzzy.Pattern.Narrows) ranks only the previous matches.
func (rt *Runtime) DispatchFindFiles(spec FindSpec, o DispatchOptions) JobID {
	j := rt.newJob(KindFindFiles, o.Key)
	rt.newStream(j, o.MaxBatch)
	root, err := filepath.Abs(spec.Root)
	if err != nil || spec.Root == "" {
		if err == nil {
			err = errors.New("empty root")
		}
		err = fmt.Errorf("find_files: root %q: %w", spec.Root, err)
		return rt.start(j, DefaultActor, workers.LaneStream, func(context.Context, *Task) reply {
			return reply{Kind: replyFailed, Msg: err.Error(), Code: "EINVAL", err: err}
		})
	}
	c := rt.fileCache(cacheKey{root: root, hidden: spec.Hidden, noIgnore: spec.NoIgnore})
	limit := findLimit(spec.Limit)
	pat := fuzzy.ParsePattern(spec.Query)
	key := o.Key
	return rt.start(j, rt.actorFor(root), workers.LaneStream, func(ctx context.Context, w *Task) reply {
		if err := lockCache(ctx, w, c.lock); err != nil {
			return terminal(ctx, err, "")
		}
		defer func() { <-c.lock }()
		r, err := c.find(ctx, w, pat, limit, key)
		if err != nil {
			return terminal(ctx, err, "")
		}
		return reply{Kind: replyRanking, Ranking: r}
	})
}

// FuzzySource keeps items on the worker side and returns the id a fuzzy job
// names them by, so that narrowing queries do not resend the list. The
// slice is copied. At most 64 sources are kept: making another evicts the
// least recently used one.
func (rt *Runtime) FuzzySource(items []string) SourceID {
	f := &rt.finder
	if f.sources == nil {
		f.sources = make(map[SourceID]*fuzzySource)
	}
	f.nextSource++
	f.cacheUse++
	f.sources[f.nextSource] = &fuzzySource{items: slices.Clone(items), lastUse: f.cacheUse, lock: make(chan struct{}, 1)}
	if len(f.sources) > maxFuzzySources {
		var old SourceID
		var oldUse uint64
		for id, s := range f.sources {
			if old == 0 || s.lastUse < oldUse {
				old, oldUse = id, s.lastUse
			}
		}
		delete(f.sources, old)
	}
	return f.nextSource
}

// FreeFuzzySource drops a source; it reports whether the id was known. A job
// already running on it finishes.
func (rt *Runtime) FreeFuzzySource(id SourceID) bool {
	_, ok := rt.finder.sources[id]
	delete(rt.finder.sources, id)
	return ok
}

// DispatchFuzzy ranks spec.Items, or the list kept under spec.Source, against
// spec.Query on a worker. It completes with a Ranking whose matches carry
// their item's index. A source job under a supersede key refines the
// previous result when the query extends it. An unknown source fails the
// job with ErrUnknownSource's message.
func (rt *Runtime) DispatchFuzzy(spec FuzzySpec, o DispatchOptions) JobID {
	j := rt.newJob(KindFuzzy, o.Key)
	limit := findLimit(spec.Limit)
	pat := fuzzy.ParsePattern(spec.Query)
	var src *fuzzySource
	if spec.Items == nil {
		src = rt.finder.sources[spec.Source]
		if src == nil {
			err := fmt.Errorf("%w %d", ErrUnknownSource, spec.Source)
			return rt.start(j, BuiltinActor, workers.LaneRead, func(context.Context, *Task) reply {
				return reply{Kind: replyFailed, Msg: err.Error(), Code: "ENOENT", err: err}
			})
		}
		rt.finder.cacheUse++
		src.lastUse = rt.finder.cacheUse
	} else {
		// Strings are immutable, so the clone shares their bytes.
		src = &fuzzySource{items: slices.Clone(spec.Items), lock: make(chan struct{}, 1)}
	}
	key := o.Key
	if spec.Items != nil {
		key = "" // a one-off list has no previous result
	}
	return rt.start(j, BuiltinActor, workers.LaneRead, func(ctx context.Context, w *Task) reply {
		if err := lockCache(ctx, w, src.lock); err != nil {
			return terminal(ctx, err, "")
		}
		defer func() { <-src.lock }()
		if src.store == nil {
			src.store = fuzzy.NewStore(src.items)
		}
		res, err := searchKeyed(ctx, src.store, &src.last, &src.uses, key, pat, limit)
		if err != nil {
			return terminal(ctx, err, "")
		}
		r := toRanking(src.store, res, true)
		return reply{Kind: replyRanking, Ranking: r}
	})
}

func findLimit(n int) int {
	if n <= 0 {
		return DefaultFindLimit
	}
	return min(n, MaxFindLimit)
}

// fileCache returns the cache for k, making it (and evicting the least
// recently used one beyond the cap) on the main goroutine.
func (rt *Runtime) fileCache(k cacheKey) *fileCache {
	f := &rt.finder
	if f.caches == nil {
		f.caches = make(map[cacheKey]*fileCache)
	}
	f.cacheUse++
	c := f.caches[k]
	if c == nil {
		if f.life == nil {
			ctx, cancel := context.WithCancel(context.Background())
			f.life = &walkLife{ctx: ctx, cancel: cancel}
		}
		c = &fileCache{key: k, lock: make(chan struct{}, 1), life: f.life}
		f.caches[k] = c
		if len(f.caches) > maxFindCaches {
			var old *fileCache
			for _, x := range f.caches {
				if x != c && (old == nil || x.lastUse < old.lastUse) {
					old = x
				}
			}
			delete(f.caches, old.key)
		}
	}
	c.lastUse = f.cacheUse
	return c
}

// noteResource posts a completed rename or remove to every cache whose root
// holds one of its paths. Called by Tick on the main goroutine; it only
// appends under the inbox's short lock, never waits for a job.
func (rt *Runtime) noteResource(op ResourceOp) {
	if len(rt.finder.caches) == 0 {
		return
	}
	abs := func(p string) string {
		if p == "" {
			return ""
		}
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return filepath.Clean(p)
	}
	op.From, op.To = abs(op.From), abs(op.To)
	for _, c := range rt.finder.caches {
		if under(c.key.root, op.From) || under(c.key.root, op.To) {
			c.inboxMu.Lock()
			if len(c.inbox) >= maxFindInbox {
				c.inbox, c.overflow = nil, true
			}
			if !c.overflow {
				c.inbox = append(c.inbox, op)
			}
			c.inboxMu.Unlock()
		}
	}
}

// under reports whether p is root or below it.
func under(root, p string) bool {
	if p == "" {
		return false
	}
	if p == root {
		return true
	}
	return strings.HasPrefix(p, root) && (strings.HasSuffix(root, string(filepath.Separator)) || p[len(root)] == filepath.Separator)
}

// lockCache takes a cache's lock, parking the job while another job holds
// it: that one may be waiting on the consumer too.
func lockCache(ctx context.Context, w *Task, lock chan struct{}) error {
	select {
	case lock <- struct{}{}:
		return nil
	default:
	}
	got := false
	wait := func() {
		select {
		case lock <- struct{}{}:
			got = true
		case <-ctx.Done():
		}
	}
	if w.actor != nil {
		w.actor.Park(wait)
	} else {
		wait()
	}
	if !got {
		return ctx.Err()
	}
	return nil
}

// find brings the cache up to date (walking, or re-listing what changed) and
// ranks it. It runs on a worker holding c.lock.
func (c *fileCache) find(ctx context.Context, w *Task, pat fuzzy.Pattern, limit int, key string) (*Ranking, error) {
	c.inboxMu.Lock()
	ops, overflow := c.inbox, c.overflow
	c.inbox, c.overflow = nil, false
	c.inboxMu.Unlock()
	if overflow && c.bg == nil {
		// Too many changes were reported to keep: list the root afresh.
		c.complete = false
	}
	if c.complete {
		if err := c.refresh(ctx, ops); err != nil {
			return nil, fmt.Errorf("find_files: %w", err)
		}
	}
	if !c.complete {
		if err := c.walkAll(ctx, w, pat, limit); err != nil {
			return nil, fmt.Errorf("find_files: %w", err)
		}
	}
	res, err := searchKeyed(ctx, c.store, &c.last, &c.uses, key, pat, limit)
	if err != nil {
		return nil, err
	}
	r := toRanking(c.store, res, false)
	if err := w.acquire(ctx, 1); err != nil {
		return nil, err
	}
	w.send(reply{Kind: replyRanked, Ranking: r})
	return r, nil
}

// walkAll lists the whole root, on a background walk (started here unless
// one is running already), moving its chunks into the store and sending a
// ranked snapshot about every findSnapshotEvery until it ends. Cancelling
// ctx stops this job within one chunk; the walk goes on for the next job.
func (c *fileCache) walkAll(ctx context.Context, w *Task, pat fuzzy.Pattern, limit int) error {
	if c.bg == nil {
		if err := c.startWalk(); err != nil {
			return err
		}
	}
	bg := c.bg
	var last time.Time
	var prev *fuzzy.Result
	for {
		bg.mu.Lock()
		files, dirs, done, werr := bg.files, bg.dirs, bg.done, bg.err
		bg.files, bg.dirs, bg.pending = nil, nil, 0
		bg.mu.Unlock()
		bg.tookAll()
		c.addChunk("", walk.Chunk{Files: files, Dirs: dirs})
		if done {
			c.bg = nil
			if errors.Is(werr, errWalkAbandoned) {
				// Given up while no job took its listing: walk afresh.
				if err := c.startWalk(); err != nil {
					return err
				}
				bg, last, prev = c.bg, time.Time{}, nil
				continue
			}
			if werr != nil {
				return werr
			}
			c.complete = true
			return nil
		}
		if len(files) > 0 && time.Since(last) >= findSnapshotEvery {
			// Refining with the same pattern scores the previous matches
			// and the files added since, not the whole list again.
			var res *fuzzy.Result
			var err error
			if prev != nil {
				res, err = prev.Refine(ctx, pat, fuzzy.Options{Limit: limit})
			} else {
				res, err = fuzzy.Search(ctx, c.store, pat, fuzzy.Options{Limit: limit})
			}
			if err != nil {
				return err
			}
			prev = res
			if err := w.acquire(ctx, 1); err != nil {
				return err
			}
			w.send(reply{Kind: replyRanked, Ranking: toRanking(c.store, res, false)})
			last = time.Now()
		}
		if err := waitWake(ctx, w, bg.wake); err != nil {
			return err
		}
	}
}

// startWalk empties the cache and starts the root's first walk.
func (c *fileCache) startWalk() error {
	c.store = &fuzzy.Store{}
	c.index = make(map[string]int)
	c.dirs = make(map[string]time.Time)
	c.last = nil
	c.checkedAt = time.Now()
	bg := &bgWalk{wake: make(chan struct{}, 1), taken: make(chan struct{}, 1)}
	root, opts := c.key.root, c.walkOptions()
	started := c.life.start(func(life context.Context) {
		err := listRecovered(life, root, opts, func(ch walk.Chunk) error {
			n := 0
			for _, f := range ch.Files {
				n += len(f)
			}
			for _, d := range ch.Dirs {
				n += len(d.Rel)
			}
			bg.mu.Lock()
			bg.files = append(bg.files, ch.Files...)
			bg.dirs = append(bg.dirs, ch.Dirs...)
			bg.pending += n
			bg.peak = max(bg.peak, bg.pending)
			full := bg.pending >= walkPendingMax
			bg.mu.Unlock()
			bg.signal()
			if full {
				return bg.waitTaken(life)
			}
			return nil
		})
		bg.mu.Lock()
		bg.done, bg.err = true, err
		if errors.Is(err, errWalkAbandoned) {
			bg.files, bg.dirs, bg.pending = nil, nil, 0
		}
		bg.mu.Unlock()
		bg.signal()
	})
	if !started {
		return errors.New("runtime is closed")
	}
	c.bg = bg
	c.walks++
	return nil
}

func (bg *bgWalk) signal() {
	select {
	case bg.wake <- struct{}{}:
	default:
	}
}

// tookAll tells a waiting walk that its listing was taken.
func (bg *bgWalk) tookAll() {
	select {
	case bg.taken <- struct{}{}:
	default:
	}
}

// waitTaken waits, on the walk's goroutine, until a job has taken what is
// pending, the runtime closes, or walkIdleMax has passed
// (errWalkAbandoned).
func (bg *bgWalk) waitTaken(life context.Context) error {
	idle := time.NewTimer(walkIdleMax)
	defer idle.Stop()
	for {
		bg.mu.Lock()
		full := bg.pending >= walkPendingMax
		bg.mu.Unlock()
		if !full {
			return nil
		}
		select {
		case <-bg.taken:
		case <-life.Done():
			return life.Err()
		case <-idle.C:
			return errWalkAbandoned
		}
	}
}

// waitWake waits, parked, for the walk's next chunk or the job's cancel.
func waitWake(ctx context.Context, w *Task, wake chan struct{}) error {
	select {
	case <-wake:
		return nil
	default:
	}
	w.actor.Park(func() {
		select {
		case <-wake:
		case <-ctx.Done():
		}
	})
	return ctx.Err()
}

// listRecovered is walk.List with a panic in the walk turned into an error:
// it runs on a goroutine of the runtime's own, where a panic would end the
// process.
func listRecovered(ctx context.Context, root string, opts walk.Options, emit func(walk.Chunk) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the walk panicked: %v", p)
		}
	}()
	return walk.List(ctx, root, opts, emit)
}

func (c *fileCache) walkOptions() walk.Options {
	return walk.Options{Hidden: c.key.hidden, NoIgnore: c.key.noIgnore}
}

// addChunk adds a listing of the directory prefix (root-relative, "" for the
// root) to the cache.
func (c *fileCache) addChunk(prefix string, ch walk.Chunk) {
	for _, f := range ch.Files {
		p := joinRel(prefix, f)
		if _, ok := c.index[p]; !ok {
			c.index[p] = c.store.Add(p)
		}
	}
	for _, d := range ch.Dirs {
		c.dirs[joinRel(prefix, d.Rel)] = d.ModTime
	}
}

func joinRel(prefix, rel string) string {
	switch {
	case prefix == "":
		return rel
	case rel == "":
		return prefix
	}
	return prefix + "/" + rel
}

// refresh brings a complete cache up to date: the directories a reported
// rename or remove touched, and those whose mtime differs from the listing's,
// are read again (see relist; a new directory is listed whole). On a
// 20,000-file tree a change at the root then costs about 3 ms against 42 ms
// for a walk (BenchmarkFindFilesRefresh). Stating every directory costs
// one system call each (2 to 4 ms for GOROOT/src's 1,300 directories on two
// loaded cores, against 23 ms for a walk), so it happens at most every
// findStatEvery.
func (c *fileCache) refresh(ctx context.Context, ops []ResourceOp) error {
	dirty := make(map[string]bool)
	mark := func(abs string) {
		rel, err := filepath.Rel(c.key.root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return
		}
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		// A removed or renamed path leaves the cache at once, with
		// everything below it; its parent is listed again for what
		// replaced it: the nearest one the listing knows, since one it
		// does not (hidden, ignored, or new) must be judged by the walk's
		// rules from above.
		c.removeTree(rel)
		if rel == "" {
			return
		}
		parent := rel
		for parent != "" {
			if i := strings.LastIndexByte(parent, '/'); i >= 0 {
				parent = parent[:i]
			} else {
				parent = ""
			}
			if _, known := c.dirs[parent]; known {
				break
			}
		}
		dirty[parent] = true
	}
	for _, op := range ops {
		mark(op.From)
		if op.To != "" {
			mark(op.To)
		}
	}
	if len(ops) > 0 || time.Since(c.checkedAt) >= findStatEvery {
		for _, d := range c.changedDirs(ctx) {
			dirty[d] = true
		}
		c.checkedAt = time.Now()
	}
	if len(dirty) == 0 {
		return ctx.Err()
	}
	if c.store.Len() > 2*c.store.Live()+1024 {
		// Mostly removed entries: list afresh rather than let the store
		// grow with every change.
		c.complete = false
		return nil
	}
	order := make([]string, 0, len(dirty))
	for d := range dirty {
		order = append(order, d)
	}
	slices.Sort(order)
	for _, d := range order {
		if err := c.relist(ctx, d); err != nil {
			c.complete = false // a partial listing: walk afresh next time
			return err
		}
	}
	return nil
}

// relist reads the directory d again: its files replace the ones cached
// for it, and a subdirectory the cache does not know (new, or renamed in) is
// listed with everything below it. Known subdirectories are not entered:
// each is compared by its own mtime. A directory that is gone leaves the
// cache with everything below it.
func (c *fileCache) relist(ctx context.Context, d string) error {
	prefix := d + "/"
	if d == "" {
		prefix = ""
	}
	for p, i := range c.index {
		if strings.HasPrefix(p, prefix) && !strings.Contains(p[len(prefix):], "/") {
			_ = c.store.Remove(i)
			delete(c.index, p)
		}
	}
	var mu sync.Mutex // visit runs on the walk's fanout goroutines
	err := walk.Walk(ctx, filepath.Join(c.key.root, filepath.FromSlash(d)), c.walkOptions(), func(_ int, dir *walk.Dir, names []string) error {
		rel := joinRel(d, dir.Rel())
		mu.Lock()
		defer mu.Unlock()
		if names == nil {
			if _, known := c.dirs[rel]; known && dir.Rel() != "" {
				return fs.SkipDir
			}
			c.dirs[rel] = dir.ModTime()
			return nil
		}
		for _, n := range names {
			p := joinRel(rel, n)
			if _, ok := c.index[p]; !ok {
				c.index[p] = c.store.Add(p)
			}
		}
		return nil
	})
	var pe *os.PathError
	if errors.As(err, &pe) && d != "" && ctx.Err() == nil {
		c.removeTree(d) // the directory is gone
		return nil
	}
	return err
}

// changedDirs stats every listed directory on a few goroutines (the calls
// wait on the kernel, not the CPU) and returns those whose mtime differs from
// the listing's or that are gone. All goroutines have returned when it does.
func (c *fileCache) changedDirs(ctx context.Context) []string {
	type dm struct {
		rel string
		mt  time.Time
	}
	all := make([]dm, 0, len(c.dirs))
	for d, mt := range c.dirs {
		all = append(all, dm{d, mt})
	}
	const parts = 4
	found := make([][]string, parts)
	var wg sync.WaitGroup
	for k := range parts {
		wg.Go(func() {
			for i := k; i < len(all); i += parts {
				if i%64 == k && ctx.Err() != nil {
					return
				}
				st, err := os.Stat(filepath.Join(c.key.root, filepath.FromSlash(all[i].rel)))
				if err != nil || !st.ModTime().Equal(all[i].mt) {
					found[k] = append(found[k], all[i].rel)
				}
			}
		})
	}
	wg.Wait()
	return slices.Concat(found...)
}

// removeTree drops rel (a file, or a directory with everything below it)
// from the cache.
func (c *fileCache) removeTree(rel string) {
	if i, ok := c.index[rel]; ok {
		_ = c.store.Remove(i)
		delete(c.index, rel)
	}
	prefix := rel + "/"
	if rel == "" {
		prefix = ""
	}
	for p, i := range c.index {
		if strings.HasPrefix(p, prefix) {
			_ = c.store.Remove(i)
			delete(c.index, p)
		}
	}
	for d := range c.dirs {
		if d == rel || strings.HasPrefix(d, prefix) {
			delete(c.dirs, d)
		}
	}
}

// searchKeyed ranks store against pat, refining the previous result under
// key when there is one for the same store.
func searchKeyed(ctx context.Context, store *fuzzy.Store, last *map[string]*refineEntry, uses *uint64, key string, pat fuzzy.Pattern, limit int) (*fuzzy.Result, error) {
	opt := fuzzy.Options{Limit: limit}
	var res *fuzzy.Result
	var err error
	if prev := (*last)[key]; key != "" && prev != nil && prev.store == store {
		res, err = prev.result.Refine(ctx, pat, opt)
	} else {
		res, err = fuzzy.Search(ctx, store, pat, opt)
	}
	if err != nil || key == "" {
		return res, err
	}
	if *last == nil {
		*last = make(map[string]*refineEntry)
	}
	*uses++
	(*last)[key] = &refineEntry{store: store, result: res, use: *uses}
	if len(*last) > maxKeyResults {
		oldKey, oldUse := "", ^uint64(0)
		for k, e := range *last {
			if e.use < oldUse {
				oldKey, oldUse = k, e.use
			}
		}
		delete(*last, oldKey)
	}
	return res, nil
}

func toRanking(store *fuzzy.Store, res *fuzzy.Result, withIndex bool) *Ranking {
	r := &Ranking{Total: res.Total, Candidates: store.Live(), Matches: make([]RankedMatch, len(res.Matches))}
	for i, m := range res.Matches {
		idx := -1
		if withIndex {
			idx = m.Index
		}
		r.Matches[i] = RankedMatch{Text: store.Item(m.Index), Index: idx, Score: m.Score, Positions: m.Positions}
	}
	return r
}
