package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// serverEditor opens file of a project of files with a real server found
// on PATH (the way a user's is), once the server has started.
func serverEditor(t *testing.T, peer testenv.PeerSpec, files map[string]string, file string) (*harness, string) {
	t.Helper()
	prog := testenv.Peer(t, peer)
	t.Setenv("PATH", filepath.Dir(prog)+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	testenv.WriteTree(t, dir, files)
	path := filepath.Join(dir, file)
	h := startEditor(t, Options{Path: path})
	h.untilLong("the server started", func(e *session) bool { return strings.Contains(e.messages.Text(), "lsp: started") })
	return h, path
}

// codeAction asks M-a at the cursor and runs the action whose title starts
// with title.
func (h *harness) codeAction(title string) {
	h.t.Helper()
	h.alt('a')
	h.untilLong("*code actions* listing "+title, func(e *session) bool {
		if e.cur.name != "*code actions*" {
			return false
		}
		for i, l := range e.cur.lines.all() {
			if strings.HasPrefix(l, title) {
				e.cur.setCursor(pos{i, 0})
				return true
			}
		}
		return false
	})
	h.key(tcell.KeyEnter)
}

// pathText is the text of the buffer visiting path.
func pathText(e *session, path string) string {
	for _, b := range e.bufs {
		if b.path == path && !b.loading {
			return b.Text()
		}
	}
	return ""
}

// A code action that fixes a diagnostic, against each real server that
// has one: gopls adds a missing import, clangd inserts the missing
// semicolon, typescript-language-server adds the missing import from the
// file that exports the name. The file then reads as the server meant and
// the error goes.
func TestCodeActionsFixADiagnosticOnEachServer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		peer   testenv.PeerSpec
		files  map[string]string
		file   string
		at     string // M-g spec of the diagnostic's place
		title  string
		fixed  string // what the file holds after the fix
		errors string // the status before the fix
	}{
		{"gopls", testenv.Gopls, map[string]string{"go.mod": "module m\n\ngo 1.22\n",
			"m.go": "package m\n\nfunc F() { fmt.Println() }\n"}, "m.go", "3:12", `Add import:  "fmt"`,
			"package m\n\nimport \"fmt\"\n\nfunc F() { fmt.Println() }\n", "E1"},
		{"clangd", testenv.Clangd, map[string]string{"compile_flags.txt": "-std=c11\n",
			"a.c": "int main(void) {\n\tint x = 1\n\treturn x;\n}\n"}, "a.c", "3:2", "insert ';'",
			"int main(void) {\n\tint x = 1;\n\treturn x;\n}\n", "E1"},
		{"typescript-language-server", testenv.TypeScriptLS, map[string]string{"tsconfig.json": "{}\n",
			"b.ts": "export function add(a: number, b: number) { return a + b; }\n",
			"a.ts": "export const z = add(1, 2);\n"}, "a.ts", "1:18", "Add import from",
			"import { add } from \"./b\";\n\nexport const z = add(1, 2);\n", "E1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, path := serverEditor(t, tc.peer, tc.files, tc.file)
			h.untilLong("the diagnostic", statusHas(tc.errors))
			h.gotoLine(tc.at)
			h.codeAction(tc.title)
			h.untilLong("the fix applied", func(e *session) bool { return pathText(e, path) == tc.fixed })
			h.showPath(path)
			h.untilLong("the error gone", func(e *session) bool { return !strings.Contains(e.statusText(), tc.errors) })
		})
	}
}

// pyright offers no code action that fixes its diagnostics (its
// quickfixes need an import it can add; an undefined name has none): M-a
// says there is none, and the file is unchanged.
func TestPyrightOffersNoFixForAnUndefinedName(t *testing.T) {
	src := "x = 1\nprint(undefined_name)\n"
	h, path := serverEditor(t, testenv.Pyright, map[string]string{"pyrightconfig.json": "{}\n", "a.py": src}, "a.py")
	h.untilLong("the diagnostic", statusHas("E1"))
	h.gotoLine("2:8")
	h.alt('a')
	h.untilLong("no code actions", func(e *session) bool { return strings.Contains(e.msg, "no code actions at a.py:2") })
	h.until("the file unchanged", func(e *session) bool { return pathText(e, path) == src })
}

// M-x format against each server that formats (clangd and
// typescript-language-server here; gopls in TestGoplsFormatsOnSave), and
// pyright, which does not: it is not asked, and the message line says so.
func TestFormatOnEachServer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		peer  testenv.PeerSpec
		files map[string]string
		file  string
		want  string
	}{
		{"clangd", testenv.Clangd, map[string]string{"compile_flags.txt": "-std=c11\n", "a.c": "int   a  =  1;\n"}, "a.c", "int a = 1;\n"},
		{"typescript-language-server", testenv.TypeScriptLS, map[string]string{"tsconfig.json": "{}\n", "a.ts": "const   a=1;\n"}, "a.ts", "const a = 1;\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, path := serverEditor(t, tc.peer, tc.files, tc.file)
			h.untilSynced()
			// The first request of a server still loading its project
			// may take longer than M-x format waits: ask again.
			deadline := time.Now().Add(goplsTimeout)
			for {
				h.e.call(func() { h.e.msg = "" })
				h.mx("format")
				h.untilLong("an answer", func(e *session) bool { return pathText(e, path) == tc.want || strings.HasPrefix(e.msg, "format:") })
				var done bool
				h.e.call(func() { done = pathText(h.e, path) == tc.want })
				if done {
					break
				}
				require.True(t, time.Now().Before(deadline), "never formatted")
			}
		})
	}
	t.Run("pyright", func(t *testing.T) {
		src := "x   =  1\n"
		h, path := serverEditor(t, testenv.Pyright, map[string]string{"pyrightconfig.json": "{}\n", "a.py": src}, "a.py")
		h.untilSynced()
		h.mx("format")
		h.untilLong("told pyright does not format", func(e *session) bool { return strings.Contains(e.msg, "format: pyright does not format") })
		h.until("the file unchanged", func(e *session) bool { return pathText(e, path) == src })
	})
}

// Positions on a CRLF file, on a row with a tab, é, a CJK character and an
// emoji beyond the BMP, against clangd (which counts bytes: it chose UTF-8)
// and gopls (UTF-16): Enter on the diagnostic in *diagnostics* lands on
// the undefined name, M-. on a call after those characters goes to the
// definition, a rename of a name on that row rewrites both of its uses in
// place, and deleting the undefined name with keys (incremental edits in
// the server's columns) clears the error.
func TestPositionsOnNonASCIIRowsOnEachEncoding(t *testing.T) {
	for _, tc := range []struct {
		name      string
		peer      testenv.PeerSpec
		files     map[string]string
		file      string
		row       int    // the row with the characters
		undefined string // the undefined name on it
		call      string // a call on it, after the characters
		def       pos    // where the called function is defined
		old, new  string // a name declared on the row, and its new name
		renamed   string // the row after the rename
		enc       string
	}{
		{name: "clangd", peer: testenv.Clangd, enc: "utf-8", files: map[string]string{"compile_flags.txt": "-std=c11\n",
			"a.c": "int add(int a, int b) { return a + b; }\r\nint main(void) {\r\n\tconst char *s = \"é中😀\"; int r = add(1, 2); return r + undefined_x + (s != 0);\r\n}\r\n"},
			file: "a.c", row: 2, undefined: "undefined_x", call: "add(1", def: pos{0, 4}, old: "int r", new: "result",
			renamed: "\tconst char *s = \"é中😀\"; int result = add(1, 2); return result + undefined_x + (s != 0);"},
		{name: "gopls", peer: testenv.Gopls, enc: "utf-16", files: map[string]string{"go.mod": "module m\n\ngo 1.22\n",
			"m.go": "package m\r\n\r\nfunc Target() int { return 1 }\r\n\r\nfunc F() {\r\n\ts := \"é中😀\"; _ = s; _ = Target() + undefinedName\r\n}\r\n"},
			file: "m.go", row: 5, undefined: "undefinedName", call: "Target()", def: pos{2, 5}, old: "\ts", new: "str",
			renamed: "\tstr := \"é中😀\"; _ = str; _ = Target() + undefinedName"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, path := serverEditor(t, tc.peer, tc.files, tc.file)
			var line string
			for i, l := range strings.Split(tc.files[tc.file], "\r\n") {
				if i == tc.row {
					line = l
				}
			}
			at := func(s string) int { i := strings.Index(line, s); require.GreaterOrEqual(t, i, 0, s); return i }
			h.untilLong("the undefined name's error", statusHas("E1"))
			h.mx("lsp-info")
			h.waitText("columns in " + tc.enc)

			h.alt('e')
			h.waitText(tc.undefined)
			h.key(tcell.KeyDown)
			h.key(tcell.KeyEnter)
			h.until("the jump to the undefined name", func(e *session) bool {
				return e.cur.path == path && e.cur.cursor == pos{tc.row, at(tc.undefined)}
			})

			h.gotoLine(fmt.Sprintf("%d:%d", tc.row+1, at(tc.call)+1))
			h.alt('.')
			h.untilLong("the jump to the definition", func(e *session) bool { return e.cur.path == path && e.cur.cursor == tc.def })

			name := strings.Fields(tc.old)[len(strings.Fields(tc.old))-1]
			h.gotoLine(fmt.Sprintf("%d:%d", tc.row+1, at(tc.old)+len(tc.old)-len(name)+1))
			h.mx("rename " + tc.new)
			h.untilLong("the rename applied in place", func(e *session) bool { return e.cur.path == path && e.cur.Line(tc.row) == tc.renamed })

			line = tc.renamed
			h.gotoLine(fmt.Sprintf("%d:%d", tc.row+1, at(tc.undefined)+1))
			for range len(tc.undefined) {
				h.key(tcell.KeyDelete)
			}
			h.typeText("1")
			h.untilLong("the error cleared", func(e *session) bool { return !strings.Contains(e.statusText(), "E1") })
			h.until("no other error", func(e *session) bool { return !strings.Contains(e.statusText(), "E2") })
		})
	}
}
