// Package watchjob is the watch kind: a long-lived stream of the changes
// under a root (package watch), for an editor that must know when the disk
// changes under it. Its items are change batches (Changes), each change a
// path, an operation and whether it is a directory, or a notice about the
// watch itself (the kernel's watch limit reached and some directories
// polled, changes dropped and the tree to be listed afresh).
//
// The job is detached: it waits on the kernel for as long as it lives, so it
// holds no worker slot and no actor gate. The watch's goroutines gather and
// coalesce changes into one bounded set while the stream waits for credit;
// the main goroutine sees only batches, at most one per stream per frame.
// Cancelling the job (or closing the runtime) closes the kernel watcher and
// ends every goroutine it started.
package watchjob

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/bus/wire"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/watch"
)

// Kind is the watch kind. Its progress counts the directories followed,
// once the first scan is over: a consumer that shows the first progress
// knows that changes from then on are reported.
var Kind runtime.Kind

// The spec refers to Kind (through observe's state), so it is registered
// at init.
func init() {
	Kind = runtime.RegisterKind(runtime.KindSpec{Name: "watch", Items: changesCodec{},
		ProgressLabel: "directories watched", Observe: observe, Discard: discard})
}

// following is the runtime's record of its running watches, so that what
// they see reaches the other kinds' states (runtime.NoteTree): the finder
// then keeps its file list of a watched root from the changes instead of
// polling directory mtimes. Main goroutine only.
type following struct {
	jobs map[runtime.JobID]*followed
}

type followed struct {
	note        runtime.TreeNote // Job, Root and the filter
	ready, lost bool
}

func followingOf(rt *runtime.Runtime) *following {
	return runtime.StateOf(rt, Kind, func() *following { return &following{jobs: map[runtime.JobID]*followed{}} })
}

// observe tells the other kinds' states when a watch's first scan is
// over (its first progress), what changed, and when it lost track (a
// notice: changes dropped, or directories polled, where writes go unseen).
func observe(rt *runtime.Runtime, id runtime.JobID, items runtime.Items, progress uint64) {
	f := followingOf(rt).jobs[id]
	if f == nil || f.lost {
		return
	}
	if !f.ready && progress > 0 {
		f.ready = true
		n := f.note
		n.Event = runtime.TreeFollowed
		rt.NoteTree(n)
	}
	c, _ := items.(Changes)
	if !f.ready || len(c) == 0 {
		return
	}
	out := make([]runtime.TreeChange, 0, len(c))
	lost := false
	for i := range c {
		ev := &c[i]
		if ev.Notice != "" {
			lost = true
			break
		}
		out = append(out, runtime.TreeChange{Path: ev.Path, Dir: ev.Dir,
			Gone:    ev.Op == watch.Remove || ev.Op == watch.Rename,
			Written: ev.Op == watch.Write || ev.Op == watch.Chmod})
	}
	if len(out) > 0 {
		n := f.note
		n.Event, n.Changes = runtime.TreeChanged, out
		rt.NoteTree(n)
	}
	if lost {
		f.lost = true
		n := f.note
		n.Event = runtime.TreeLost
		rt.NoteTree(n)
	}
}

// discard tells them when a watch has ended.
func discard(rt *runtime.Runtime, id runtime.JobID) {
	fs := followingOf(rt)
	f := fs.jobs[id]
	if f == nil {
		return
	}
	delete(fs.jobs, id)
	if f.ready && !f.lost {
		n := f.note
		n.Event = runtime.TreeUnfollowed
		rt.NoteTree(n)
	}
}

// DefaultSkipDirs are the directory names a Spec with nil SkipDirs does not
// watch: dependency trees, large and changed by tools, not by hand.
var DefaultSkipDirs = []string{"node_modules"}

// Spec is a watch request.
type Spec struct {
	Root     string
	Hidden   bool     // watch hidden directories too (walk.Options.Hidden)
	NoIgnore bool     // do not honour the ignore files
	SkipDirs []string // nil means DefaultSkipDirs; an empty slice skips none
}

// Dispatch starts a watch of spec.Root. The stream never completes by
// itself: it ends when cancelled (Cancelled), or fails if the root is not a
// directory or the kernel watcher cannot be made.
func Dispatch(rt *runtime.Runtime, spec Spec, o runtime.DispatchOptions) runtime.JobID {
	root, err := filepath.Abs(spec.Root)
	if err == nil && spec.Root == "" {
		err = errors.New("empty root")
	}
	if err != nil {
		err = fmt.Errorf("watch: root %q: %w", spec.Root, err)
		return rt.Start(runtime.Job{Kind: Kind, Stream: true, Detached: true,
			Run: func(context.Context, *runtime.Task) (any, error) {
				return nil, &runtime.JobError{Message: err.Error(), Code: "EINVAL", Err: err}
			}}, o)
	}
	skip := DefaultSkipDirs
	if spec.SkipDirs != nil {
		skip = spec.SkipDirs
	}
	opts := watch.Options{Hidden: spec.Hidden, NoIgnore: spec.NoIgnore, SkipDirs: slices.Clone(skip)}
	id := rt.Start(runtime.Job{Kind: Kind, Stream: true, Detached: true,
		Run: func(ctx context.Context, w *runtime.Task) (any, error) {
			opts.Ready = func(s watch.Stats) { w.Progress(uint64(s.Watched+s.Polled), nil) }
			return nil, watch.Watch(ctx, root, opts, func(evs []watch.Event) error {
				for len(evs) > sendChunk {
					if err := w.Send(ctx, Changes(evs[:sendChunk:sendChunk])); err != nil {
						return err
					}
					evs = evs[sendChunk:]
				}
				return w.Send(ctx, Changes(evs))
			})
		}}, o)
	if _, state, ok := rt.Lookup(id); ok && state == runtime.Running {
		followingOf(rt).jobs[id] = &followed{note: runtime.TreeNote{Job: id, Root: root,
			Hidden: spec.Hidden, NoIgnore: spec.NoIgnore, SkipDirs: slices.Clone(skip)}}
	}
	return id
}

// sendChunk bounds the changes one reply carries across the bus: the main
// goroutine decodes a reply in one piece, and a storm's coalesced set (a
// checkout: thousands of paths) would otherwise cost a frame several
// milliseconds before any batch size applies. A frame's tick stops between
// replies when its budget is spent.
const sendChunk = 256

// Changes is a batch of a watch stream's changes.
type Changes []watch.Event

// ChangesOf returns a batch's changes; nil for a batch of none.
func ChangesOf(b runtime.StreamBatch) Changes {
	c, _ := b.Items.(Changes)
	return c
}

func (c Changes) Len() int                                { return len(c) }
func (c Changes) Weight() int                             { return len(c) }
func (c Changes) Append(more runtime.Items) runtime.Items { return append(c, more.(Changes)...) }
func (c Changes) Cut(n int) (head, rest runtime.Items)    { return c[:n:n], c[n:] }

// changesCodec carries a batch as an array of [path, op, dir, notice].
type changesCodec struct{}

// minChangeBytes is the smallest encoded change: a fixarray header, an
// empty string, a fixint, a bool and an empty string.
const minChangeBytes = 5

func (changesCodec) EncodeItems(e *msgpack.Encoder, items runtime.Items) error {
	c := items.(Changes)
	if err := e.EncodeArrayLen(len(c)); err != nil {
		return err
	}
	for i := range c {
		ev := &c[i]
		if err := e.EncodeArrayLen(4); err != nil {
			return err
		}
		if err := e.EncodeString(ev.Path); err != nil {
			return err
		}
		if err := e.EncodeUint8(uint8(ev.Op)); err != nil {
			return err
		}
		if err := e.EncodeBool(ev.Dir); err != nil {
			return err
		}
		if err := e.EncodeString(ev.Notice); err != nil {
			return err
		}
	}
	return nil
}

func (changesCodec) DecodeItems(_ []byte, d *msgpack.Decoder) (runtime.Items, error) {
	n, err := wire.DecodeLen(d, minChangeBytes)
	if err != nil {
		return nil, fmt.Errorf("watch changes: %w", err)
	}
	out := make(Changes, n)
	for i := range out {
		if m, err := d.DecodeArrayLen(); err != nil || m != 4 {
			return nil, fmt.Errorf("watch change %d: want an array of 4 (%d): %v", i, m, err)
		}
		ev := &out[i]
		if ev.Path, err = d.DecodeString(); err != nil {
			return nil, err
		}
		op, err := d.DecodeUint8()
		if err != nil {
			return nil, err
		}
		if op > uint8(watch.Chmod) {
			return nil, fmt.Errorf("watch change %d: unknown op %d", i, op)
		}
		ev.Op = watch.Op(op)
		if ev.Dir, err = d.DecodeBool(); err != nil {
			return nil, err
		}
		if ev.Notice, err = d.DecodeString(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
