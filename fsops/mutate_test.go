//go:build unix

package fsops

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// Acceptance: Rename success path for a file and a directory (with contents).
func TestRenameMovesFilesAndDirectories(t *testing.T) {
	root := fixture(t)
	ctx := context.Background()
	require.NoError(t, Rename(ctx, filepath.Join(root, "a.txt"), filepath.Join(root, "z.txt"), false))
	require.Equal(t, "alpha", readString(t, filepath.Join(root, "z.txt")))
	require.NoFileExists(t, filepath.Join(root, "a.txt"))

	require.NoError(t, Rename(ctx, filepath.Join(root, "sub"), filepath.Join(root, "empty", "moved"), false))
	require.Equal(t, "charlie", readString(t, filepath.Join(root, "empty", "moved", "c.txt")))
	require.NoDirExists(t, filepath.Join(root, "sub"))
}

// Acceptance: "refuses to replace an existing destination unless the caller
// asks (overwrite option), atomically".
func TestRenameRefusesAnExistingDestinationUnlessOverwrite(t *testing.T) {
	root := fixture(t)
	ctx := context.Background()
	from, to := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")

	requireUnchanged(t, root, func() {
		err := Rename(ctx, from, to, false)
		require.ErrorIs(t, err, fs.ErrExist)
		requireErrno(t, err, "EEXIST")
		require.EqualError(t, err, `rename "`+from+`" -> "`+to+`": destination exists`)
		var pe *PathError
		require.ErrorAs(t, err, &pe)
		require.Equal(t, PathError{Op: "rename", Path: from, Path2: to, Err: pe.Err}, *pe)

		// A directory destination is refused too, even an empty one.
		require.ErrorIs(t, Rename(ctx, filepath.Join(root, "sub"), filepath.Join(root, "empty"), false), fs.ErrExist)
		// So is a dangling symlink: the name exists.
		require.ErrorIs(t, Rename(ctx, from, filepath.Join(root, "dangling"), false), fs.ErrExist)
	})

	require.NoError(t, Rename(ctx, from, to, true))
	require.Equal(t, "alpha", readString(t, to))
	require.NoFileExists(t, from)
}

// Acceptance: a symlink (dangling or not) is renamed as a link; its target
// is untouched.
func TestRenameActsOnTheSymlinkNotItsTarget(t *testing.T) {
	root := fixture(t)
	ctx := context.Background()
	require.NoError(t, Rename(ctx, filepath.Join(root, "dangling"), filepath.Join(root, "dangling2"), false))
	target, err := os.Readlink(filepath.Join(root, "dangling2"))
	require.NoError(t, err)
	require.Equal(t, "nowhere", target)

	require.NoError(t, Rename(ctx, filepath.Join(root, "link"), filepath.Join(root, "link2"), false))
	e, err := Stat(ctx, filepath.Join(root, "link2"))
	require.NoError(t, err)
	require.Equal(t, KindSymlink, e.Kind)
	require.Equal(t, "alpha", readString(t, filepath.Join(root, "a.txt")))
}

// Acceptance: every bad input to Rename gets its own clear error and the
// tree is left exactly as it was.
func TestRenameRefusesBadInputWithItsOwnErrorAndTouchesNothing(t *testing.T) {
	root := fixture(t)
	p := func(s string) string { return filepath.Join(root, s) }
	cases := []struct {
		name, from, to string
		overwrite      bool
		errno, msg     string
	}{
		{"empty source", "", p("x"), false, "EINVAL", "empty path"},
		{"empty destination", p("a.txt"), "", true, "EINVAL", "empty path"},
		{"NUL in source", p("a.txt\x00"), p("x"), false, "EINVAL", "NUL"},
		{"NUL in destination", p("a.txt"), p("x\x00y"), true, "EINVAL", "NUL"},
		{"non-UTF-8 destination", p("a.txt"), p("\xff"), false, "EILSEQ", "UTF-8"},
		{"missing source", p("missing"), p("x"), false, "ENOENT", "source does not exist"},
		{"missing destination parent", p("a.txt"), p("missing/x"), false, "ENOENT", "destination's parent directory does not exist"},
		{"missing destination parent, overwrite", p("a.txt"), p("missing/x"), true, "ENOENT", "destination's parent directory does not exist"},
		{"file where a directory is expected (source)", p("a.txt/x"), p("x"), false, "ENOTDIR", "not a directory"},
		{"file where a directory is expected (destination)", p("b.txt"), p("a.txt/x"), false, "ENOTDIR", "not a directory"},
		{"directory over a file, overwrite", p("empty"), p("a.txt"), true, "ENOTDIR", "not a directory"},
		{"file over a directory, overwrite", p("a.txt"), p("empty"), true, "EISDIR", "is a directory"},
		{"directory over a non-empty directory, overwrite", p("empty"), p("sub"), true, "ENOTEMPTY", "non-empty directory"},
		{"directory into itself", p("sub"), p("sub/inner"), false, "EINVAL", "invalid argument"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			requireUnchanged(t, root, func() {
				err := Rename(context.Background(), c.from, c.to, c.overwrite)
				requireErrno(t, err, c.errno)
				require.ErrorContains(t, err, c.msg)
				var pe *PathError
				require.ErrorAs(t, err, &pe)
				require.Equal(t, "rename", pe.Op)
				require.Equal(t, c.from, pe.Path)
				require.Equal(t, c.to, pe.Path2)
			})
		})
	}
}

// Acceptance: "Chmod(path, mode)" with octal modes including setuid, setgid
// and sticky; Stat reads back exactly what was set.
func TestChmodSetsOctalModesExactly(t *testing.T) {
	root := fixture(t)
	ctx := context.Background()
	file, dir := filepath.Join(root, "a.txt"), filepath.Join(root, "empty")
	for _, c := range []struct {
		path string
		mode uint32
	}{
		{file, 0o600}, {file, 0o755}, {file, 0o4755}, {file, 0o2750}, {file, 0},
		{dir, 0o1777}, {dir, 0o700}, {dir, 0o2775},
	} {
		require.NoError(t, Chmod(ctx, c.path, c.mode))
		e, err := Stat(ctx, c.path)
		require.NoError(t, err)
		require.Equal(t, c.mode, e.Mode, "%s %04o", c.path, c.mode)
	}
	require.NoError(t, Chmod(ctx, dir, 0o755))
}

// Acceptance: Chmod's bad input, including a symlink (refused, the target
// keeps its mode) and a dangling symlink, each with its own error and the
// tree untouched.
func TestChmodRefusesBadInputAndSymlinksAndTouchesNothing(t *testing.T) {
	root := fixture(t)
	p := func(s string) string { return filepath.Join(root, s) }
	cases := []struct {
		name, path string
		mode       uint32
		errno, msg string
	}{
		{"bits outside 07777", p("a.txt"), 0o10644, "EINVAL", "outside 07777"},
		{"empty path", "", 0o644, "EINVAL", "empty path"},
		{"NUL byte", p("a\x00.txt"), 0o644, "EINVAL", "NUL"},
		{"non-UTF-8 path", p("\xff"), 0o644, "EILSEQ", "UTF-8"},
		{"missing", p("missing"), 0o644, "ENOENT", "no such file"},
		{"missing parent", p("missing/x"), 0o644, "ENOENT", "no such file"},
		{"file where a directory is expected", p("a.txt/x"), 0o644, "ENOTDIR", "not a directory"},
		{"symlink", p("link"), 0o777, "ENOTSUP", "is a symlink"},
		{"dangling symlink", p("dangling"), 0o777, "ENOTSUP", "is a symlink"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			requireUnchanged(t, root, func() {
				err := Chmod(context.Background(), c.path, c.mode)
				requireErrno(t, err, c.errno)
				require.ErrorContains(t, err, c.msg)
				var pe *PathError
				require.ErrorAs(t, err, &pe)
				require.Equal(t, "chmod", pe.Op)
				require.Equal(t, c.path, pe.Path)
			})
		})
	}
}

// Acceptance: "Remove(path): a file, a symlink (never its target) or an
// empty directory".
func TestRemoveDeletesFilesSymlinksAndEmptyDirectoriesButNeverATarget(t *testing.T) {
	root := fixture(t)
	ctx := context.Background()
	p := func(s string) string { return filepath.Join(root, s) }

	require.NoError(t, Remove(ctx, p("link")))
	require.NoFileExists(t, p("link"))
	require.Equal(t, "alpha", readString(t, p("a.txt")), "the link's target survives")

	require.NoError(t, Remove(ctx, p("dirlink")))
	require.FileExists(t, p("sub/c.txt"), "a link to a directory is removed as a link")

	require.NoError(t, Remove(ctx, p("dangling")))
	require.NoError(t, Remove(ctx, p("a.txt")))
	require.NoError(t, Remove(ctx, p("fifo")))
	require.NoError(t, Remove(ctx, p("empty")))
	require.NoDirExists(t, p("empty"))
}

// Acceptance: "a non-empty directory is an error, never a silent recursive
// delete", plus Remove's bad input; the tree is left exactly as it was.
func TestRemoveRefusesNonEmptyDirectoriesAndBadInputAndTouchesNothing(t *testing.T) {
	root := fixture(t)
	p := func(s string) string { return filepath.Join(root, s) }
	cases := []struct {
		name, path, errno, msg string
	}{
		{"non-empty directory", p("sub"), "ENOTEMPTY", "never recursive"},
		{"empty path", "", "EINVAL", "empty path"},
		{"NUL byte", p("a.txt\x00"), "EINVAL", "NUL"},
		{"non-UTF-8 path", p("\x80"), "EILSEQ", "UTF-8"},
		{"missing", p("missing"), "ENOENT", "no such file"},
		{"missing parent", p("missing/x"), "ENOENT", "no such file"},
		{"file where a directory is expected", p("a.txt/x"), "ENOTDIR", "not a directory"},
		{"symlinked directory with a trailing slash", p("dirlink") + "/", "ENOTDIR", "not a directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			requireUnchanged(t, root, func() {
				err := Remove(context.Background(), c.path)
				requireErrno(t, err, c.errno)
				require.ErrorContains(t, err, c.msg)
				var pe *PathError
				require.ErrorAs(t, err, &pe)
				require.Equal(t, "remove", pe.Op)
				require.Equal(t, c.path, pe.Path)
			})
		})
	}
}

// Mkdir makes one directory whose parent exists, and refuses anything
// already at the path (a dangling symlink too: it is not created through),
// a missing parent, and bad input, touching nothing.
func TestMkdirMakesOneDirectoryAndRefusesWhatExists(t *testing.T) {
	root := fixture(t)
	p := func(s string) string { return filepath.Join(root, s) }
	require.NoError(t, Mkdir(context.Background(), p("new")))
	require.DirExists(t, p("new"))
	require.NoError(t, Mkdir(context.Background(), p("sub/inner")))
	require.DirExists(t, p("sub/inner"))

	cases := []struct {
		name, path, errno, msg string
	}{
		{"existing directory", p("sub"), "EEXIST", "exists"},
		{"existing file", p("a.txt"), "EEXIST", "exists"},
		{"dangling symlink", p("dangling"), "EEXIST", "exists"},
		{"missing parent", p("missing/x"), "ENOENT", "no such file"},
		{"file where a directory is expected", p("a.txt/x"), "ENOTDIR", "not a directory"},
		{"empty path", "", "EINVAL", "empty path"},
		{"NUL byte", p("x\x00"), "EINVAL", "NUL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			requireUnchanged(t, root, func() {
				err := Mkdir(context.Background(), c.path)
				requireErrno(t, err, c.errno)
				require.ErrorContains(t, err, c.msg)
				if want := map[string]error{"EEXIST": fs.ErrExist, "ENOENT": fs.ErrNotExist}[c.errno]; want != nil {
					require.ErrorIs(t, err, want)
				}
				var pe *PathError
				require.ErrorAs(t, err, &pe)
				require.Equal(t, "mkdir", pe.Op)
				require.Equal(t, c.path, pe.Path)
			})
		})
	}
}

// Acceptance: a cancelled mutation did nothing: the error matches both
// ErrCancelled and context.Canceled and the tree is unchanged.
func TestCancelledOperationsTouchNothing(t *testing.T) {
	root := fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := func(s string) string { return filepath.Join(root, s) }
	requireUnchanged(t, root, func() {
		for _, err := range []error{
			Rename(ctx, p("a.txt"), p("new"), false),
			Rename(ctx, p("a.txt"), p("b.txt"), true),
			Chmod(ctx, p("a.txt"), 0o777),
			Remove(ctx, p("a.txt")),
			Mkdir(ctx, p("a.txt")),
			func() error { _, err := Stat(ctx, p("a.txt")); return err }(),
		} {
			require.ErrorIs(t, err, ErrCancelled)
			require.ErrorIs(t, err, context.Canceled)
			requireErrno(t, err, "ECANCELED")
			var pe *PathError
			require.ErrorAs(t, err, &pe)
			require.Equal(t, p("a.txt"), pe.Path)
		}
	})
}
