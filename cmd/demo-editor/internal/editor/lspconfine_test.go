package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hostileWorkspace writes top/proj, the workspace, holding name (the file
// the test saves), other.go, a.txt, door (a link to ../beside) and
// alias.go (a link to ../beside/victim.go) and inlink.go (a link to
// other.go, inside), pkg/p.go, beside/c.txt and deep/ln.go (a link to
// ../beside/c.txt: inside from deep, outside once moved up a level), and
// top/beside, holding victim.go, a.txt and c.txt. It returns the saved
// file's path and the two directories.
func hostileWorkspace(t *testing.T, name string) (path, proj, beside string) {
	t.Helper()
	top := t.TempDir()
	proj, beside = filepath.Join(top, "proj"), filepath.Join(top, "beside")
	for dir, files := range map[string]map[string]string{
		proj:                          {name: "package m\n", "other.go": "package m\n\nvar x = 1\n", "a.txt": "inside a\n"},
		filepath.Join(proj, "pkg"):    {"p.go": "package pkg\n"},
		filepath.Join(proj, "beside"): {"c.txt": "inside c\n"},
		filepath.Join(proj, "deep"):   {},
		beside:                        {"victim.go": "package victim\n", "a.txt": "beside a\n", "c.txt": "beside c\n"},
	} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for f, body := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644))
		}
	}
	require.NoError(t, os.Symlink("../beside", filepath.Join(proj, "door")))
	require.NoError(t, os.Symlink("../beside/victim.go", filepath.Join(proj, "alias.go")))
	require.NoError(t, os.Symlink("other.go", filepath.Join(proj, "inlink.go")))
	require.NoError(t, os.Symlink("../beside/c.txt", filepath.Join(proj, "deep", "ln.go")))
	return filepath.Join(proj, name), proj, beside
}

// treeOf maps every file under dir (links not followed) to its content,
// or to "-> target" for a link.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&os.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[rel] = "-> " + target
			return err
		}
		data, err := os.ReadFile(p)
		out[rel] = string(data)
		return err
	}))
	return out
}

// Every edit a language server asks for stays inside the workspace: a
// hostile server's edit of a file beside it (by its path, through "..",
// through a directory link or a file link inside the workspace that leads
// out), its rename and delete of files beside it (the report), a
// move of a workspace file out, a delete through a link, and a create
// beside it or through a link are each refused whole: the server hears
// applied = false with a failureReason naming the path, *messages* says
// so, nothing on disk changes (beside the workspace or in it) and no
// buffer opens for the file. A path that leads out only through the steps
// before it is refused the same way, naming the path it resolves to: an
// edit by the new name of a renamed link to a file beside, a create, edit,
// probe or delete through a directory link renamed, and a link inside
// that leads out once a rename moves it up a level (the buffer's save
// would write beside); before, each of those was applied (or answered
// "does not exist" for a file beside that is missing), reading and
// stat'ing beside the workspace. What stays inside, also through a link
// that stays inside and through a directory renamed, is still applied.
// Before, the editor renamed and deleted the files beside the workspace,
// edited them in buffers whose save wrote there, and opened a buffer for
// the create. (Issue 25, point 1, and
// "Every edit a server asks for stays inside the workspace".)
func TestServerEditsStayInsideTheWorkspace(t *testing.T) {
	for _, c := range []struct{ file, reason string }{
		{"hostile_edit.go", "the edit changes %B/victim.go, outside the workspace (%P)"},
		{"hostile_dotdot.go", "the edit changes %B/victim.go, outside the workspace (%P)"}, // the URI's .. is resolved
		{"hostile_door.go", "the edit changes door/victim.go, which resolves to %B/victim.go, outside the workspace (%P)"},
		{"hostile_alias.go", "the edit changes alias.go, which resolves to %B/victim.go, outside the workspace (%P)"},
		{"hostile_move.go", "the edit renames %B/a.txt, outside the workspace (%P)"},
		{"hostile_steal.go", "the edit renames other.go to %B/stolen.go, outside the workspace (%P)"},
		{"hostile_door_delete.go", "the edit deletes door/c.txt, which resolves to %B/c.txt, outside the workspace (%P)"},
		{"hostile_create.go", "the edit creates %B/new.go, outside the workspace (%P)"},
		{"hostile_create_door.go", "the edit creates door/new.go, which resolves to %B/new.go, outside the workspace (%P)"},
		// Paths that lead out only through the steps before them.
		{"hostile_rename_alias.go", "the edit changes b.go, which resolves to %B/victim.go, outside the workspace (%P)"},
		{"hostile_rename_door.go", "the edit creates sub/new.go, which resolves to %B/new.go, outside the workspace (%P)"},
		{"hostile_rename_door_edit.go", "the edit changes sub/victim.go, which resolves to %B/victim.go, outside the workspace (%P)"},
		{"hostile_rename_door_probe.go", "the edit changes sub/missing.go, which resolves to %B/missing.go, outside the workspace (%P)"},
		{"hostile_rename_door_delete.go", "the edit deletes sub/c.txt, which resolves to %B/c.txt, outside the workspace (%P)"},
		{"hostile_moved_link.go", "the edit moves deep/ln.go to ln.go, which resolves to %B/c.txt, outside the workspace (%P)"},
		{"hostile_dir_inside.go", ""},
		{"hostile_inside.go", ""},
	} {
		t.Run(strings.TrimSuffix(c.file, ".go"), func(t *testing.T) {
			logPath := useFakeLSP(t)
			path, proj, beside := hostileWorkspace(t, c.file)
			wasBeside, wasProj := treeOf(t, beside), treeOf(t, proj)
			h := startEditor(t, Options{Path: path})
			h.untilSynced()
			h.ctrl('s')
			if c.file == "hostile_dir_inside.go" {
				requireFakeReply(t, logPath, "apply-h", `reply "apply-h" {"applied":true}`)
				moved := filepath.Join(proj, "moved")
				h.until("the edits of the moved directory's files", func(e *session) bool {
					b, n := e.findBuffer(filepath.Join(moved, "p.go")), e.findBuffer(filepath.Join(moved, "new.go"))
					return b != nil && !b.loading && b.Text() == "// pwned\npackage pkg\n" && n != nil && n.Text() == "// pwned\n"
				})
				data, err := os.ReadFile(filepath.Join(moved, "p.go"))
				require.NoError(t, err, "the directory was renamed")
				require.Equal(t, "package pkg\n", string(data))
				require.NoDirExists(t, filepath.Join(proj, "pkg"))
				require.Equal(t, wasBeside, treeOf(t, beside), "nothing beside the workspace changed")
				return
			}
			if c.reason == "" {
				requireFakeReply(t, logPath, "apply-h", `reply "apply-h" {"applied":true}`)
				h.until("the edit through the inside link and the rename", func(e *session) bool {
					b := e.findBuffer(filepath.Join(proj, "inlink.go"))
					return b != nil && !b.loading && b.Text() == "// pwned\npackage m\n\nvar x = 1\n"
				})
				require.Equal(t, wasBeside, treeOf(t, beside), "nothing beside the workspace changed")
				data, err := os.ReadFile(filepath.Join(proj, "sub", "a.txt"))
				require.NoError(t, err, "the rename inside was carried out")
				require.Equal(t, "inside a\n", string(data))
				return
			}
			reason := strings.NewReplacer("%B", beside, "%P", proj).Replace(c.reason) + ": nothing was applied"
			requireFakeReply(t, logPath, "apply-h", `"applied":false`, `"failureReason":"`+reason+`"`)
			var paths []string
			var messages string
			h.e.call(func() {
				for _, b := range h.e.bufs {
					if b.path != "" {
						paths = append(paths, b.path)
					}
				}
				messages = h.e.messages.Text()
			})
			require.Contains(t, messages, "lsp: the server's edit was not applied: "+reason)
			require.Equal(t, []string{path}, paths, "no buffer opened for the edit")
			require.Equal(t, wasBeside, treeOf(t, beside), "nothing beside the workspace changed")
			require.Equal(t, wasProj, treeOf(t, proj), "nothing in the workspace changed")
		})
	}
}
