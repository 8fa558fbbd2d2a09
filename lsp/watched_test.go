package lsp

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/fileuri"
)

// fakeWatched is what the fake server was told of watching: what
// initialize announced, and each didChangeWatchedFiles's changes.
type fakeWatched struct {
	Announced     map[string]bool `json:"announced"`
	Notifications []struct {
		N       int `json:"n"`
		Changes []struct {
			URI  string `json:"uri"`
			Type int    `json:"type"`
		} `json:"changes"`
	} `json:"notifications"`
}

func readFakeWatched(t *testing.T, c *Client) fakeWatched {
	t.Helper()
	o, res := await(t, c.rt, c, c.Request("fake/watched", nil, RequestOptions{}))
	require.True(t, o.OK(), "%v", o.Err)
	var w fakeWatched
	require.NoError(t, json.Unmarshal(res.Value.(jsontext.Value), &w))
	return w
}

// A client told the host watches files announces dynamic registration of
// didChangeWatchedFiles; the watchers a server registers (a string glob,
// a RelativePattern, a kind mask) are compiled then; the changes handed
// over reach the server only where a watcher's glob and kind want them, in
// notifications of at most MaxFileEvents; unregistering and stopping take
// the watchers back and say so.
func TestWatchedFilesFollowTheRegisteredGlobsAndKinds(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{WatchFiles: true}, fakeCapsEnv+`={}`)
	pump(t, rt, c, 20*time.Second, func() bool { return c.Capabilities() != nil })
	require.Empty(t, c.FileWatchers())
	require.False(t, c.TakeWatchersChanged())
	n, err := c.DidChangeWatchedFiles([]FileChange{{Path: "/w/a.go", Type: FileCreated}})
	require.NoError(t, err)
	require.Zero(t, n, "no watcher, nothing sent")

	base := t.TempDir()
	_, code := serverRequest(t, c, "client/registerCapability", map[string]any{"registrations": []any{
		map[string]any{"id": "go", "method": MethodDidChangeWatchedFiles, "registerOptions": map[string]any{"watchers": []any{
			map[string]any{"globPattern": "**/*.go"},
			map[string]any{"globPattern": map[string]any{"baseUri": fileuri.FromPath(base), "pattern": "conf/*.json"}, "kind": 1 | 4},
		}}},
		map[string]any{"id": "folder", "method": MethodDidChangeWatchedFiles, "registerOptions": map[string]any{"watchers": []any{
			map[string]any{"globPattern": map[string]any{"baseUri": map[string]any{"uri": fileuri.FromPath(base), "name": "w"}, "pattern": "*.mod"}},
		}}},
	}})
	require.Zero(t, code)
	require.True(t, c.TakeWatchersChanged())
	require.False(t, c.TakeWatchersChanged(), "taken once")
	ws := c.FileWatchers()
	require.Len(t, ws, 3)
	require.Equal(t, "**/*.go", ws[0].Glob.String())
	require.Equal(t, 7, ws[0].Kind)
	require.Equal(t, base, ws[1].Base)
	require.Equal(t, 5, ws[1].Kind)
	require.Equal(t, "folder", ws[2].ID)

	conf := filepath.Join(base, "conf", "x.json")
	n, err = c.DidChangeWatchedFiles([]FileChange{
		{Path: "/elsewhere/a.go", Type: FileChanged},
		{Path: "/elsewhere/a.txt", Type: FileChanged},            // no glob
		{Path: conf, Type: FileCreated},                          // the relative pattern
		{Path: conf, Type: FileChanged},                          // its kind has no change
		{Path: filepath.Join(base, "go.mod"), Type: FileDeleted}, // the folder's
		{Path: "/elsewhere/go.mod", Type: FileDeleted},           // outside its base
	})
	require.NoError(t, err)
	require.Equal(t, 3, n)
	many := make([]FileChange, MaxFileEvents+10)
	for i := range many {
		many[i] = FileChange{Path: filepath.Join(base, "gen", "f"+string(rune('a'+i%26))+".go"), Type: FileCreated}
	}
	n, err = c.DidChangeWatchedFiles(many)
	require.NoError(t, err)
	require.Equal(t, len(many), n)
	_, err = c.DidChangeWatchedFiles([]FileChange{{Path: "/x.go", Type: 9}})
	require.ErrorContains(t, err, "change type 9")

	w := readFakeWatched(t, c)
	require.Equal(t, map[string]bool{"dynamicRegistration": true, "relativePatternSupport": true}, w.Announced)
	require.Len(t, w.Notifications, 3)
	first := w.Notifications[0].Changes
	require.Len(t, first, 3)
	require.Equal(t, fileuri.FromPath("/elsewhere/a.go"), first[0].URI)
	require.Equal(t, 2, first[0].Type)
	require.Equal(t, fileuri.FromPath(conf), first[1].URI)
	require.Equal(t, 1, first[1].Type)
	require.Equal(t, 3, first[2].Type)
	require.Equal(t, MaxFileEvents, w.Notifications[1].N, "a notification is bounded")
	require.Equal(t, 10, w.Notifications[2].N)

	// A watcher whose glob does not compile refuses its registration whole.
	_, code = serverRequest(t, c, "client/registerCapability", map[string]any{"registrations": []any{
		map[string]any{"id": "bad", "method": MethodDidChangeWatchedFiles, "registerOptions": map[string]any{"watchers": []any{
			map[string]any{"globPattern": "**/*.{go"}}}},
	}})
	require.Equal(t, CodeInvalidParams, code)
	_, code = serverRequest(t, c, "client/registerCapability", map[string]any{"registrations": []any{
		map[string]any{"id": "badkind", "method": MethodDidChangeWatchedFiles, "registerOptions": map[string]any{"watchers": []any{
			map[string]any{"globPattern": "*", "kind": 8}}}},
	}})
	require.Equal(t, CodeInvalidParams, code)
	require.False(t, c.TakeWatchersChanged())
	require.Len(t, c.FileWatchers(), 3)

	_, code = serverRequest(t, c, "client/unregisterCapability", map[string]any{"unregisterations": []any{
		map[string]any{"id": "go", "method": MethodDidChangeWatchedFiles}}})
	require.Zero(t, code)
	require.True(t, c.TakeWatchersChanged())
	require.Len(t, c.FileWatchers(), 1)

	c.Stop()
	require.True(t, c.TakeWatchersChanged())
	require.Empty(t, c.FileWatchers(), "a stopping client wants no watching")
}

// Without WatchFiles the client announces no file watching, so a server
// watches by itself or not at all.
func TestWatchedFilesAreNotAnnouncedUnlessAsked(t *testing.T) {
	rt := newRT(t)
	c := startFake(t, rt, Config{}, fakeCapsEnv+`={}`)
	pump(t, rt, c, 20*time.Second, func() bool { return c.Capabilities() != nil })
	require.Nil(t, readFakeWatched(t, c).Announced)
}
