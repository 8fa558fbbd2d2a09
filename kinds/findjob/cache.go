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
func (c *fileCache) refresh(ctx context.Context, ops []runtime.ResourceOp) error {
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
