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
// Failures carry fsops.Errno's name ("ENOENT", "EEXIST", ...) in the
// outcome's Err.Code.

// DispatchReadDir lists path (lstat entries sorted by name).
func (rt *Runtime) DispatchReadDir(path string, tol fsops.Tolerance, o DispatchOptions) JobID {
	j := rt.newJob(KindFsReadDir, o.Key)
	check := rt.confiner(fsops.ConfineFollow, path)
	return rt.start(j, rt.actorFor(path), workers.LaneRead, func(ctx context.Context, _ *task) reply {
		if err := check(); err != nil {
			return fsFailure(ctx, err)
		}
		l, err := fsops.ReadDir(ctx, path, tol)
		if err != nil {
			return fsFailure(ctx, err)
		}
		return reply{Kind: replyListing, Listing: &l}
	})
}

// DispatchStat describes path without following a final symlink.
func (rt *Runtime) DispatchStat(path string, o DispatchOptions) JobID {
	j := rt.newJob(KindFsStat, o.Key)
	check := rt.confiner(fsops.Confine, path)
	return rt.start(j, rt.actorFor(path), workers.LaneRead, func(ctx context.Context, _ *task) reply {
		if err := check(); err != nil {
			return fsFailure(ctx, err)
		}
		e, err := fsops.Stat(ctx, path)
		if err != nil {
			return fsFailure(ctx, err)
		}
		return reply{Kind: replyEntry, Entry: &e}
	})
}

// DispatchRename renames from to to; an existing destination is refused
// unless overwrite. A completed rename is reported in TickOutcome.Resources.
func (rt *Runtime) DispatchRename(from, to string, overwrite bool, o DispatchOptions) JobID {
	j := rt.newJob(KindFsRename, o.Key)
	j.resource = &ResourceOp{Op: ResourceRename, From: from, To: to}
	checkFrom := rt.confiner(fsops.Confine, from)
	checkTo := rt.confiner(fsops.Confine, to)
	return rt.start(j, rt.actorFor(from), workers.LaneMutating, func(ctx context.Context, _ *task) reply {
		err := checkFrom()
		if err == nil {
			err = checkTo()
		}
		if err == nil {
			err = fsops.Rename(ctx, from, to, overwrite)
		}
		return fsFailure(ctx, err)
	})
}

// DispatchChmod sets path's permission bits (07777).
func (rt *Runtime) DispatchChmod(path string, mode uint32, o DispatchOptions) JobID {
	j := rt.newJob(KindFsChmod, o.Key)
	check := rt.confiner(fsops.Confine, path)
	return rt.start(j, rt.actorFor(path), workers.LaneMutating, func(ctx context.Context, _ *task) reply {
		err := check()
		if err == nil {
			err = fsops.Chmod(ctx, path, mode)
		}
		return fsFailure(ctx, err)
	})
}

// DispatchRemove removes a file, a symlink (never its target) or an empty
// directory. A completed remove is reported in TickOutcome.Resources.
func (rt *Runtime) DispatchRemove(path string, o DispatchOptions) JobID {
	j := rt.newJob(KindFsRemove, o.Key)
	j.resource = &ResourceOp{Op: ResourceRemove, From: path}
	check := rt.confiner(fsops.Confine, path)
	return rt.start(j, rt.actorFor(path), workers.LaneMutating, func(ctx context.Context, _ *task) reply {
		err := check()
		if err == nil {
			err = fsops.Remove(ctx, path)
		}
		return fsFailure(ctx, err)
	})
}

// confiner returns the confinement check for path, or a no-op when
// confinement is off. The roots are copied now, on the main goroutine, so
// the worker never reads the runtime's tables.
func (rt *Runtime) confiner(confine func([]string, string) error, path string) func() error {
	if !rt.confine {
		return func() error { return nil }
	}
	roots := slices.Clone(rt.roots.list)
	return func() error { return confine(roots, path) }
}

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
