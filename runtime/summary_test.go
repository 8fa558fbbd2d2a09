package runtime_test

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/kinds/demojob"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// resultOf returns the ring's Result for id.
func resultOf(t *testing.T, rt *runtime.Runtime, id runtime.JobID) string {
	t.Helper()
	for _, c := range rt.Snapshot().Completed {
		if c.ID == id {
			return c.Result
		}
	}
	t.Fatalf("job %d is not in the completion ring", id)
	return ""
}

// The completion ring says what each job returned: small values as
// themselves, large ones by kind and size, and nothing for failures
// (issue 11: where the seed's behaviour was lost). Every expected line is
// built from the inputs, not from a previous run.
func TestSnapshotShowsWhatEachJobReturned(t *testing.T) {
	const files = 5
	dir := t.TempDir()
	for i := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte("needle\n"), 0o644))
	}
	rt := kindtest.New(t, 2)
	want := map[runtime.JobID]string{}
	take := func(id runtime.JobID) runtime.JobID {
		kindtest.Outcome(t, rt, id)
		return id
	}
	want[take(demojob.DispatchSum(rt, 10, runtime.DispatchOptions{}))] = "55"
	want[take(demojob.DispatchSleep(rt, 0, runtime.DispatchOptions{}))] = ""
	// What a listing and an entry show: fsjob's TestSnapshotShowsListingAndEntry.

	for v, line := range map[string]any{
		"array of 70000 items":    make([]any, 70_000),
		"string of 4194304 bytes": strings.Repeat("x", 4<<20),
		`"short reply"`:           "short reply",
		"map of 2 keys":           map[string]any{"a": 1, "b": 2},
		"42":                      42,
	} {
		id, _ := rt.RegisterExternal(kindExternal, "")
		require.NoError(t, rt.CompleteExternalOK(id, line))
		want[take(id)] = v
	}

	emit := demojob.DispatchEmitN(rt, 1000, runtime.DispatchOptions{})
	require.Equal(t, runtime.Complete, kindtest.Drain(t, rt, emit, time.Millisecond, 5*time.Second).Outcome.State)
	want[emit] = "1000 items"
	g := rt.DispatchGrep(grep.Spec{Root: dir, Pattern: "needle"}, runtime.DispatchOptions{})
	require.Equal(t, runtime.Complete, kindtest.Drain(t, rt, g, time.Millisecond, 5*time.Second).Outcome.State)
	want[g] = fmt.Sprintf("%d items, %d files searched", files, files)

	// What a program's jobs show: procjob's TestSnapshotShowsProgramResults.

	for id, line := range want {
		require.Equal(t, line, resultOf(t, rt, id), "job %d", id)
	}

	p := rt.DispatchKept([]byte("local x = 1\n"), runtime.DispatchOptions{})
	kindtest.PumpUntil(t, rt, func() bool { return rt.IsComplete(p) })
	require.True(t, strings.HasPrefix(resultOf(t, rt, p), "kept, worked "), resultOf(t, rt, p))
	rt.TakeResult(p)
}

// The ring does not pin a large value once its job has been taken: the
// 70,000-item array a job returned is collected.
func TestCompletionRingDoesNotPinLargeValues(t *testing.T) {
	rt := kindtest.New(t, 2)
	id, _ := rt.RegisterExternal(kindExternal, "")
	require.NoError(t, rt.CompleteExternalOK(id, make([]any, 70_000)))
	o := kindtest.Outcome(t, rt, id)
	v, ok := o.External()
	require.True(t, ok)
	arr := v.([]any)
	ref := weak.Make(&arr[0])
	o, v, arr = runtime.Outcome{}, nil, nil
	_, _ = o, v
	require.Eventually(t, func() bool {
		goruntime.GC()
		return ref.Value() == nil
	}, 5*time.Second, 10*time.Millisecond, "the ring pins the value")
	require.Equal(t, "array of 70000 items", resultOf(t, rt, id))
}
