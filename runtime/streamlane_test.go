package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/grep"
)

// matchTree writes files*lines lines that each match "needle", plus a file
// "a" to rename. Every file holds the same number of matches, so the count a
// search must find is files*lines by construction.
func matchTree(t testing.TB, files, lines int) string {
	t.Helper()
	dir := t.TempDir()
	body := []byte(strings.Repeat("needle\n", lines))
	for i := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.txt", i)), body, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), []byte("x"), 0o644))
	return dir
}

// Acceptance (issue 11, defect 1): a grep with more matches than the stream
// credit, left undrained, is parked on its consumer; a rename on the same
// root dispatched meanwhile settles without the stream being drained. Before
// the stream lane the grep held the root's read gate while parked and the
// rename waited for it forever.
func TestRenameSettlesWhileGrepAboveCreditIsUndrained(t *testing.T) {
	const files, lines = 100, 1000
	rt := newRT(t, 4)
	root, err := rt.RegisterRoot(matchTree(t, files, lines))
	require.NoError(t, err)
	require.Greater(t, files*lines, rt.StreamCredit())

	g := rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle"}, DispatchOptions{})
	credit := rt.pending.get(g).stream.credit
	// A file's matches are acquired together, so the producer parks once
	// the next file's would pass the credit.
	pumpUntil(t, rt, func() bool { return credit.InFlight()+lines > credit.Limit() })

	mv := rt.startRename(filepath.Join(root, "a"), filepath.Join(root, "b"), DispatchOptions{})
	o := outcomeOf(t, rt, mv)
	require.Equal(t, Complete, o.State, "rename: %v", o.Err)
	require.False(t, rt.IsComplete(g), "the grep cannot have ended: its stream is undrained")
	require.FileExists(t, filepath.Join(root, "b"))

	res := drainStream(t, rt, g, 30*time.Second)
	require.Equal(t, Complete, res.outcome.State)
	require.Len(t, res.matches, files*lines)
}

// holdSearch makes the next grep jobs stop after their first emit until the
// returned release is called; reached receives once per grep that stopped.
func holdSearch(t *testing.T) (reached <-chan struct{}, release func()) {
	t.Helper()
	hit := make(chan struct{}, 16)
	gate := make(chan struct{})
	var once bool
	prev := searchTree
	searchTree = func(ctx context.Context, spec grep.Spec, emit func([]grep.Match) error) (grep.Stats, error) {
		first := true
		return grep.Search(ctx, spec, func(ms []grep.Match) error {
			err := emit(ms)
			if first {
				first = false
				hit <- struct{}{}
				<-gate
			}
			return err
		})
	}
	release = func() {
		if !once {
			once = true
			close(gate)
		}
	}
	t.Cleanup(func() {
		release()
		searchTree = prev
	})
	return hit, release
}

// Acceptance (issue 11, defect 1): below the credit too, a rename on the
// root dispatched while a grep of that root is still running settles without
// waiting for the grep to end. Before the stream lane it waited for the
// whole search.
func TestRenameSettlesWhileGrepBelowCreditIsRunning(t *testing.T) {
	const files, lines = 10, 10
	rt := newRT(t, 4)
	// After newRT: cleanups run last in first out, so a failing test
	// releases the held search before Close waits for it.
	reached, release := holdSearch(t)
	root, err := rt.RegisterRoot(matchTree(t, files, lines))
	require.NoError(t, err)
	require.Less(t, files*lines, rt.StreamCredit())

	g := rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle", Fanout: 1}, DispatchOptions{})
	select {
	case <-reached:
	case <-time.After(5 * time.Second):
		t.Fatal("the grep never emitted")
	}
	mv := rt.startRename(filepath.Join(root, "a"), filepath.Join(root, "b"), DispatchOptions{})
	o := outcomeOf(t, rt, mv)
	require.Equal(t, Complete, o.State, "rename: %v", o.Err)
	require.False(t, rt.IsComplete(g), "the grep is held mid-search")

	release()
	res := drainStream(t, rt, g, 10*time.Second)
	require.Equal(t, Complete, res.outcome.State)
	require.Len(t, res.matches, files*lines)
}

// Acceptance: a grep still starts after a rename dispatched before it: it
// does not see the renamed file under its old name.
func TestGrepStartsAfterEarlierRename(t *testing.T) {
	rt := newRT(t, 4)
	root, err := rt.RegisterRoot(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "old.txt"), []byte("needle\n"), 0o644))
	mv := rt.startRename(filepath.Join(root, "old.txt"), filepath.Join(root, "new.txt"), DispatchOptions{})
	g := rt.DispatchGrep(grep.Spec{Root: root, Pattern: "needle"}, DispatchOptions{})
	res := drainStream(t, rt, g, 10*time.Second)
	require.Equal(t, Complete, outcomeOf(t, rt, mv).State)
	require.Len(t, res.matches, 1)
	require.Equal(t, "new.txt", res.matches[0].File)
}
