//go:build linux

package fsops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The model of a tree the fuzz target predicts against: every path under the
// root, relative and '/'-separated, with what lstat and read would show.
type modelNode struct {
	kind    string // "file", "dir" or "symlink"
	mode    uint32 // st_mode & 07777 (symlinks: 0777)
	content string // file contents, or the symlink target
}

type fsModel map[string]*modelNode

// The names ops are built from; paths are one or two of them deep. The
// symlink "l" points at "zz", a name no op creates, so it always dangles and
// a path through it fails as the kernel's walk does (ENOENT).
var fsModelNames = []string{"a", "b", "d", "e", "l"}

func initialModel() fsModel {
	return fsModel{
		"a":   {kind: "file", mode: 0o644, content: "alpha"},
		"b":   {kind: "file", mode: 0o600, content: "bravo!"},
		"d":   {kind: "dir", mode: 0o755},
		"d/a": {kind: "file", mode: 0o644, content: "inner"},
		"d/d": {kind: "dir", mode: 0o755},
		"e":   {kind: "dir", mode: 0o755},
		"l":   {kind: "symlink", mode: 0o777, content: "zz"},
	}
}

func writeModel(t *testing.T, root string, m fsModel) {
	t.Helper()
	paths := make([]string, 0, len(m))
	for p := range m {
		paths = append(paths, p)
	}
	sort.Strings(paths) // parents first
	for _, p := range paths {
		n, abs := m[p], filepath.Join(root, p)
		switch n.kind {
		case "dir":
			require.NoError(t, os.Mkdir(abs, 0o700))
		case "file":
			require.NoError(t, os.WriteFile(abs, []byte(n.content), 0o600))
		case "symlink":
			require.NoError(t, os.Symlink(n.content, abs))
		}
		if n.kind != "symlink" {
			require.NoError(t, os.Chmod(abs, os.FileMode(n.mode&0o777)|unixModeBits(n.mode)))
		}
	}
}

// unixModeBits turns setuid, setgid and sticky from chmod's octal layout
// into os.FileMode flags.
func unixModeBits(mode uint32) os.FileMode {
	var m os.FileMode
	if mode&0o4000 != 0 {
		m |= os.ModeSetuid
	}
	if mode&0o2000 != 0 {
		m |= os.ModeSetgid
	}
	if mode&0o1000 != 0 {
		m |= os.ModeSticky
	}
	return m
}

// readModel reads the real tree back into a model.
func readModel(t *testing.T, root string) fsModel {
	t.Helper()
	out := fsModel{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		if p == root {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		require.NoError(t, err)
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		n := &modelNode{mode: uint32(fi.Mode().Perm())}
		if fi.Mode()&os.ModeSetuid != 0 {
			n.mode |= 0o4000
		}
		if fi.Mode()&os.ModeSetgid != 0 {
			n.mode |= 0o2000
		}
		if fi.Mode()&os.ModeSticky != 0 {
			n.mode |= 0o1000
		}
		switch {
		case fi.IsDir():
			n.kind = "dir"
		case fi.Mode().IsRegular():
			n.kind = "file"
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			n.content = string(b)
		case fi.Mode()&os.ModeSymlink != 0:
			n.kind = "symlink"
			n.content, err = os.Readlink(p)
			require.NoError(t, err)
		default:
			t.Fatalf("unexpected entry %s (%v)", rel, fi.Mode())
		}
		out[filepath.ToSlash(rel)] = n
		return nil
	})
	require.NoError(t, err)
	return out
}

func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func inTree(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// walkParent is the kernel's walk to p's parent: every component but the
// last must be a directory (a symlink is followed, and ours dangle).
func (m fsModel) walkParent(p string) string {
	parts := strings.Split(p, "/")
	for i := range len(parts) - 1 {
		n := m[strings.Join(parts[:i+1], "/")]
		switch {
		case n == nil || n.kind == "symlink":
			return "ENOENT"
		case n.kind != "dir":
			return "ENOTDIR"
		}
	}
	return ""
}

func (m fsModel) hasChildren(dir string) bool {
	for p := range m {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// rename predicts rename(2) / renameat2(RENAME_NOREPLACE) in the order the
// kernel checks, and applies it to the model when it succeeds.
func (m fsModel) rename(from, to string, overwrite bool) string {
	if e := m.walkParent(from); e != "" {
		return e
	}
	if e := m.walkParent(to); e != "" {
		return e
	}
	src, dst := m[from], m[to]
	switch {
	case src == nil:
		return "ENOENT"
	case !overwrite && dst != nil:
		return "EEXIST"
	case inTree(parentOf(to), from) && parentOf(to) != parentOf(from):
		return "EINVAL" // a directory into itself
	case inTree(parentOf(from), to) && parentOf(to) != parentOf(from):
		return "ENOTEMPTY" // onto its own ancestor
	case from == to:
		return ""
	case dst != nil && src.kind == "dir" && dst.kind != "dir":
		return "ENOTDIR"
	case dst != nil && src.kind != "dir" && dst.kind == "dir":
		return "EISDIR"
	case dst != nil && dst.kind == "dir" && m.hasChildren(to):
		return "ENOTEMPTY"
	}
	delete(m, to)
	moved := fsModel{}
	for p, n := range m {
		if inTree(p, from) {
			moved[to+p[len(from):]] = n
			delete(m, p)
		}
	}
	for p, n := range moved {
		m[p] = n
	}
	return ""
}

func (m fsModel) chmod(p string, mode uint32) string {
	if mode&^0o7777 != 0 {
		return "EINVAL"
	}
	if e := m.walkParent(p); e != "" {
		return e
	}
	switch n := m[p]; {
	case n == nil:
		return "ENOENT"
	case n.kind == "symlink":
		return chmodSymlinkErrno
	default:
		n.mode = mode
	}
	return ""
}

func (m fsModel) remove(p string) string {
	if e := m.walkParent(p); e != "" {
		return e
	}
	switch n := m[p]; {
	case n == nil:
		return "ENOENT"
	case n.kind == "dir" && m.hasChildren(p):
		return "ENOTEMPTY"
	}
	delete(m, p)
	return ""
}

// lookup predicts Stat (follow false) and ReadDir (follow true).
func (m fsModel) lookup(p string, follow bool) (*modelNode, string) {
	if e := m.walkParent(p); e != "" {
		return nil, e
	}
	n := m[p]
	switch {
	case n == nil || (follow && n.kind == "symlink"):
		return nil, "ENOENT"
	case follow && n.kind != "dir":
		return nil, "ENOTDIR"
	}
	return n, ""
}

// chmodSymlinkErrno is the name Errno gives Chmod's refusal of a symlink:
// EOPNOTSUPP and ENOTSUP are one number on Linux.
var chmodSymlinkErrno = errnoName(unix.EOPNOTSUPP)

// fsOpsDecoder turns fuzz bytes into ops.
type fsOpsDecoder struct{ b []byte }

func (d *fsOpsDecoder) next() byte {
	if len(d.b) == 0 {
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// path picks a path one or two names deep, or now and then one that must be
// refused before any syscall.
func (d *fsOpsDecoder) path() string {
	c := d.next()
	switch c {
	case 250:
		return ""
	case 251:
		return "a\xff"
	case 252:
		return "a\x00b"
	}
	first := fsModelNames[int(c)%len(fsModelNames)]
	if c/8%3 != 0 {
		return first
	}
	return first + "/" + fsModelNames[int(c/32)%len(fsModelNames)]
}

// confinedPrefix marks the confined run in a failure's description.
var confinedPrefix = map[bool]string{false: "", true: "confined: "}

// FuzzOpsMatchModel runs random sequences of rename (with and without
// overwrite), chmod, remove, stat and read_dir in a temporary root and checks
// each result against an in-memory model of the tree: the model predicts
// success or failure and the errno name, a failure leaves the tree unchanged,
// and after every op the real tree equals the model (issue 8: random fs op
// sequences checked against a model; issue 2: fs failures leave the tree
// unchanged). Each sequence runs again through Roots confined to the tree
// (issue 11 defect 8: confining changes nothing inside the roots).
func FuzzOpsMatchModel(f *testing.F) {
	// Op byte %6: 0 rename, 1 rename overwrite, 2 chmod, 3 remove, 4 stat,
	// 5 read_dir; +6 runs it under a cancelled context. Path byte: %5 picks
	// a, b, d, e, l; /8%3 == 0 adds a second name (/32%5); 250 "", 251
	// non-UTF-8, 252 NUL.
	f.Add([]byte{0, 0, 1, 0, 0, 1})                   // a -> b refused, EEXIST
	f.Add([]byte{1, 0, 1, 4, 1, 5, 2})                // a over b, stat b, read_dir d
	f.Add([]byte{1, 2, 3, 3, 2, 3, 3})                // d over e (dir over empty dir), remove
	f.Add([]byte{1, 2, 64, 0, 2, 98, 1, 0, 2})        // d into d/d, d onto its child's parent
	f.Add([]byte{2, 0, 0xff, 0o7, 2, 4, 0, 2, 2, 0})  // chmod a, chmod l
	f.Add([]byte{3, 2, 3, 3, 3, 4, 3, 0, 4})          // remove non-empty, empty, file, symlink
	f.Add([]byte{0, 4, 16, 4, 4, 5, 4, 5, 16, 5, 0})  // rename the symlink, walk through it
	f.Add([]byte{0, 250, 0, 0, 251, 0, 3, 252, 2, 0}) // refused paths
	f.Add([]byte{6, 0, 1, 9, 0, 8, 2, 0, 10, 0, 11, 2})
	f.Add([]byte{1, 0, 2, 1, 2, 0, 1, 3, 0, 0, 0, 3}) // file over dir, dir over file
	f.Add([]byte{1, 32, 64, 1, 66, 2, 5, 2, 5, 64})   // d/a over d/d, etc.
	f.Fuzz(func(t *testing.T, data []byte) {
		// Every sequence runs twice: unconfined, and through Roots confined
		// to the tree, which must answer exactly as the unconfined operations.
		for _, confined := range []bool{false, true} {
			root := t.TempDir()
			var fsys fileOps = unconfinedOps{}
			if confined {
				fsys = Roots{root}
			}
			model := initialModel()
			writeModel(t, root, model)
			cancelled, cancel := context.WithCancel(context.Background())
			cancel()
			abs := func(p string) string {
				if p == "" {
					return ""
				}
				return root + "/" + p
			}
			refused := func(p string) string {
				switch {
				case p == "", strings.IndexByte(p, 0) >= 0:
					return "EINVAL"
				case p == "a\xff":
					return "EILSEQ"
				}
				return ""
			}
			d := &fsOpsDecoder{b: data}
			for step := 0; step < 24 && len(d.b) > 0; step++ {
				op := d.next()
				ctx := context.Background()
				if op%12 >= 6 {
					ctx = cancelled
				}
				var desc, want, got string
				before := readModel(t, root)
				switch op % 6 {
				case 0, 1:
					from, to, overwrite := d.path(), d.path(), op%6 == 1
					desc = fmt.Sprintf(confinedPrefix[confined]+"rename %q -> %q overwrite=%v", from, to, overwrite)
					if want = refused(from); want == "" {
						want = refused(to)
					}
					if want == "" && ctx == cancelled {
						want = "ECANCELED"
					}
					if want == "" {
						want = model.rename(from, to, overwrite)
					}
					got = Errno(fsys.Rename(ctx, abs(from), abs(to), overwrite))
				case 2:
					p, mode := d.path(), uint32(d.next())|uint32(d.next())<<8
					if mode>>12 != 0xf { // mostly in range; 0xf... exercises ErrBadMode
						mode &= 0o7777
					}
					if n := model[p]; n != nil && n.kind == "dir" && mode&^0o7777 == 0 {
						mode |= 0o700 // keep directories walkable for a non-root run
					}
					if os.Getuid() != 0 {
						mode &^= 0o7000 // unprivileged setgid can be silently dropped
					}
					desc = fmt.Sprintf(confinedPrefix[confined]+"chmod %q %o", p, mode)
					if want = refused(p); want == "" && mode&^0o7777 != 0 {
						want = "EINVAL"
					}
					if want == "" && ctx == cancelled {
						want = "ECANCELED"
					}
					if want == "" {
						want = model.chmod(p, mode)
					}
					got = Errno(fsys.Chmod(ctx, abs(p), mode))
				case 3:
					p := d.path()
					desc = fmt.Sprintf(confinedPrefix[confined]+"remove %q", p)
					if want = refused(p); want == "" && ctx == cancelled {
						want = "ECANCELED"
					}
					if want == "" {
						want = model.remove(p)
					}
					got = Errno(fsys.Remove(ctx, abs(p)))
				case 4:
					p := d.path()
					desc = fmt.Sprintf(confinedPrefix[confined]+"stat %q", p)
					var n *modelNode
					if want = refused(p); want == "" && ctx == cancelled {
						want = "ECANCELED"
					}
					if want == "" {
						n, want = model.lookup(p, false)
					}
					e, err := fsys.Stat(ctx, abs(p))
					got = Errno(err)
					if err == nil && n != nil {
						require.Equal(t, p[strings.LastIndexByte(p, '/')+1:], e.Name, desc)
						require.Equal(t, n.kind, e.Kind.String(), desc)
						require.Equal(t, n.mode, e.Mode, desc)
						switch n.kind {
						case "file":
							require.EqualValues(t, len(n.content), e.Size, desc)
						case "symlink":
							require.Equal(t, n.content, e.Target, desc)
						}
					}
				case 5:
					p := d.path()
					desc = fmt.Sprintf(confinedPrefix[confined]+"read_dir %q", p)
					if want = refused(p); want == "" && ctx == cancelled {
						want = "ECANCELED"
					}
					if want == "" {
						_, want = model.lookup(p, true)
					}
					l, err := fsys.ReadDir(ctx, abs(p), Fatal)
					got = Errno(err)
					if err == nil {
						var names, wantNames []string
						for _, e := range l.Entries {
							names = append(names, e.Name+":"+e.Kind.String())
						}
						for q, n := range model {
							if parentOf(q) == p {
								wantNames = append(wantNames, q[len(p)+1:]+":"+n.kind)
							}
						}
						sort.Strings(wantNames)
						require.Equal(t, wantNames, names, desc)
						require.Empty(t, l.Errors, desc)
					}
				}
				require.Equal(t, want, got, "step %d: %s", step, desc)
				after := readModel(t, root)
				if want != "" {
					require.Equal(t, before, after, "step %d: failed %s changed the tree", step, desc)
				}
				require.Equal(t, model, after, "step %d: %s: tree differs from the model", step, desc)
			}
		}
	})
}
