package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fsops"
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
	var resources []ResourceOp
	settled := map[JobID]bool{}
	tickUntil(t, rt, 2*time.Second, func(out TickOutcome) bool {
		resources = append(resources, out.Resources...)
		for _, id := range out.Settled {
			settled[id] = true
		}
		return len(settled) == 5
	})
	require.Equal(t, []ResourceOp{
		{Op: ResourceRename, From: filepath.Join(root, "a"), To: filepath.Join(root, "c")},
		{Op: ResourceRemove, From: filepath.Join(root, "b")},
		{Op: ResourceMkdir, From: filepath.Join(root, "d")},
	}, resources, "one root: mutations execute and arrive in dispatch order")
	require.DirExists(t, filepath.Join(root, "d"))
	o, _ := rt.TakeResult(exists)
	require.Equal(t, Failed, o.State, "mkdir of the renamed file's path")
	require.Equal(t, "EEXIST", jobErr(t, o.Err).Code)
	o, _ = rt.TakeResult(bad)
	require.Equal(t, Failed, o.State)
	require.Equal(t, "ENOENT", jobErr(t, o.Err).Code)
	require.Contains(t, jobErr(t, o.Err).Message, "missing")
	for _, id := range []JobID{ok1, ok2, ok3} {
		o, _ := rt.TakeResult(id)
		require.Equal(t, Complete, o.State)
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
	ids := make([]JobID, n)
	for i := range n {
		ids[i] = rt.DispatchRename(filepath.Join(root, fmt.Sprintf("a%d", i)), filepath.Join(root, fmt.Sprintf("a%d", i+1)), false, DispatchOptions{})
	}
	list := rt.DispatchReadDir(root, fsops.Fatal, DispatchOptions{})
	var order []JobID
	tickUntil(t, rt, 20*time.Second, func(out TickOutcome) bool {
		order = append(order, out.Settled...)
		return rt.IsComplete(list) && len(order) == n+1
	})
	require.Equal(t, append(append([]JobID{}, ids...), list), order, "settled in dispatch order")
	for _, id := range ids {
		o, _ := rt.TakeResult(id)
		require.Equal(t, Complete, o.State, "rename %d", id)
	}
	o, _ := rt.TakeResult(list)
	l := o.value.(fsops.Listing)
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
	l := o.value.(fsops.Listing)
	var names []string
	for _, e := range l.Entries {
		names = append(names, e.Name+":"+e.Kind.String())
	}
	require.Equal(t, []string{"link:symlink", "sub:dir", "x.txt:file"}, names)
	require.Equal(t, "x.txt", l.Entries[0].Target)
	o = outcomeOf(t, rt, rt.DispatchStat(filepath.Join(root, "x.txt"), DispatchOptions{}))
	e := o.value.(fsops.Entry)
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
	require.Equal(t, Complete, o.State)
	st, err := os.Stat(filepath.Join(root, "f"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	o = outcomeOf(t, rt, rt.DispatchChmod(filepath.Join(root, "f"), 0o170000, DispatchOptions{}))
	require.Equal(t, Failed, o.State)
	require.NotEmpty(t, jobErr(t, o.Err).Code)
}

// With confinement on, paths that escape the roots fail before anything is
// touched (issue 5: confinement).
func TestConfinementRefusesEscapes(t *testing.T) {
	outside := makeTree(t, map[string]string{"victim": "keep"})
	root := makeTree(t, map[string]string{"inside": "x"})
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "door")))
	rt, err := New(Options{ConfineFS: true, Executor: workers.Config{PoolSize: 2}})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	_, err = rt.RegisterRoot(root)
	require.NoError(t, err)
	escapes := []JobID{
		rt.DispatchRemove(filepath.Join(root, "..", filepath.Base(outside), "victim"), DispatchOptions{}),
		rt.DispatchRemove(filepath.Join(outside, "victim"), DispatchOptions{}),
		rt.DispatchRemove(filepath.Join(root, "door", "victim"), DispatchOptions{}),
		rt.DispatchRename(filepath.Join(root, "inside"), filepath.Join(outside, "stolen"), false, DispatchOptions{}),
		rt.DispatchMkdir(filepath.Join(root, "door", "made"), DispatchOptions{}),
		rt.DispatchReadDir(filepath.Join(root, "door"), fsops.Fatal, DispatchOptions{}),
	}
	for i, id := range escapes {
		o := outcomeOf(t, rt, id)
		require.Equal(t, Failed, o.State, "escape %d", i)
		require.Contains(t, jobErr(t, o.Err).Message, "escapes", "escape %d", i)
	}
	_, err = os.Stat(filepath.Join(outside, "victim"))
	require.NoError(t, err, "nothing outside was touched")
	require.NoDirExists(t, filepath.Join(outside, "made"))
	_, err = os.Stat(filepath.Join(root, "inside"))
	require.NoError(t, err)
	o := outcomeOf(t, rt, rt.DispatchRemove(filepath.Join(root, "inside"), DispatchOptions{}))
	require.Equal(t, Complete, o.State, "a path inside a root is allowed")
}

// A cancelled mutation is neither performed late nor harvested.
func TestCancelledMutationIsNotHarvested(t *testing.T) {
	root := makeTree(t, map[string]string{"a": ""})
	rt := newRT(t, 2)
	id := rt.DispatchRemove(filepath.Join(root, "a"), DispatchOptions{})
	rt.Cancel(id) // before any worker picks it up the context is already done
	var resources []ResourceOp
	tickUntil(t, rt, 2*time.Second, func(out TickOutcome) bool {
		resources = append(resources, out.Resources...)
		return rt.IsComplete(id)
	})
	o, _ := rt.TakeResult(id)
	if o.State == Cancelled {
		require.Empty(t, resources)
		_, err := os.Stat(filepath.Join(root, "a"))
		require.NoError(t, err, "a cancelled remove touched nothing")
	} else {
		require.Equal(t, Complete, o.State)
		require.Len(t, resources, 1, "a remove that ran is reported")
	}
}
