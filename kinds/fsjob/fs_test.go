package fsjob

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fsops"
	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// Real rename and remove jobs report their resources, only when they
// complete (ported dired tests, with real fs jobs).
func TestFsMutationsReportResourcesOnlyOnSuccess(t *testing.T) {
	root := makeTree(t, map[string]string{"a": "1", "b": "2"})
	rt := newRT(t, 4)
	_, err := rt.RegisterRoot(root)
	require.NoError(t, err)
	ok1 := rt.DispatchRename(filepath.Join(root, "a"), filepath.Join(root, "c"), false, DispatchOptions{})
	bad := rt.DispatchRename(filepath.Join(root, "missing"), filepath.Join(root, "d"), false, DispatchOptions{})
	ok2 := rt.DispatchRemove(filepath.Join(root, "b"), DispatchOptions{})
	ok3 := rt.DispatchMkdir(filepath.Join(root, "d"), DispatchOptions{})
	exists := rt.DispatchMkdir(filepath.Join(root, "c"), DispatchOptions{})
	var resources []runtime.ResourceOp
	settled := map[runtime.JobID]bool{}
	tickUntil(t, rt, 2*time.Second, func(out runtime.TickOutcome) bool {
		resources = append(resources, out.Resources...)
		for _, id := range out.Settled {
			settled[id] = true
		}
		return len(settled) == 5
	})
	require.Equal(t, []runtime.ResourceOp{
		{Op: runtime.ResourceRename, From: filepath.Join(root, "a"), To: filepath.Join(root, "c")},
		{Op: runtime.ResourceRemove, From: filepath.Join(root, "b")},
		{Op: runtime.ResourceMkdir, From: filepath.Join(root, "d")},
	}, resources, "one root: mutations execute and arrive in dispatch order")
	require.DirExists(t, filepath.Join(root, "d"))
	o, _ := rt.TakeResult(exists)
	require.Equal(t, runtime.Failed, o.State, "mkdir of the renamed file's path")
	require.Equal(t, "EEXIST", jobErr(t, o.Err).Code)
	o, _ = rt.TakeResult(bad)
	require.Equal(t, runtime.Failed, o.State)
	require.Equal(t, "ENOENT", jobErr(t, o.Err).Code)
	require.Contains(t, jobErr(t, o.Err).Message, "missing")
	for _, id := range []runtime.JobID{ok1, ok2, ok3} {
		o, _ := rt.TakeResult(id)
		require.Equal(t, runtime.Complete, o.State)
	}
}

// 1,000 renames chained a0->a1->...->a1000 under one root, dispatched
// without awaiting, all succeed in dispatch order, and a read_dir dispatched
// after them sees the result (issue 5: order).
func TestChainedRenamesExecuteInDispatchOrder(t *testing.T) {
	root := makeTree(t, map[string]string{"a0": "payload"})
	rt := newRT(t, 8)
	_, err := rt.RegisterRoot(root)
	require.NoError(t, err)
	const n = 1000
	ids := make([]runtime.JobID, n)
	for i := range n {
		ids[i] = rt.DispatchRename(filepath.Join(root, fmt.Sprintf("a%d", i)), filepath.Join(root, fmt.Sprintf("a%d", i+1)), false, DispatchOptions{})
	}
	list := rt.DispatchReadDir(root, fsops.Fatal, DispatchOptions{})
	var order []runtime.JobID
	tickUntil(t, rt, 20*time.Second, func(out runtime.TickOutcome) bool {
		order = append(order, out.Settled...)
		return rt.IsComplete(list) && len(order) == n+1
	})
	require.Equal(t, append(append([]runtime.JobID{}, ids...), list), order, "settled in dispatch order")
	for _, id := range ids {
		o, _ := rt.TakeResult(id)
		require.Equal(t, runtime.Complete, o.State, "rename %d", id)
	}
	o, _ := rt.TakeResult(list)
	l := mustListing(t, o)
	require.Len(t, l.Entries, 1)
	require.Equal(t, fmt.Sprintf("a%d", n), l.Entries[0].Name)
	data, err := os.ReadFile(filepath.Join(root, fmt.Sprintf("a%d", n)))
	require.NoError(t, err)
	require.Equal(t, "payload", string(data))
}

// read_dir and stat return their values; a per-entry listing crosses the
// bus with its errors.
func TestFsReadsReturnValues(t *testing.T) {
	root := makeTree(t, map[string]string{"x.txt": "hello", "sub/y": ""})
	require.NoError(t, os.Symlink("x.txt", filepath.Join(root, "link")))
	rt := newRT(t, 2)
	o := outcomeOf(t, rt, rt.DispatchReadDir(root, fsops.PerEntry, DispatchOptions{}))
	l := mustListing(t, o)
	var names []string
	for _, e := range l.Entries {
		names = append(names, e.Name+":"+e.Kind.String())
	}
	require.Equal(t, []string{"link:symlink", "sub:dir", "x.txt:file"}, names)
	require.Equal(t, "x.txt", l.Entries[0].Target)
	o = outcomeOf(t, rt, rt.DispatchStat(filepath.Join(root, "x.txt"), DispatchOptions{}))
	e := mustEntry(t, o)
	require.Equal(t, int64(5), e.Size)
	require.Equal(t, uint32(0o644), e.Mode)
	o = outcomeOf(t, rt, rt.DispatchStat(filepath.Join(root, "nope"), DispatchOptions{}))
	require.Equal(t, "ENOENT", jobErr(t, o.Err).Code)
}

// chmod accepts modes and rejects bad ones with their errno names.
func TestFsChmod(t *testing.T) {
	root := makeTree(t, map[string]string{"f": ""})
	rt := newRT(t, 2)
	o := outcomeOf(t, rt, rt.DispatchChmod(filepath.Join(root, "f"), 0o600, DispatchOptions{}))
	require.Equal(t, runtime.Complete, o.State)
	st, err := os.Stat(filepath.Join(root, "f"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	o = outcomeOf(t, rt, rt.DispatchChmod(filepath.Join(root, "f"), 0o170000, DispatchOptions{}))
	require.Equal(t, runtime.Failed, o.State)
	require.NotEmpty(t, jobErr(t, o.Err).Code)
}

// With confinement on, paths that escape the roots fail before anything is
// touched (issue 5: confinement).
func TestConfinementRefusesEscapes(t *testing.T) {
	outside := makeTree(t, map[string]string{"victim": "keep"})
	root := makeTree(t, map[string]string{"inside": "x"})
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "door")))
	rt := testRT{kindtest.NewWith(t, runtime.Options{ConfineFS: true, Executor: workers.Config{PoolSize: 2}})}
	_, err := rt.RegisterRoot(root)
	require.NoError(t, err)
	escapes := []runtime.JobID{
		rt.DispatchRemove(filepath.Join(root, "..", filepath.Base(outside), "victim"), DispatchOptions{}),
		rt.DispatchRemove(filepath.Join(outside, "victim"), DispatchOptions{}),
		rt.DispatchRemove(filepath.Join(root, "door", "victim"), DispatchOptions{}),
		rt.DispatchRename(filepath.Join(root, "inside"), filepath.Join(outside, "stolen"), false, DispatchOptions{}),
		rt.DispatchMkdir(filepath.Join(root, "door", "made"), DispatchOptions{}),
		rt.DispatchReadDir(filepath.Join(root, "door"), fsops.Fatal, DispatchOptions{}),
	}
	for i, id := range escapes {
		o := outcomeOf(t, rt, id)
		require.Equal(t, runtime.Failed, o.State, "escape %d", i)
		require.Contains(t, jobErr(t, o.Err).Message, "escapes", "escape %d", i)
	}
	_, err = os.Stat(filepath.Join(outside, "victim"))
	require.NoError(t, err, "nothing outside was touched")
	require.NoDirExists(t, filepath.Join(outside, "made"))
	_, err = os.Stat(filepath.Join(root, "inside"))
	require.NoError(t, err)
	o := outcomeOf(t, rt, rt.DispatchRemove(filepath.Join(root, "inside"), DispatchOptions{}))
	require.Equal(t, runtime.Complete, o.State, "a path inside a root is allowed")
}

// DispatchOptions.Roots confines one job, whatever the runtime's
// ConfineFS: a path outside the job's roots, through "..", or through a
// symlink inside them that leads out fails before anything is touched,
// while a job without roots and a job inside its roots act as before.
// (Issue 25, point 1: a server's create, rename and delete go through
// fsops.Roots; the editor keeps ConfineFS off for the user's own views.)
func TestPerDispatchRootsConfineOneJob(t *testing.T) {
	outside := makeTree(t, map[string]string{"victim": "keep", "other": "keep"})
	root := makeTree(t, map[string]string{"inside": "x", "sub/f": "y"})
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "door")))
	rt := newRT(t, 2)
	in := DispatchOptions{Roots: []string{root}}
	escapes := []runtime.JobID{
		rt.DispatchRemove(filepath.Join(root, "..", filepath.Base(outside), "victim"), in),
		rt.DispatchRemove(filepath.Join(outside, "victim"), in),
		rt.DispatchRemove(filepath.Join(root, "door", "victim"), in),
		rt.DispatchRename(filepath.Join(outside, "victim"), filepath.Join(outside, "moved"), false, in),
		rt.DispatchRename(filepath.Join(root, "inside"), filepath.Join(root, "door", "stolen"), false, in),
		rt.DispatchMkdir(filepath.Join(root, "door", "made"), in),
		rt.DispatchChmod(filepath.Join(root, "door", "other"), 0o600, in),
		rt.DispatchStat(filepath.Join(root, "door", "victim"), in),
		rt.DispatchReadDir(filepath.Join(root, "door"), fsops.Fatal, in),
	}
	for i, id := range escapes {
		o := outcomeOf(t, rt, id)
		require.Equal(t, runtime.Failed, o.State, "escape %d", i)
		require.ErrorIs(t, o.Err, fsops.ErrEscapesRoot, "escape %d", i)
		require.Equal(t, "EACCES", jobErr(t, o.Err).Code, "escape %d", i)
	}
	for _, name := range []string{"victim", "other"} {
		st, err := os.Stat(filepath.Join(outside, name))
		require.NoError(t, err, "nothing outside was touched")
		require.Equal(t, os.FileMode(0o644), st.Mode().Perm())
	}
	require.NoFileExists(t, filepath.Join(outside, "moved"))
	require.NoFileExists(t, filepath.Join(outside, "stolen"))
	require.NoDirExists(t, filepath.Join(outside, "made"))

	o := outcomeOf(t, rt, rt.DispatchRename(filepath.Join(root, "inside"), filepath.Join(root, "sub", "moved"), false, in))
	require.Equal(t, runtime.Complete, o.State, "a rename inside the job's roots: %v", o.Err)
	require.FileExists(t, filepath.Join(root, "sub", "moved"))
	o = outcomeOf(t, rt, rt.DispatchRemove(filepath.Join(outside, "other"), DispatchOptions{}))
	require.Equal(t, runtime.Complete, o.State, "a job without roots is not confined: %v", o.Err)
}

// With ConfineFS on too, a job acts only where its roots and the
// registered ones overlap: a job root wider than the registered root is
// narrowed to it, and one beside it confines everything out.
func TestPerDispatchRootsNarrowConfineFS(t *testing.T) {
	top := t.TempDir()
	testenv.WriteTree(t, top, map[string]string{"proj/a": "1", "proj/deep/b": "2", "beside/c": "3"})
	proj := filepath.Join(top, "proj")
	rt := testRT{kindtest.NewWith(t, runtime.Options{ConfineFS: true, Executor: workers.Config{PoolSize: 2}})}
	_, err := rt.RegisterRoot(proj)
	require.NoError(t, err)

	wide := DispatchOptions{Roots: []string{top}}
	o := outcomeOf(t, rt, rt.DispatchRemove(filepath.Join(top, "beside", "c"), wide))
	require.ErrorIs(t, o.Err, fsops.ErrEscapesRoot, "a job root wider than the registered one is narrowed to it")
	o = outcomeOf(t, rt, rt.DispatchStat(filepath.Join(proj, "a"), wide))
	require.Equal(t, runtime.Complete, o.State, "%v", o.Err)

	deep := DispatchOptions{Roots: []string{filepath.Join(proj, "deep")}}
	o = outcomeOf(t, rt, rt.DispatchStat(filepath.Join(proj, "a"), deep))
	require.ErrorIs(t, o.Err, fsops.ErrEscapesRoot, "a job root inside the registered one narrows it")
	o = outcomeOf(t, rt, rt.DispatchStat(filepath.Join(proj, "deep", "b"), deep))
	require.Equal(t, runtime.Complete, o.State, "%v", o.Err)

	o = outcomeOf(t, rt, rt.DispatchStat(filepath.Join(top, "beside", "c"), DispatchOptions{Roots: []string{filepath.Join(top, "beside")}}))
	require.ErrorIs(t, o.Err, fsops.ErrEscapesRoot, "a job root beside the registered one allows nothing")
	require.FileExists(t, filepath.Join(top, "beside", "c"))
}

// A cancelled mutation is neither performed late nor harvested.
func TestCancelledMutationIsNotHarvested(t *testing.T) {
	root := makeTree(t, map[string]string{"a": ""})
	rt := newRT(t, 2)
	id := rt.DispatchRemove(filepath.Join(root, "a"), DispatchOptions{})
	rt.Cancel(id) // before any worker picks it up the context is already done
	var resources []runtime.ResourceOp
	tickUntil(t, rt, 2*time.Second, func(out runtime.TickOutcome) bool {
		resources = append(resources, out.Resources...)
		return rt.IsComplete(id)
	})
	o, _ := rt.TakeResult(id)
	if o.State == runtime.Cancelled {
		require.Empty(t, resources)
		_, err := os.Stat(filepath.Join(root, "a"))
		require.NoError(t, err, "a cancelled remove touched nothing")
	} else {
		require.Equal(t, runtime.Complete, o.State)
		require.Len(t, resources, 1, "a remove that ran is reported")
	}
}

func mustListing(t testing.TB, o runtime.Outcome) fsops.Listing {
	t.Helper()
	l, ok := ListingOf(o)
	require.True(t, ok, "a listing: %v", o)
	return l
}

func mustEntry(t testing.TB, o runtime.Outcome) fsops.Entry {
	t.Helper()
	e, ok := EntryOf(o)
	require.True(t, ok, "an entry: %v", o)
	return e
}
