package watchjob

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"
	"go.uber.org/goleak"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
	"github.com/pmacs-go/pmacs-go/kinds/kindtest"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/watch"
)

// TestMain proves a watch's goroutines (the collector, fsnotify's reader)
// end with its job.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// collect pumps rt, gathering stream id's changes, until cond holds of them
// or the stream closes; it returns what came and the closing batch, if any.
func collect(t *testing.T, rt *runtime.Runtime, id runtime.JobID, cond func(Changes) bool) (Changes, *runtime.StreamBatch) {
	t.Helper()
	var got Changes
	deadline := time.Now().Add(20 * time.Second)
	for !cond(got) {
		require.True(t, time.Now().Before(deadline), "condition not met within 20 s; got %v", got)
		rt.Tick()
		for _, b := range rt.TakeStreamBatches() {
			if b.ID != id {
				continue
			}
			got = append(got, ChangesOf(b)...)
			if b.Closed {
				return got, &b
			}
		}
		kindtest.WaitReady(rt, 5*time.Millisecond)
	}
	return got, nil
}

func hasChange(c Changes, path string, op watch.Op) bool {
	for _, e := range c {
		if e.Path == path && e.Op == op {
			return true
		}
	}
	return false
}

// waitWatching pumps until the watch reports its first scan done.
func waitWatching(t *testing.T, rt *runtime.Runtime, id runtime.JobID) uint64 {
	t.Helper()
	var n uint64
	kindtest.PumpFor(t, rt, 20*time.Second, func() bool {
		n, _ = rt.StreamProgress(id)
		return n > 0
	})
	return n
}

// TestWatchStreamsChangesUntilCancelled covers the kind end to end: once
// its progress says it watches (counting the directories), a file created
// and a directory removed by another program arrive as stream items; a
// node_modules tree is not watched by default; cancelling ends the stream
// Cancelled and every goroutine of the watch.
func TestWatchStreamsChangesUntilCancelled(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"src/a.go": "", "old/x": "", "node_modules/m/i.js": ""})
	rt := kindtest.New(t, 2)
	id := Dispatch(rt, Spec{Root: root}, runtime.DispatchOptions{MaxBatch: 64})
	require.EqualValues(t, 3, waitWatching(t, rt, id), "root, src and old; not node_modules")

	require.NoError(t, os.WriteFile(filepath.Join(root, "node_modules", "m", "j.js"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "src", "b.go"), nil, 0o644))
	require.NoError(t, os.RemoveAll(filepath.Join(root, "old")))
	got, closed := collect(t, rt, id, func(c Changes) bool {
		return hasChange(c, filepath.Join(root, "src", "b.go"), watch.Create) && hasChange(c, filepath.Join(root, "old"), watch.Remove)
	})
	require.Nil(t, closed)
	for _, e := range got {
		require.NotContains(t, e.Path, "node_modules")
		if e.Path == filepath.Join(root, "old") {
			require.True(t, e.Dir)
		}
	}

	rt.Cancel(id)
	_, closed = collect(t, rt, id, func(Changes) bool { return false })
	require.NotNil(t, closed)
	require.Equal(t, runtime.Cancelled, closed.Outcome.State)
}

// TestWatchEndsWithTheRuntime covers Close: a watch still running when its
// runtime closes ends with it (goleak checks its goroutines).
func TestWatchEndsWithTheRuntime(t *testing.T) {
	rt, err := runtime.New(runtime.Options{})
	require.NoError(t, err)
	id := Dispatch(rt, Spec{Root: t.TempDir()}, runtime.DispatchOptions{})
	waitWatching(t, rt, id)
	done := make(chan struct{})
	go func() { rt.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return within 10 s")
	}
}

// TestWatchFailsOnABadRoot covers bad input: an empty root, a missing one
// and a file fail the job with a message naming the problem.
func TestWatchFailsOnABadRoot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	rt := kindtest.New(t, 1)
	for root, want := range map[string]string{"": "empty root", filepath.Join(dir, "nope"): "no such file", file: "not a directory"} {
		id := Dispatch(rt, Spec{Root: root}, runtime.DispatchOptions{})
		_, closed := collect(t, rt, id, func(Changes) bool { return false })
		require.NotNil(t, closed)
		require.Equal(t, runtime.Failed, closed.Outcome.State, root)
		require.ErrorContains(t, closed.Outcome.Err, want)
	}
}

// TestChangesCrossTheBusIntact covers the codec: a batch with every op, a
// directory and a notice decodes to itself, and a forged length is refused
// rather than allocated.
func TestChangesCrossTheBusIntact(t *testing.T) {
	in := Changes{
		{Path: "/r/a", Op: watch.Create}, {Path: "/r/b", Op: watch.Write}, {Path: "/r/c", Op: watch.Remove, Dir: true},
		{Path: "/r/d", Op: watch.Rename}, {Path: "/r/é", Op: watch.Chmod}, {Path: "/r", Dir: true, Notice: "limit"},
	}
	var buf bytes.Buffer
	require.NoError(t, changesCodec{}.EncodeItems(msgpack.NewEncoder(&buf), in))
	out, err := changesCodec{}.DecodeItems(buf.Bytes(), msgpack.NewDecoder(bytes.NewReader(buf.Bytes())))
	require.NoError(t, err)
	require.Equal(t, in, out)

	forged := []byte{0xdd, 0x7f, 0xff, 0xff, 0xff} // an array claiming 2^31-1 items
	_, err = changesCodec{}.DecodeItems(forged, msgpack.NewDecoder(bytes.NewReader(forged)))
	require.Error(t, err)
}
