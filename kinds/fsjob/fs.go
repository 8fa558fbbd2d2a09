// Package fsjob is the filesystem kind: read_dir, stat, rename, chmod,
// remove and mkdir on a worker, ordered per project root.
//
// Reads (read_dir, stat) run in the read lane of the actor that owns the
// path; mutations (rename, chmod, remove, mkdir) in its mutating lane, so
// under one root they execute in dispatch order and a read dispatched
// after a mutation sees it. A rename runs on the actor of its source: its
// order against other jobs of the source's root is kept, but against jobs
// of the destination's root (when that is another root) it is not, because
// a job holds one actor's write gate, never two. A completed rename, remove
// or mkdir is reported in runtime.TickOutcome.Resources.
//
// A job is confined to roots (runtime.Options.ConfineFS for every job,
// Scope.Roots for one) or acts on any path. The per-job roots let one
// runtime serve a user, whose directory views and saves may go anywhere,
// and a peer acting for them, such as a language server's workspace edit,
// which must stay inside the workspace: ConfineFS would fence in the user
// too. A path that escapes its roots fails with fsops.ErrEscapesRoot before
// anything is touched, and the job acts beneath its root through the
// kernel (fsops.Roots), so a symlink swapped in after dispatch cannot lead
// it outside. With ConfineFS on too, the job acts only where both allow:
// beneath a root of its own that lies inside a registered root, or beneath
// a registered root that lies inside one of its own.
//
// A failure's Err is a *runtime.JobError that wraps fsops' *fs.PathError or
// *os.LinkError (errors.Is(err, fs.ErrNotExist) holds) and carries
// fsops.Errno's name ("ENOENT", "EEXIST", ...) as its Code.
package fsjob

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// The kinds, one per operation.
var (
	ReadDirKind = runtime.RegisterKind(runtime.KindSpec{Name: "fs_read_dir", Value: listingCodec{}, Summary: listingSummary})
	StatKind    = runtime.RegisterKind(runtime.KindSpec{Name: "fs_stat", Value: entryCodec{}, Summary: entrySummary})
	RenameKind  = runtime.RegisterKind(runtime.KindSpec{Name: "fs_rename"})
	ChmodKind   = runtime.RegisterKind(runtime.KindSpec{Name: "fs_chmod"})
	RemoveKind  = runtime.RegisterKind(runtime.KindSpec{Name: "fs_remove"})
	MkdirKind   = runtime.RegisterKind(runtime.KindSpec{Name: "fs_mkdir"})
)

// Scope confines one job: with Roots set, it acts only beneath them (see
// the package doc).
type Scope struct {
	Roots []string
}

// ListingOf is a read_dir job's result.
func ListingOf(o runtime.Outcome) (fsops.Listing, bool) {
	v, ok := o.Value()
	l, is := v.(fsops.Listing)
	return l, ok && is
}

// EntryOf is a stat job's result.
func EntryOf(o runtime.Outcome) (fsops.Entry, bool) {
	v, ok := o.Value()
	e, is := v.(fsops.Entry)
	return e, ok && is
}

// ReadDir lists path (lstat entries sorted by name).
func ReadDir(rt *runtime.Runtime, path string, tol fsops.Tolerance, sc Scope, o runtime.DispatchOptions) runtime.JobID {
	fsys := fsysFor(rt, sc)
	return rt.Start(runtime.Job{Kind: ReadDirKind, Path: path, Lane: workers.LaneRead,
		Run: func(ctx context.Context, _ *runtime.Task) (any, error) {
			l, err := fsys.ReadDir(ctx, path, tol)
			if err != nil {
				return nil, fsFailure(err)
			}
			return l, nil
		}}, o)
}

// Stat describes path without following a final symlink.
func Stat(rt *runtime.Runtime, path string, sc Scope, o runtime.DispatchOptions) runtime.JobID {
	fsys := fsysFor(rt, sc)
	return rt.Start(runtime.Job{Kind: StatKind, Path: path, Lane: workers.LaneRead,
		Run: func(ctx context.Context, _ *runtime.Task) (any, error) {
			e, err := fsys.Stat(ctx, path)
			if err != nil {
				return nil, fsFailure(err)
			}
			return e, nil
		}}, o)
}

// Rename renames from to to; an existing destination is refused unless
// overwrite.
func Rename(rt *runtime.Runtime, from, to string, overwrite bool, sc Scope, o runtime.DispatchOptions) runtime.JobID {
	fsys := fsysFor(rt, sc)
	return rt.Start(runtime.Job{Kind: RenameKind, Path: from, Lane: workers.LaneMutating,
		Resource: &runtime.ResourceOp{Op: runtime.ResourceRename, From: from, To: to},
		Run: func(ctx context.Context, _ *runtime.Task) (any, error) {
			return nil, fsFailure(fsys.Rename(ctx, from, to, overwrite))
		}}, o)
}

// Chmod sets path's permission bits (07777).
func Chmod(rt *runtime.Runtime, path string, mode uint32, sc Scope, o runtime.DispatchOptions) runtime.JobID {
	fsys := fsysFor(rt, sc)
	return rt.Start(runtime.Job{Kind: ChmodKind, Path: path, Lane: workers.LaneMutating,
		Run: func(ctx context.Context, _ *runtime.Task) (any, error) {
			return nil, fsFailure(fsys.Chmod(ctx, path, mode))
		}}, o)
}

// Remove removes a file, a symlink (never its target) or an empty
// directory.
func Remove(rt *runtime.Runtime, path string, sc Scope, o runtime.DispatchOptions) runtime.JobID {
	fsys := fsysFor(rt, sc)
	return rt.Start(runtime.Job{Kind: RemoveKind, Path: path, Lane: workers.LaneMutating,
		Resource: &runtime.ResourceOp{Op: runtime.ResourceRemove, From: path},
		Run: func(ctx context.Context, _ *runtime.Task) (any, error) {
			return nil, fsFailure(fsys.Remove(ctx, path))
		}}, o)
}

// Mkdir makes the directory path, whose parent must exist; an existing
// path is refused (fsops.Mkdir).
func Mkdir(rt *runtime.Runtime, path string, sc Scope, o runtime.DispatchOptions) runtime.JobID {
	fsys := fsysFor(rt, sc)
	return rt.Start(runtime.Job{Kind: MkdirKind, Path: path, Lane: workers.LaneMutating,
		Resource: &runtime.ResourceOp{Op: runtime.ResourceMkdir, From: path},
		Run: func(ctx context.Context, _ *runtime.Task) (any, error) {
			return nil, fsFailure(fsys.Mkdir(ctx, path))
		}}, o)
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

// fsysFor returns the file system a job dispatched now in sc uses:
// confined to sc.Roots, to the registered roots (ConfineFS), to both, or
// not at all. The roots are copied now, on the main goroutine, so the
// worker never reads the runtime's tables.
func fsysFor(rt *runtime.Runtime, sc Scope) fileSystem {
	registered, confine := rt.Confinement()
	switch {
	case len(sc.Roots) > 0 && confine:
		return both{registered: registered, job: slices.Clone(sc.Roots)}
	case len(sc.Roots) > 0:
		return fsops.Roots(slices.Clone(sc.Roots))
	case confine:
		return fsops.Roots(registered)
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

// fsFailure maps an fsops error to the job's: cancelled as the context's
// end, any other with its errno name as the code.
func fsFailure(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fsops.ErrCancelled), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return context.Canceled
	}
	return &runtime.JobError{Message: err.Error(), Code: fsops.Errno(err), Err: err}
}

// listingSummary is what the completion ring keeps of a listing: its
// counts, formatted only when a snapshot shows them.
func listingSummary(v any) any {
	l := v.(fsops.Listing)
	return listingCounts{entries: len(l.Entries), errors: len(l.Errors)}
}

type listingCounts struct{ entries, errors int }

func (c listingCounts) String() string {
	if c.errors > 0 {
		return fmt.Sprintf("listing of %d entries, %d errors", c.entries, c.errors)
	}
	return fmt.Sprintf("listing of %d entries", c.entries)
}

// entrySummary is what the completion ring keeps of an entry: the entry
// itself, which holds no large memory.
func entrySummary(v any) any { return entryLine(v.(fsops.Entry)) }

type entryLine fsops.Entry

func (e entryLine) String() string { return fmt.Sprintf("%s %q, %d bytes", e.Kind, e.Name, e.Size) }

type listingCodec struct{}

func (listingCodec) EncodeValue(e *msgpack.Encoder, v any) error {
	l := v.(fsops.Listing)
	return encodeListing(e, &l)
}

func (listingCodec) DecodeValue(d *msgpack.Decoder) (any, error) {
	l, err := decodeListing(d)
	if err != nil {
		return nil, err
	}
	return *l, nil
}

type entryCodec struct{}

func (entryCodec) EncodeValue(e *msgpack.Encoder, v any) error {
	ent := v.(fsops.Entry)
	return encodeEntry(e, &ent)
}

func (entryCodec) DecodeValue(d *msgpack.Decoder) (any, error) { return decodeEntry(d) }
