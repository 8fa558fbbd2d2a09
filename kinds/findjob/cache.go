// A root's file list: the cache a find_files job brings up to date
// (re-listing what changed) and ranks, holding its lock.

package findjob

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
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/walk"
)

type cacheKey struct {
	root             string
	hidden, noIgnore bool
}

// fileCache is one root's file list. The runtime (main goroutine) only
// creates it and posts resource ops to its inbox; everything else belongs to
// the one job holding lock.
type fileCache struct {
	key     cacheKey
	lastUse uint64 // main goroutine only

	inboxMu sync.Mutex
	inbox   []runtime.ResourceOp // absolute paths, posted by Tick
	// changed are the paths a watch of the root reported, posted by Tick.
	changed []runtime.TreeChange
	// overflow: more than maxFindInbox ops or changes were posted, and
	// dropped.
	overflow bool
	// followers are the watches following the root that the cache relies
	// on (runtime.TreeNote), with the directory names each leaves out;
	// followGen counts their comings and goings.
	followers map[runtime.JobID][]string
	followGen uint64

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
	// syncedGen is the followGen of the last full comparison of mtimes:
	// once a watch follows the root, one comparison catches what changed
	// before it did, and its changes tell the rest.
	syncedGen uint64
}

// fileCache returns the cache for k, making it (and evicting the least
// recently used one beyond the cap) on the main goroutine.
func (f *finderState) fileCache(k cacheKey) *fileCache {
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
		for _, n := range f.trees {
			c.follow(n)
		}
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

// NoteTree keeps the caches of a watched root current from the watch's
// changes (runtime.TreeNote): the changed paths go to the inbox like the
// fs jobs' renames and removes, and while a watch follows a cache's root
// (from its first scan until it ends or loses track) the cache stops
// polling its directories' mtimes, but for the directories the watch
// leaves out. Called by Tick on the main goroutine; it only appends under
// the inbox's short lock.
func (f *finderState) NoteTree(n runtime.TreeNote) {
	switch n.Event {
	case runtime.TreeFollowed:
		if f.trees == nil {
			f.trees = make(map[runtime.JobID]runtime.TreeNote)
		}
		f.trees[n.Job] = n
		for _, c := range f.caches {
			c.follow(n)
		}
	case runtime.TreeChanged:
		for _, c := range f.caches {
			c.inboxMu.Lock()
			if _, ok := c.followers[n.Job]; ok {
				if len(c.changed)+len(n.Changes) > maxFindInbox {
					c.changed, c.overflow = nil, true
				}
				if !c.overflow {
					c.changed = append(c.changed, n.Changes...)
				}
			}
			c.inboxMu.Unlock()
		}
	case runtime.TreeLost, runtime.TreeUnfollowed:
		delete(f.trees, n.Job)
		for _, c := range f.caches {
			c.inboxMu.Lock()
			if _, ok := c.followers[n.Job]; ok {
				delete(c.followers, n.Job)
				c.followGen++
				if n.Event == runtime.TreeLost {
					// What the watch dropped is unknown: list afresh.
					c.inbox, c.changed, c.overflow = nil, nil, true
				}
			}
			c.inboxMu.Unlock()
		}
	}
}

// follow makes c rely on the watch n reports, when it follows c's root
// and reports all c lists.
func (c *fileCache) follow(n runtime.TreeNote) {
	if n.Root != c.key.root || (c.key.hidden && !n.Hidden) || (c.key.noIgnore && !n.NoIgnore) {
		return
	}
	c.inboxMu.Lock()
	defer c.inboxMu.Unlock()
	if c.followers == nil {
		c.followers = make(map[runtime.JobID][]string)
	}
	c.followers[n.Job] = n.SkipDirs
	c.followGen++
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
func lockCache(ctx context.Context, w *runtime.Task, lock chan struct{}) error {
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
	w.Park(wait)
	if !got {
		return ctx.Err()
	}
	return nil
}

// find brings the cache up to date (walking, or re-listing what changed) and
// ranks it. It runs on a worker holding c.lock.
func (c *fileCache) find(ctx context.Context, w *runtime.Task, pat fuzzy.Pattern, limit int, key string) (*Ranking, error) {
	c.inboxMu.Lock()
	ops, changed, overflow := c.inbox, c.changed, c.overflow
	c.inbox, c.changed, c.overflow = nil, nil, false
	fw := followState{gen: c.followGen, on: len(c.followers) > 0}
	for _, skip := range c.followers {
		if fw.skip == nil {
			fw.skip = map[string]bool{}
		}
		for _, name := range skip {
			fw.skip[name] = true
		}
	}
	c.inboxMu.Unlock()
	if overflow && c.bg == nil {
		// Too many changes were reported to keep: list the root afresh.
		c.complete = false
	}
	if c.complete {
		if err := c.refresh(ctx, ops, changed, fw); err != nil {
			return nil, fmt.Errorf("find_files: %w", err)
		}
	}
	if !c.complete {
		if err := c.walkAll(ctx, w, pat, limit); err != nil {
			return nil, fmt.Errorf("find_files: %w", err)
		}
	}
	res, err := searchKeyed(ctx, c.store, &c.last, &c.uses, key, pat, limit, func(first *fuzzy.Result) error {
		r := toRanking(c.store, first, false)
		r.Candidates = min(firstSlice, r.Candidates)
		return w.Send(ctx, r)
	})
	if err != nil {
		return nil, err
	}
	r := toRanking(c.store, res, false)
	if err := w.Send(ctx, r); err != nil {
		return nil, err
	}
	return r, nil
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
//
// While a watch follows the root (fw.on), its changes name what to read
// again, and the mtimes are compared only once after it started following
// (for what changed before) and, every findStatEvery, for the directories
// it leaves out (fw.skip).
func (c *fileCache) refresh(ctx context.Context, ops []runtime.ResourceOp, changed []runtime.TreeChange, fw followState) error {
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
	for _, ch := range changed {
		if ch.Written && !ch.Dir {
			// A known file written leaves the list as it is.
			if rel, err := filepath.Rel(c.key.root, ch.Path); err == nil {
				if _, known := c.index[filepath.ToSlash(rel)]; known {
					continue
				}
			}
		}
		mark(ch.Path)
	}
	switch {
	case fw.on && fw.gen == c.syncedGen && len(ops) == 0:
		if len(fw.skip) > 0 && time.Since(c.checkedAt) >= findStatEvery {
			for _, d := range c.changedDirs(ctx, fw.skip) {
				dirty[d] = true
			}
			c.checkedAt = time.Now()
		}
	case len(ops) > 0 || fw.gen != c.syncedGen || time.Since(c.checkedAt) >= findStatEvery:
		for _, d := range c.changedDirs(ctx, nil) {
			dirty[d] = true
		}
		c.checkedAt = time.Now()
		c.syncedGen = fw.gen
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

// followState is what a query sees of the watches following its root.
type followState struct {
	on   bool
	gen  uint64
	skip map[string]bool // directory names a follower leaves out
}

// changedDirs stats every listed directory (only, with only non-nil, those
// below a directory so named) on a few goroutines (the calls wait on the
// kernel, not the CPU) and returns those whose mtime differs from the
// listing's or that are gone. All goroutines have returned when it does.
func (c *fileCache) changedDirs(ctx context.Context, only map[string]bool) []string {
	type dm struct {
		rel string
		mt  time.Time
	}
	all := make([]dm, 0, len(c.dirs))
	for d, mt := range c.dirs {
		if only != nil && !underSkipped(d, only) {
			continue
		}
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

// underSkipped reports whether the root-relative directory rel is, or lies
// below, a directory whose name is in skip.
func underSkipped(rel string, skip map[string]bool) bool {
	for rel != "" {
		name := rel
		i := strings.IndexByte(rel, '/')
		if i >= 0 {
			name, rel = rel[:i], rel[i+1:]
		} else {
			rel = ""
		}
		if skip[name] {
			return true
		}
	}
	return false
}
