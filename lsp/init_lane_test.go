package lsp

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// holdHeavyPermit takes the executor's one heavy permit until the returned
// func is called.
func holdHeavyPermit(t *testing.T, rt *runtime.Runtime) (release func()) {
	t.Helper()
	started, done := make(chan struct{}), make(chan struct{})
	rt.Executor().Submit(context.Background(), workers.Task{
		Actor: runtime.DefaultActor, Lane: workers.LaneHeavy, Name: "hold the heavy permit",
		Run: func(context.Context, workers.Actor) (any, error) {
			close(started)
			<-done
			return nil, nil
		},
	})
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("the blocking heavy job never started")
	}
	return func() { close(done) }
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Initialize runs on the heavy lane, both halves (lifecycle: "initialize
// runs on the heavy-init lane"): while the one heavy permit is held the
// request is not even sent, and once the server has answered, the
// capabilities are not decoded (so the client does not start) until the
// permit is free again.
func TestInitializeRunsOnHeavyLane(t *testing.T) {
	rt, err := runtime.New(runtime.Options{Executor: workers.Config{PoolSize: 2, HeavyPermits: 1}})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	gate := t.TempDir()

	release := holdHeavyPermit(t, rt)
	c := startFake(t, rt, Config{}, fakeInitGateEnv+"="+gate)
	for range 20 {
		c.Poll(0)
		rt.Tick()
		time.Sleep(5 * time.Millisecond)
	}
	require.False(t, fileExists(filepath.Join(gate, "got-initialize")), "initialize was sent while the heavy lane was full")
	release()
	pump(t, rt, c, 20*time.Second, func() bool { return fileExists(filepath.Join(gate, "got-initialize")) })

	release = holdHeavyPermit(t, rt)
	require.NoError(t, os.WriteFile(filepath.Join(gate, "go"), nil, 0o644))
	pump(t, rt, c, 20*time.Second, func() bool { return c.Stats().Received >= 1 })
	for range 20 {
		c.Poll(0)
		rt.Tick()
		time.Sleep(5 * time.Millisecond)
	}
	require.False(t, c.Initialized(), "the initialize reply was decoded while the heavy lane was full")
	require.Nil(t, c.Capabilities())
	release()
	pump(t, rt, c, 20*time.Second, c.Initialized)
	require.NotNil(t, c.Capabilities())
	require.Equal(t, "fake", c.Capabilities().ServerInfo.Name)
}
