package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// project makes a folder whose .bin holds the given executables.
func project(t *testing.T, bins map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if len(bins) > 0 {
		require.NoError(t, os.Mkdir(filepath.Join(dir, ".bin"), 0o755))
	}
	for name, body := range bins {
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".bin", name), []byte(body), 0o755))
	}
	return dir
}

func openDB(t *testing.T) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "state", "pmacs", "trust.json"))
	require.NoError(t, err)
	return db
}

func status(t *testing.T, db *DB, folder string) Report {
	t.Helper()
	r, err := db.Status(folder)
	require.NoError(t, err)
	return r
}

// Issue 25, workspace trust: a folder is untrusted until the user allows
// it; the allow is stored (a new DB on the same file, as the next run of
// the editor, sees it) and lists what the folder allows.
func TestFolderIsUntrustedUntilAllowed(t *testing.T) {
	dir := project(t, map[string]string{"gopls": "#!/bin/sh\n"})
	db := openDB(t)

	r := status(t, db, dir)
	require.Equal(t, Untrusted, r.Status)
	require.False(t, r.Trusted())
	require.Equal(t, []string{".bin/gopls"}, r.Names())
	require.True(t, r.Decided.IsZero())
	_, err := os.Stat(db.Path())
	require.ErrorIs(t, err, os.ErrNotExist, "a status writes nothing")

	r, err = db.Allow(dir)
	require.NoError(t, err)
	require.Equal(t, Trusted, r.Status)

	again, err := Open(db.Path())
	require.NoError(t, err)
	r = status(t, again, dir)
	require.Equal(t, Trusted, r.Status)
	require.Equal(t, "trusted", r.Status.String())
	require.False(t, r.Decided.IsZero())
}

// Issue 25, workspace trust: a deny holds whatever the folder holds, and
// remove forgets the decision.
func TestDenyHoldsAndRemoveForgets(t *testing.T) {
	dir := project(t, map[string]string{"gopls": "#!/bin/sh\n"})
	db := openDB(t)
	r, err := db.Deny(dir)
	require.NoError(t, err)
	require.Equal(t, Denied, r.Status)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".bin", "gopls"), []byte("#!/bin/sh\necho other\n"), 0o755))
	require.Equal(t, Denied, status(t, db, dir).Status)

	_, err = db.Allow(dir)
	require.NoError(t, err)
	require.Equal(t, Trusted, status(t, db, dir).Status, "an allow replaces the deny")

	r, err = db.Remove(dir)
	require.NoError(t, err)
	require.Equal(t, Untrusted, r.Status)
	require.Equal(t, Untrusted, status(t, db, dir).Status)

	// A folder that is gone can still be forgotten.
	gone := project(t, nil)
	_, err = db.Deny(gone)
	require.NoError(t, err)
	require.NoError(t, os.Remove(gone))
	_, err = db.Remove(gone)
	require.NoError(t, err)
	data, err := os.ReadFile(db.Path())
	require.NoError(t, err)
	require.NotContains(t, string(data), gone)
}

// Issue 25, workspace trust: a trusted folder whose .bin/gopls changes
// (contents, mode, a new program, one removed) is Changed, not trusted,
// and the report says what changed, until it is allowed again. A rewrite
// that keeps the size and puts the modification time back is noticed too.
func TestChangedBinGoplsIsNotTrusted(t *testing.T) {
	dir := project(t, map[string]string{"gopls": "#!/bin/sh\necho a\n", "old": "#!/bin/sh\n"})
	gopls := filepath.Join(dir, ".bin", "gopls")
	db := openDB(t)
	_, err := db.Allow(dir)
	require.NoError(t, err)
	require.Equal(t, Trusted, status(t, db, dir).Status)

	st, err := os.Stat(gopls)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(gopls, []byte("#!/bin/sh\necho b\n"), 0o755))
	require.NoError(t, os.Chtimes(gopls, st.ModTime(), st.ModTime()))
	r := status(t, db, dir)
	require.Equal(t, Changed, r.Status)
	require.False(t, r.Trusted())
	require.Equal(t, []string{".bin/gopls changed"}, r.Changes)

	require.NoError(t, os.WriteFile(filepath.Join(dir, ".bin", "tool"), []byte("x"), 0o755))
	require.NoError(t, os.Remove(filepath.Join(dir, ".bin", "old")))
	r = status(t, db, dir)
	require.Equal(t, Changed, r.Status)
	require.Equal(t, []string{".bin/gopls changed", ".bin/tool added", ".bin/old removed"}, r.Changes)

	_, err = db.Allow(dir)
	require.NoError(t, err)
	require.Equal(t, Trusted, status(t, db, dir).Status)
	require.NoError(t, os.Chmod(gopls, 0o700))
	r = status(t, db, dir)
	require.Equal(t, Changed, r.Status, "a mode change is a change")
	require.Equal(t, []string{".bin/gopls changed"}, r.Changes)
}

// Issue 25, workspace trust: decisions are keyed by the folder's real
// path, so a symlink to a folder shares its decision; a program in .bin
// that is a symlink is covered by its target's contents and by where it
// points.
func TestSymlinkedFolderSharesItsDecision(t *testing.T) {
	dir := project(t, nil)
	outside := filepath.Join(t.TempDir(), "real-gopls")
	require.NoError(t, os.WriteFile(outside, []byte("#!/bin/sh\necho 1\n"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".bin"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, ".bin", "gopls")))
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(dir, link))
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)

	db := openDB(t)
	r, err := db.Allow(link)
	require.NoError(t, err)
	require.Equal(t, real, r.Folder)
	require.Equal(t, Trusted, status(t, db, dir).Status)
	data, err := os.ReadFile(db.Path())
	require.NoError(t, err)
	require.Contains(t, string(data), fmt.Sprintf("%q", real))
	require.NotContains(t, string(data), fmt.Sprintf("%q", link))

	require.NoError(t, os.WriteFile(outside, []byte("#!/bin/sh\necho 2\n"), 0o755))
	r = status(t, db, link)
	require.Equal(t, Changed, r.Status, "the link's target changed")

	_, err = db.Allow(dir)
	require.NoError(t, err)
	other := filepath.Join(t.TempDir(), "other")
	require.NoError(t, os.WriteFile(other, []byte("#!/bin/sh\necho 2\n"), 0o755))
	require.NoError(t, os.Remove(filepath.Join(dir, ".bin", "gopls")))
	require.NoError(t, os.Symlink(other, filepath.Join(dir, ".bin", "gopls")))
	require.Equal(t, Changed, status(t, db, dir).Status, "the same contents through another link")
}

// Issue 25, workspace trust: a database file that is not one this package
// wrote is a clear error naming it, never a panic and never trust; it is
// not overwritten.
func TestCorruptOrForeignDatabaseIsAnErrorAndNeverTrusts(t *testing.T) {
	dir := project(t, map[string]string{"gopls": "#!/bin/sh\n"})
	real, err := RealFolder(dir)
	require.NoError(t, err)
	good := func(decision, hash string) string {
		b, _ := json.Marshal(map[string]any{"version": 1, "folders": map[string]any{real: map[string]any{"decision": decision, "hash": hash}}})
		return string(b)
	}
	sha := "sha256:" + fmt.Sprintf("%064x", 0)
	for name, tc := range map[string]struct {
		body string
		mode os.FileMode
		want string
	}{
		"garbage":         {"\x00\x01 not json", 0o600, "not a JSON object"},
		"truncated":       {`{"version": 1, "folders": {`, 0o600, "not a JSON object"},
		"array":           {`[1, 2]`, 0o600, "not a JSON object"},
		"no version":      {`{"folders": {}}`, 0o600, "no version"},
		"newer version":   {`{"version": 2, "folders": {}}`, 0o600, "version 2"},
		"string version":  {`{"version": "1"}`, 0o600, `version "1"`},
		"unknown field":   {`{"version": 1, "folders": {}, "extra": true}`, 0o600, "unknown field"},
		"folders a list":  {`{"version": 1, "folders": []}`, 0o600, "cannot unmarshal"},
		"relative folder": {`{"version": 1, "folders": {"proj": {"decision": "allow", "hash": "` + sha + `"}}}`, 0o600, "not a clean absolute path"},
		"null entry":      {`{"version": 1, "folders": {"/x": null}}`, 0o600, "has no decision"},
		"odd decision":    {good("maybe", ""), 0o600, `decision "maybe"`},
		"bad hash":        {good("allow", "md5:abc"), 0o600, "not a sha256 digest"},
		"others write it": {good("allow", sha), 0o666, "others may write"},
	} {
		t.Run(name, func(t *testing.T) {
			db := openDB(t)
			require.NoError(t, os.MkdirAll(filepath.Dir(db.Path()), 0o700))
			require.NoError(t, os.WriteFile(db.Path(), []byte(tc.body), 0o600))
			require.NoError(t, os.Chmod(db.Path(), tc.mode))

			r, err := db.Status(dir)
			require.ErrorIs(t, err, ErrCorrupt)
			require.ErrorContains(t, err, db.Path())
			require.ErrorContains(t, err, tc.want)
			require.Equal(t, Untrusted, r.Status)
			require.Equal(t, []string{".bin/gopls"}, r.Names(), "the report still says what the folder holds")

			_, err = db.Allow(dir)
			require.ErrorIs(t, err, ErrCorrupt)
			_, err = db.Deny(dir)
			require.ErrorIs(t, err, ErrCorrupt)
			_, err = db.Remove(dir)
			require.ErrorIs(t, err, ErrCorrupt)
			data, err := os.ReadFile(db.Path())
			require.NoError(t, err)
			require.Equal(t, tc.body, string(data), "the file is left as it was")
		})
	}

	db := openDB(t)
	require.NoError(t, os.MkdirAll(db.Path(), 0o700))
	_, err = db.Status(dir)
	require.ErrorIs(t, err, ErrCorrupt, "a directory where the file should be")
}

// Issue 25, workspace trust: the database is written atomically, readable
// only by the user, in a directory only the user may enter.
func TestDatabaseIsPrivateAndWrittenWhole(t *testing.T) {
	dir := project(t, map[string]string{"gopls": "#!/bin/sh\n"})
	db := openDB(t)
	_, err := db.Allow(dir)
	require.NoError(t, err)
	st, err := os.Stat(db.Path())
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	dst, err := os.Stat(filepath.Dir(db.Path()))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), dst.Mode().Perm())
	names, err := os.ReadDir(filepath.Dir(db.Path()))
	require.NoError(t, err)
	for _, n := range names {
		require.Contains(t, []string{"trust.json", "trust.json.lock"}, n.Name(), "no temporary file is left")
	}
	var f map[string]any
	data, err := os.ReadFile(db.Path())
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &f))
	require.EqualValues(t, 1, f["version"])
}

// Issue 25, workspace trust: decisions from two databases on one file (two
// editors) made at once are all kept: each change is a read-modify-write
// under the file lock.
func TestConcurrentDecisionsAreAllKept(t *testing.T) {
	a := openDB(t)
	b, err := Open(a.Path())
	require.NoError(t, err)
	var folders []string
	for range 16 {
		folders = append(folders, project(t, nil))
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(folders))
	for i, f := range folders {
		db := a
		if i%2 == 1 {
			db = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := db.Allow(f)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	for _, f := range folders {
		require.Equal(t, Trusted, status(t, a, f).Status, f)
	}
}

// Issue 25, workspace trust: the state directory follows XDG_STATE_HOME,
// and a relative or missing one falls back to ~/.local/state.
func TestDefaultPathFollowsXDGStateHome(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	p, err := DefaultPath()
	require.NoError(t, err)
	require.Equal(t, "/state/pmacs/trust.json", p)

	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"", "relative/state"} {
		t.Setenv("XDG_STATE_HOME", v)
		p, err = DefaultPath()
		require.NoError(t, err)
		require.Equal(t, filepath.Join(home, ".local", "state", "pmacs", "trust.json"), p)
	}

	_, err = Open("relative.json")
	require.ErrorContains(t, err, "not absolute")
}

// Issue 25, workspace trust: what a folder allows is bounded and read
// without blocking: a FIFO in .bin is listed, never read; a folder past
// the bounds cannot be trusted; a folder that is not a directory is an
// error.
func TestAllowedIsBoundedAndNeverBlocks(t *testing.T) {
	dir := project(t, map[string]string{"gopls": "x"})
	if err := mkfifo(filepath.Join(dir, ".bin", "fifo")); err != nil {
		t.Skip(err)
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".bin", "sub"), 0o755))
	require.NoError(t, os.Symlink("nowhere", filepath.Join(dir, ".bin", "dangling")))
	done := make(chan []Item, 1)
	go func() {
		items, err := Allowed(dir)
		if err != nil {
			items = nil
		}
		done <- items
	}()
	var items []Item
	select {
	case items = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Allowed blocked on a FIFO")
	}
	hashes := map[string]string{}
	for _, it := range items {
		hashes[it.Name] = it.Hash
	}
	require.Equal(t, "special", hashes[".bin/fifo"])
	require.Equal(t, "dir", hashes[".bin/sub"])
	require.Equal(t, "missing", hashes[".bin/dangling"])
	require.Regexp(t, `^sha256:[0-9a-f]{64}$`, hashes[".bin/gopls"])

	none, err := Allowed(project(t, nil))
	require.NoError(t, err)
	require.Empty(t, none)

	many := project(t, nil)
	require.NoError(t, os.Mkdir(filepath.Join(many, ".bin"), 0o755))
	for i := range maxItems + 1 {
		require.NoError(t, os.WriteFile(filepath.Join(many, ".bin", fmt.Sprint(i)), nil, 0o755))
	}
	db := openDB(t)
	_, err = db.Allow(many)
	require.ErrorIs(t, err, ErrTooLarge)
	r, err := db.Status(many)
	require.ErrorIs(t, err, ErrTooLarge)
	require.Equal(t, Untrusted, r.Status)

	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = db.Allow(file)
	require.ErrorContains(t, err, "not a directory")
	_, err = db.Status(filepath.Join(file, "missing"))
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrCorrupt))
	r, err = db.Status(filepath.Join(many, "gone"))
	require.NoError(t, err, "a folder that does not exist allows nothing")
	require.Equal(t, Untrusted, r.Status)
	require.Empty(t, r.Items)
}
