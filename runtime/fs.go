package runtime

import (
	"context"
	"errors"
	"slices"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/workers"
)

// Filesystem jobs. Reads (read_dir, stat) run in the read lane of the actor
// that owns the path; mutations (rename, chmod, remove) in its mutating
// lane, so under one root they execute in dispatch order and a read
// dispatched after a mutation sees it. A rename runs on the actor of its
// source: its order against other jobs of the source's root is kept, but
// against jobs of the destination's root (when that is another root) it is
// not, because a job holds one actor's write gate, never two.
//
// A job is confined to roots (Options.ConfineFS for every job,
// DispatchOptions.Roots for one) or acts on any path. The per-job roots let
// one runtime serve a user, whose directory views and saves may go anywhere,
// and a peer acting for them, such as a language server's workspace edit,
// which must stay inside the workspace: ConfineFS would fence in the user
// too.
//
// A failure's Err is a *JobError that wraps fsops' *fs.PathError or
// *os.LinkError (errors.Is(err, fs.ErrNotExist) holds) and carries
// fsops.Errno's name ("ENOENT", "EEXIST", ...) as its Code.

// DispatchReadDir lists path (lstat entries sorted by name).
func (rt *Runtime) DispatchReadDir(path string, tol fsops.Tolerance, o DispatchOptions) JobID {
	j := rt.newJob(KindFSReadDir, o.Key)
	fsys := rt.fsys(o)
	return rt.start(j, rt.actorFor(path), workers.LaneRead, func(ctx context.Context, _ *Task) reply {
		l, err := fsys.ReadDir(ctx, path, tol)
		if err != nil {
			return fsFailure(ctx, err)
		}
		return reply{Kind: replyListing, Listing: &l}
	})
}

// DispatchStat describes path without following a final symlink.
func (rt *Runtime) DispatchStat(path string, o DispatchOptions) JobID {
	j := rt.newJob(KindFSStat, o.Key)
	fsys := rt.fsys(o)
	return rt.start(j, rt.actorFor(path), workers.LaneRead, func(ctx context.Context, _ *Task) reply {
		e, err := fsys.Stat(ctx, path)
		if err != nil {
			return fsFailure(ctx, err)
		}
		return reply{Kind: replyEntry, Entry: &e}
	})
}

// DispatchRename renames from to to; an existing destination is refused
// unless overwrite. A completed rename is reported in TickOutcome.Resources.
func (rt *Runtime) DispatchRename(from, to string, overwrite bool, o DispatchOptions) JobID {
	j := rt.newJob(KindFSRename, o.Key)
	j.resource = &ResourceOp{Op: ResourceRename, From: from, To: to}
	fsys := rt.fsys(o)
	return rt.start(j, rt.actorFor(from), workers.LaneMutating, func(ctx context.Context, _ *Task) reply {
		return fsFailure(ctx, fsys.Rename(ctx, from, to, overwrite))
	})
}

// DispatchChmod sets path's permission bits (07777).
func (rt *Runtime) DispatchChmod(path string, mode uint32, o DispatchOptions) JobID {
	j := rt.newJob(KindFSChmod, o.Key)
	fsys := rt.fsys(o)
	return rt.start(j, rt.actorFor(path), workers.LaneMutating, func(ctx context.Context, _ *Task) reply {
		return fsFailure(ctx, fsys.Chmod(ctx, path, mode))
	})
}

// DispatchRemove removes a file, a symlink (never its target) or an empty
// directory. A completed remove is reported in TickOutcome.Resources.
func (rt *Runtime) DispatchRemove(path string, o DispatchOptions) JobID {
	j := rt.newJob(KindFSRemove, o.Key)
	j.resource = &ResourceOp{Op: ResourceRemove, From: path}
	fsys := rt.fsys(o)
	return rt.start(j, rt.actorFor(path), workers.LaneMutating, func(ctx context.Context, _ *Task) reply {
		return fsFailure(ctx, fsys.Remove(ctx, path))
	})
}

// DispatchMkdir makes the directory path, whose parent must exist; an
// existing path is refused (fsops.Mkdir). A completed mkdir is reported in
// TickOutcome.Resources.
func (rt *Runtime) DispatchMkdir(path string, o DispatchOptions) JobID {
	j := rt.newJob(KindFSMkdir, o.Key)
	j.resource = &ResourceOp{Op: ResourceMkdir, From: path}
	fsys := rt.fsys(o)
	return rt.start(j, rt.actorFor(path), workers.LaneMutating, func(ctx context.Context, _ *Task) reply {
		return fsFailure(ctx, fsys.Mkdir(ctx, path))
	})
}

// fileSystem is what a filesystem job calls: fsops' operations, or the same
// operations confined to the roots (fsops.Roots), which resolve each path
// beneath its root when they act, so a symlink swapped in after dispatch
// cannot lead a job outside.
type fileSystem interface {
	ReadDir(ctx context.Context, path string, tol fsops.Tolerance) (fsops.Listing, error)
	Stat(ctx context.Context, path string) (fsops.Entry, error)
	Rename(ctx context.Context, from, to string, overwrite bool) error
	Chmod(ctx context.Context, path string, mode uint32) error
	Remove(ctx context.Context, path string) error
	Mkdir(ctx context.Context, path string) error
}

// fsys returns the file system a job dispatched now with o uses: confined
// to o.Roots, to the registered roots (ConfineFS), to both, or not at all.
// The roots are copied now, on the main goroutine, so the worker never
// reads the runtime's tables.
func (rt *Runtime) fsys(o DispatchOptions) fileSystem {
	switch {
	case len(o.Roots) > 0 && rt.confine:
		return both{registered: slices.Clone(rt.roots.list), job: slices.Clone(o.Roots)}
	case len(o.Roots) > 0:
		return fsops.Roots(slices.Clone(o.Roots))
	case rt.confine:
		return fsops.Roots(slices.Clone(rt.roots.list))
	}
	return unconfined{}
}

// both confines a job to where its own roots and the registered roots
// overlap. Two directory trees overlap in the deeper of the two roots when
// one holds the other, so the roots it acts beneath are the job's roots that
// lie inside a registered root and the registered roots that lie inside
// one of the job's. They are worked out when the job runs, from the tree
// as it is then (symlinks resolved), and then fsops.Roots acts beneath
// them; none at all refuses every path.
type both struct{ registered, job []string }

func (b both) roots() fsops.Roots {
	var out fsops.Roots
	for _, j := range b.job {
		if fsops.ConfineFollow(b.registered, j) == nil {
			out = append(out, j)
		}
	}
	for _, r := range b.registered {
		if !slices.Contains(out, r) && fsops.ConfineFollow(b.job, r) == nil {
			out = append(out, r)
		}
	}
	return out
}

func (b both) ReadDir(ctx context.Context, path string, tol fsops.Tolerance) (fsops.Listing, error) {
	return b.roots().ReadDir(ctx, path, tol)
}
func (b both) Stat(ctx context.Context, path string) (fsops.Entry, error) {
	return b.roots().Stat(ctx, path)
}
func (b both) Rename(ctx context.Context, from, to string, overwrite bool) error {
	return b.roots().Rename(ctx, from, to, overwrite)
}
func (b both) Chmod(ctx context.Context, path string, mode uint32) error {
	return b.roots().Chmod(ctx, path, mode)
}
func (b both) Remove(ctx context.Context, path string) error { return b.roots().Remove(ctx, path) }
func (b both) Mkdir(ctx context.Context, path string) error  { return b.roots().Mkdir(ctx, path) }

// unconfined is fsops' package-level operations as a fileSystem.
type unconfined struct{}

func (unconfined) ReadDir(ctx context.Context, path string, tol fsops.Tolerance) (fsops.Listing, error) {
	return fsops.ReadDir(ctx, path, tol)
}
func (unconfined) Stat(ctx context.Context, path string) (fsops.Entry, error) {
	return fsops.Stat(ctx, path)
}
func (unconfined) Rename(ctx context.Context, from, to string, overwrite bool) error {
	return fsops.Rename(ctx, from, to, overwrite)
}
func (unconfined) Chmod(ctx context.Context, path string, mode uint32) error {
	return fsops.Chmod(ctx, path, mode)
}
func (unconfined) Remove(ctx context.Context, path string) error { return fsops.Remove(ctx, path) }
func (unconfined) Mkdir(ctx context.Context, path string) error  { return fsops.Mkdir(ctx, path) }

// fsFailure maps an fsops result to a terminal reply with the errno name.
func fsFailure(ctx context.Context, err error) reply {
	if err == nil {
		return reply{Kind: replyUnit}
	}
	if errors.Is(err, fsops.ErrCancelled) {
		return reply{Kind: replyCancelled}
	}
	return terminal(ctx, err, fsops.Errno(err))
}
