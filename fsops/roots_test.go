//go:build unix

package fsops

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Acceptance (issue 11 defect 8): confining an operation changes nothing
// but where it may reach. Every operation on every path the checks let
// through, including the odd ones (".", "..", a trailing separator, a
// missing parent, a link in a parent, the root itself), gives the same
// value, the same error text and errno, and the same tree through Roots as
// the unconfined operation does on an identical tree; and every path the
// checks refuse is refused by Roots with ErrEscapesRoot, touching nothing.
func TestRootsActLikeTheUnconfinedOperationsInsideAndRefuseOutside(t *testing.T) {
	rootsActLikeUnconfined(t, nil)
}

// rootsActLikeUnconfined runs the comparison, except on the cases in
// differ, which name the operation and path and say why they differ.
func rootsActLikeUnconfined(t *testing.T, differ map[string]string) {
	ctx := context.Background()
	paths := []string{
		"", "/", "a.txt", "sub/c.txt", "sub/../a.txt", "missing", "missing/deeper",
		"missing/../a.txt", "dirlink/c.txt", "dirlink", "dirlink/", "link", "dangling",
		"sub/.", "sub/..", "empty/", "fifo", "a.txt/", "a.txt/x", "out", "out/secret",
		"absout/secret", "out/", "../outside/secret", "sub/../../outside/secret",
	}
	type op struct {
		name string
		run  func(fsys fileOps, root, p string) (string, error)
	}
	ops := []op{
		{"stat", func(f fileOps, _, p string) (string, error) {
			e, err := f.Stat(ctx, p)
			e.MTime = 0
			return fmt.Sprint(e), err
		}},
		{"readdir", func(f fileOps, _, p string) (string, error) {
			l, err := f.ReadDir(ctx, p, PerEntry)
			for i := range l.Entries {
				l.Entries[i].MTime = 0
			}
			return fmt.Sprint(l.Entries, len(l.Errors)), err
		}},
		{"chmod", func(f fileOps, _, p string) (string, error) { return "", f.Chmod(ctx, p, 0o700) }},
		{"remove", func(f fileOps, _, p string) (string, error) { return "", f.Remove(ctx, p) }},
		{"mkdir", func(f fileOps, _, p string) (string, error) { return "", f.Mkdir(ctx, p) }},
		{"rename from", func(f fileOps, root, p string) (string, error) {
			return "", f.Rename(ctx, p, filepath.Join(root, "renamed"), false)
		}},
		{"rename over", func(f fileOps, root, p string) (string, error) {
			return "", f.Rename(ctx, p, filepath.Join(root, "b.txt"), true)
		}},
		{"rename to", func(f fileOps, root, p string) (string, error) {
			return "", f.Rename(ctx, filepath.Join(root, "a.txt"), p, false)
		}},
	}
	for _, o := range ops {
		for _, rel := range paths {
			t.Run(o.name+" "+rel, func(t *testing.T) {
				if why, ok := differ[o.name+" "+rel]; ok {
					t.Skip(why)
				}
				baseA, rootA, _ := confineFixture(t)
				baseB, rootB, _ := confineFixture(t)
				pa, pb := rootA+"/"+rel, rootB+"/"+rel
				check := Confine
				if o.name == "readdir" {
					check = ConfineFollow
				}
				if check([]string{rootB}, pb) != nil || (strings.HasPrefix(o.name, "rename") && check([]string{rootB}, filepath.Join(rootB, "a.txt")) != nil) {
					requireUnchanged(t, baseB, func() {
						_, err := o.run(Roots{rootB}, rootB, pb)
						require.ErrorIs(t, err, ErrEscapesRoot)
					})
					return
				}
				wantVal, wantErr := o.run(unconfinedOps{}, rootA, pa)
				gotVal, gotErr := o.run(Roots{rootB}, rootB, pb)
				require.Equal(t, strings.ReplaceAll(wantVal, baseA, "BASE"), strings.ReplaceAll(gotVal, baseB, "BASE"))
				require.Equal(t, Errno(wantErr), Errno(gotErr), "confined: %v, unconfined: %v", gotErr, wantErr)
				if wantErr != nil {
					require.Equal(t, strings.ReplaceAll(wantErr.Error(), baseA, "BASE"), strings.ReplaceAll(gotErr.Error(), baseB, "BASE"))
				}
				require.Equal(t, portableSnapshot(t, baseA), portableSnapshot(t, baseB), "the trees differ after the operation")
			})
		}
	}
}

// fileOps is what the package's functions and Roots' methods share.
type fileOps interface {
	ReadDir(ctx context.Context, path string, tol Tolerance) (Listing, error)
	Stat(ctx context.Context, path string) (Entry, error)
	Rename(ctx context.Context, from, to string, overwrite bool) error
	Chmod(ctx context.Context, path string, mode uint32) error
	Remove(ctx context.Context, path string) error
	Mkdir(ctx context.Context, path string) error
}

type unconfinedOps struct{}

func (unconfinedOps) ReadDir(ctx context.Context, path string, tol Tolerance) (Listing, error) {
	return ReadDir(ctx, path, tol)
}
func (unconfinedOps) Stat(ctx context.Context, path string) (Entry, error) { return Stat(ctx, path) }
func (unconfinedOps) Rename(ctx context.Context, from, to string, overwrite bool) error {
	return Rename(ctx, from, to, overwrite)
}
func (unconfinedOps) Chmod(ctx context.Context, path string, mode uint32) error {
	return Chmod(ctx, path, mode)
}
func (unconfinedOps) Remove(ctx context.Context, path string) error { return Remove(ctx, path) }
func (unconfinedOps) Mkdir(ctx context.Context, path string) error  { return Mkdir(ctx, path) }

// portableSnapshot is snapshot with base replaced in link targets, so two
// fixtures built in different places compare equal.
func portableSnapshot(t *testing.T, base string) map[string]node {
	out := snapshot(t, base)
	for k, n := range out {
		n.Target = strings.ReplaceAll(n.Target, base, "BASE")
		out[k] = n
	}
	return out
}
