package findjob

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/watchjob"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// TestFindFilesFollowsAWatchOfItsRoot covers the finder's cache kept from a
// watch: while a watch of the same root runs, a file another program
// creates or removes (no fs job, no poll: the mtimes are not compared
// again for an hour) shows in the next query once the watch has reported
// it; once the watch ends, the cache polls mtimes again.
func TestFindFilesFollowsAWatchOfItsRoot(t *testing.T) {
	old := findStatEvery
	findStatEvery = time.Hour
	t.Cleanup(func() { findStatEvery = old })
	rt := newRT(t, 2)
	root := makeTree(t, map[string]string{"a/one.txt": "", "b.txt": ""})
	spec := FindSpec{Root: root, Query: "", Limit: 100}
	set := func() []string {
		r, _ := findAll(t, rt, spec, DispatchOptions{})
		s := texts(r)
		slices.Sort(s)
		return s
	}
	eventually := func(what string, want []string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := set()
			if slices.Equal(got, want) {
				return
			}
			require.True(t, time.Now().Before(deadline), "%s: the list is %v", what, got)
			waitReady(rt, 5*time.Millisecond)
		}
	}
	require.Equal(t, []string{"a/one.txt", "b.txt"}, set())

	w := rt.startWatch(t, root)
	require.NoError(t, os.WriteFile(filepath.Join(root, "a", "two.txt"), nil, 0o644))
	eventually("a created file", []string{"a/one.txt", "a/two.txt", "b.txt"})
	require.NoError(t, os.Remove(filepath.Join(root, "a", "one.txt")))
	eventually("a removed file", []string{"a/two.txt", "b.txt"})
	require.NoError(t, os.MkdirAll(filepath.Join(root, "c", "d"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "c", "d", "three.txt"), []byte("x"), 0o644))
	eventually("a new directory's file", []string{"a/two.txt", "b.txt", "c/d/three.txt"})

	rt.Cancel(w)
	pumpUntil(t, rt, func() bool {
		f := rt.finder()
		return len(f.trees) == 0
	})
	findStatEvery = 0 // polling again, at every query
	require.NoError(t, os.WriteFile(filepath.Join(root, "four.txt"), nil, 0o644))
	future := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(root, future, future))
	eventually("a file seen by polling", []string{"a/two.txt", "b.txt", "c/d/three.txt", "four.txt"})
}

// startWatch starts a watch of root and waits for its first scan.
func (rt testRT) startWatch(t *testing.T, root string) JobID {
	t.Helper()
	id := watchjob.Dispatch(rt.Runtime, watchjob.Spec{Root: root}, DispatchOptions{})
	pumpUntil(t, rt, func() bool {
		p, _ := rt.StreamProgress(id)
		return p > 0
	})
	return id
}

// TestFindFilesListsAfreshWhenTheWatchLosesTrack covers a watch's notice
// (changes dropped, or directories polled past the kernel's limit): the
// cache no longer relies on it and lists its root afresh at the next
// query, so a file it never reported shows.
func TestFindFilesListsAfreshWhenTheWatchLosesTrack(t *testing.T) {
	old := findStatEvery
	findStatEvery = time.Hour
	t.Cleanup(func() { findStatEvery = old })
	rt := newRT(t, 2)
	root := makeTree(t, map[string]string{"a.txt": ""})
	spec := FindSpec{Root: root, Query: "", Limit: 100}
	set := func() []string {
		r, _ := findAll(t, rt, spec, DispatchOptions{})
		s := texts(r)
		slices.Sort(s)
		return s
	}
	require.Equal(t, []string{"a.txt"}, set())
	// A follower that reports nothing: what a watch that dropped a change
	// looks like until its notice comes.
	const w = JobID(1 << 40)
	rt.finder().NoteTree(runtime.TreeNote{Job: w, Root: root, Event: runtime.TreeFollowed})
	require.Equal(t, []string{"a.txt"}, set(), "the first query after the watch follows compares the mtimes once")

	// A file made behind its back, its directory's mtime put back.
	st, err := os.Stat(root)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "b.txt"), nil, 0o644))
	require.NoError(t, os.Chtimes(root, st.ModTime(), st.ModTime()))
	require.Equal(t, []string{"a.txt"}, set(), "nothing reported it, nothing polls")
	rt.finder().NoteTree(runtime.TreeNote{Job: w, Root: root, Event: runtime.TreeLost})
	require.Equal(t, []string{"a.txt", "b.txt"}, set(), "listed afresh")
}
