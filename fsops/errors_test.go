//go:build unix

package fsops

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Acceptance: "The errno name (ENOENT, EEXIST, EACCES, ENOTEMPTY, ...) is
// available for the Lua binding", for OS errors from real operations, for
// the bad-input sentinels and for cancellation.
func TestErrnoNamesEveryFailureForTheLuaBinding(t *testing.T) {
	root := fixture(t)
	p := func(s string) string { return filepath.Join(root, s) }
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, statErr := Stat(ctx, p("missing"))

	for name, err := range map[string]error{
		"ENOENT":    statErr,
		"EEXIST":    Rename(ctx, p("a.txt"), p("b.txt"), false),
		"ENOTEMPTY": Remove(ctx, p("sub")),
		"ENOTDIR":   Remove(ctx, p("a.txt/x")),
		"EISDIR":    Rename(ctx, p("a.txt"), p("empty"), true),
		"ECANCELED": Remove(cancelled, p("a.txt")),
		"EINVAL":    Chmod(ctx, p("a.txt"), 0o100000),
		"EILSEQ":    Remove(ctx, "\xff"),
		"EACCES":    Confine([]string{p("sub")}, p("a.txt")),
	} {
		require.Equal(t, name, Errno(err), "%v", err)
	}
	require.Equal(t, "EINVAL", Errno(Remove(ctx, "")))
	require.Equal(t, "EINVAL", Errno(Remove(ctx, "a\x00b")))
	require.Equal(t, "", Errno(nil))
	require.Equal(t, "", Errno(errors.New("not an OS error")))
	require.Equal(t, "", Errno(fmt.Errorf("wrapped: %w", &PathError{Op: "x", Path: "y", Err: fs.ErrPermission})),
		"a sentinel from elsewhere carries no errno: Errno does not guess")
}

// Acceptance: "Errors form a taxonomy callers can match with errors.Is /
// errors.As ... Messages name the op and the path".
func TestErrorsMatchTheOSSentinelsAndNameOpAndPath(t *testing.T) {
	root := fixture(t)
	ctx := context.Background()
	missing := filepath.Join(root, "missing")

	err := Remove(ctx, missing)
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.EqualError(t, err, `remove "`+missing+`": no such file or directory`)
	var pe *PathError
	require.ErrorAs(t, fmt.Errorf("job 7: %w", err), &pe, "As sees through the caller's own wrapping")
	require.Equal(t, "remove", pe.Op)
	require.Equal(t, missing, pe.Path)
	require.Empty(t, pe.Path2)

	err = Rename(ctx, filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt"), false)
	require.ErrorIs(t, err, fs.ErrExist)
	require.NotErrorIs(t, err, fs.ErrNotExist)
	require.NotErrorIs(t, err, ErrCancelled)
}

// Issue 12: a caller that knows only the standard library matches fsops'
// errors with its types: errors.As finds an *fs.PathError for every
// operation but rename, and an *os.LinkError (Old, New) for a rename, with
// the same cause, so errors.Is against fs.ErrNotExist and friends holds
// through either; the message is fsops' own.
func TestErrorsAreTheStandardPathAndLinkErrors(t *testing.T) {
	root := fixture(t)
	ctx := context.Background()
	missing := filepath.Join(root, "missing")

	for _, err := range []error{
		Remove(ctx, missing),
		Chmod(ctx, missing, 0o644),
		func() error { _, err := Stat(ctx, missing); return err }(),
		func() error { _, err := ReadDir(ctx, missing, Fatal); return err }(),
	} {
		var pe *fs.PathError
		require.ErrorAs(t, fmt.Errorf("job 7: %w", err), &pe, "%v", err)
		require.Equal(t, missing, pe.Path)
		require.NotEmpty(t, pe.Op)
		require.ErrorIs(t, pe, fs.ErrNotExist)
		var le *os.LinkError
		require.False(t, errors.As(err, &le), "only a rename is a LinkError")
	}

	from, to := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")
	err := Rename(ctx, from, to, false)
	var le *os.LinkError
	require.ErrorAs(t, err, &le)
	require.Equal(t, os.LinkError{Op: "rename", Old: from, New: to, Err: le.Err}, *le)
	require.ErrorIs(t, le, fs.ErrExist)
	var pe *fs.PathError
	require.False(t, errors.As(err, &pe), "a rename names two paths: a LinkError, not a PathError")
	require.EqualError(t, err, `rename "`+from+`" -> "`+to+`": destination exists`, "the message is fsops' own")

	err = Confine([]string{root}, "/")
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "confine", pe.Op)
	require.ErrorIs(t, pe, ErrEscapesRoot)
}

// Issue 12: every sentinel says it comes from fsops, as the standard
// library's do ("fs: ...", "os: ...").
func TestEverySentinelMessageStartsWithThePackageName(t *testing.T) {
	for _, err := range []error{ErrCancelled, ErrEmptyPath, ErrNULInPath, ErrNonUTF8Path, ErrEscapesRoot, ErrBadMode} {
		require.True(t, strings.HasPrefix(err.Error(), "fsops: "), "%q", err.Error())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Stat(ctx, "x")
	require.EqualError(t, err, `stat "x": fsops: cancelled`)
}

// Acceptance: Kind names used as the Lua entry's type.
func TestKindStringNamesEachKind(t *testing.T) {
	require.Equal(t, "file", KindFile.String())
	require.Equal(t, "dir", KindDir.String())
	require.Equal(t, "symlink", KindSymlink.String())
	require.Equal(t, "other", KindOther.String())
	require.Equal(t, "other", Kind(200).String())
}
