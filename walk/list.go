package walk

import (
	"context"
	"sync"
	"time"
)

// chunkSize is how many entries (files plus directories) a fanout goroutine gathers before
// handing them to List's emit: small enough that the first results show within milliseconds
// of the start, large enough that emit's lock is taken rarely.
const chunkSize = 512

// Chunk is a part of a listing, handed to List's emit while the walk runs. The callee owns
// its slices.
type Chunk struct {
	Files []string  // root-relative, '/'-separated paths of regular files
	Dirs  []DirInfo // directories read, each exactly once in the whole listing
}

// DirInfo describes one directory a listing read, so that a cache of the listing can stat
// the directories later and walk again only below those whose ModTime changed.
type DirInfo struct {
	Rel     string    // relative to the root, '/'-separated; "" for the root
	ModTime time.Time // when it was read; zero when Err is set
	Err     error     // why it could not be read (an *fs.PathError); nothing below it is listed
}

// List walks the tree under root like Walk and hands every file and every directory it
// reached to emit, in chunks, while the walk runs. emit is called from the walk's
// goroutines (the last chunks from List's caller once the walk is over), never two calls at
// once; an error it returns stops the walk and List returns
// it. List returns once every goroutine it started has returned, with Walk's errors: a bad
// root, or one matching ctx.Err() if ctx ended first (after which emit is not called again).
// Files come in no particular order.
func List(ctx context.Context, root string, opts Options, emit func(Chunk) error) error {
	fanout := opts.Fanout
	if fanout <= 0 {
		fanout = defaultFanout()
	}
	opts.Fanout = fanout
	l := &lister{ctx: ctx, emit: emit, chunks: make([]Chunk, fanout)}
	err := Walk(ctx, root, opts, l.visit)
	if err != nil {
		return err
	}
	for _, c := range l.chunks {
		if len(c.Files) > 0 || len(c.Dirs) > 0 {
			if err := emit(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// lister gathers a chunk per fanout goroutine.
type lister struct {
	ctx    context.Context
	mu     sync.Mutex // serialises emit
	emit   func(Chunk) error
	failed error // emit's first error, under mu
	chunks []Chunk
}

func (l *lister) visit(worker int, d *Dir, names []string) error {
	c := &l.chunks[worker]
	if names == nil {
		c.Dirs = append(c.Dirs, DirInfo{Rel: d.rel, ModTime: d.ModTime(), Err: d.err})
	}
	for _, name := range names {
		c.Files = append(c.Files, d.Join(name))
	}
	if len(c.Files)+len(c.Dirs) < chunkSize {
		return nil
	}
	full := *c
	*c = Chunk{Files: make([]string, 0, chunkSize)}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ctx.Err() != nil {
		return nil // the walk ends at its next check and reports the context's error
	}
	if l.failed != nil {
		// Another goroutine's emit already failed: the walk is stopping,
		// and emit is not called again after an error.
		return l.failed
	}
	l.failed = l.emit(full)
	return l.failed
}
