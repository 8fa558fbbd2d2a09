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

// navServer is a language server and a small program for it: the file to
// open, and where its symbols are.
type navServer struct {
	name  string
	peer  testenv.PeerSpec
	files map[string]string
	file  string
	// outline lists rows *outline* must hold, in order, each its
	// indentation, name and kind ("  x  field").
	outline []string
	// add is the outline row of the function add, and where M-i's Enter
	// on it lands.
	add   string
	addAt pos
}

var navServers = []navServer{
	{"gopls", testenv.Gopls, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n",
		"m.go": "package m\n\ntype T struct {\n\tA int\n}\n\nfunc (t T) M() int { return t.A }\n\nfunc add(a, b int) int { return a + b }\n"},
		"m.go", []string{"T  struct", "  A  field", "add  function"}, "add  function", pos{8, 5}},
	{"clangd", testenv.Clangd, map[string]string{"compile_flags.txt": "-std=c11\n",
		"a.c": "struct P {\n  int x;\n};\n\nint add(int a, int b) { return a + b; }\n"},
		"a.c", []string{"P  class", "  x  field", "add  function"}, "add  function", pos{4, 4}},
	{"pyright", testenv.Pyright, map[string]string{"pyrightconfig.json": "{}\n",
		"a.py": "class C:\n    def m(self):\n        return 1\n\n\ndef add(a, b):\n    return a + b\n"},
		"a.py", []string{"C  class", "  m  method", "add  function"}, "add  function", pos{5, 4}},
	{"typescript-language-server", testenv.TypeScriptLS, map[string]string{"tsconfig.json": "{}\n",
		"a.ts": "export class C {\n  m(): number { return 1; }\n}\n\nexport function add(a: number, b: number): number { return a + b; }\n"},
		"a.ts", []string{"C  class", "  m  method", "add  function"}, "add  function", pos{4, 16}},
}

// startNav writes s's program, puts its server first on PATH and opens
// its file, once the server has started.
func startNav(t *testing.T, s navServer) (*harness, string) {
	t.Helper()
	prog := testenv.Peer(t, s.peer)
	t.Setenv("PATH", filepath.Dir(prog)+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	testenv.WriteTree(t, dir, s.files)
	path := filepath.Join(dir, s.file)
	h := startEditor(t, Options{Path: path})
	h.untilLong("the server started", messagesHave("lsp: started"))
	h.untilSynced()
	return h, path
}

// bufLines is the shown buffer's rows.
func bufLines(e *session) []string {
	out := make([]string, e.cur.LineCount())
	for i := range out {
		out[i] = e.cur.Line(i)
	}
	return out
}

// rowsInOrder reports whether rows hold a row starting with each of want,
// in that order.
func rowsInOrder(rows, want []string) bool {
	i := 0
	for _, r := range rows {
		if i < len(want) && strings.HasPrefix(r, want[i]) {
			i++
		}
	}
	return i == len(want)
}

// The outline (M-i) against each of the four servers: the file's symbols
// in *outline*, nested ones indented under their parent, each with its
// kind; Enter on one jumps to its name, and M-, comes back to the
// outline's file where the jump left.
func TestOutlineOfEachServer(t *testing.T) {
	for _, s := range navServers {
		t.Run(s.name, func(t *testing.T) {
			h, path := startNav(t, s)
			h.alt('i')
			var rows []string
			h.untilLong("the outline", func(e *session) bool {
				rows = bufLines(e)
				return e.cur.name == "*outline*" && rowsInOrder(rows, s.outline)
			})
			require.True(t, strings.HasPrefix(rows[0], "outline of "+s.file+": "), rows[0])
			row := -1
			for i, r := range rows {
				if strings.HasPrefix(r, s.add) {
					row = i
				}
			}
			require.Positive(t, row, "add's row:\n%s", strings.Join(rows, "\n"))
			for range row - 1 {
				h.key(tcell.KeyDown)
			}
			h.until("the cursor on add's row", func(e *session) bool { return e.cur.cursor.Row == row })
			h.key(tcell.KeyEnter)
			h.untilLong("the jump to add", func(e *session) bool { return e.cur.path == path && e.cur.cursor == s.addAt })
			h.alt(',')
			h.until("back where the outline was asked", func(e *session) bool { return e.cur.path == path && e.cur.cursor == pos{0, 0} })
		})
	}
}

// M-x symbols ranks the file's symbols as the query is typed (w.fuzzy);
// Enter jumps to the first.
func TestSymbolsPickerRanksTheFilesSymbols(t *testing.T) {
	s := navServers[0]
	h, path := startNav(t, s)
	h.alt('x')
	h.waitText("command (")
	h.typeText("symbols")
	h.key(tcell.KeyEnter)
	h.untilLong("the picker on every symbol", func(e *session) bool {
		return e.cur.name == "*symbols*" && strings.HasPrefix(e.cur.Line(0), `symbols "": 4 of 4`)
	})
	h.typeText("ad")
	h.until("add ranked first", func(e *session) bool {
		return strings.HasPrefix(e.cur.Line(0), `symbols "ad": `) && strings.HasPrefix(e.cur.Line(1), "add  function  :9")
	})
	h.key(tcell.KeyEnter)
	h.untilLong("the jump to add", func(e *session) bool { return e.cur.path == path && e.cur.cursor == s.addAt })
}

// The workspace's symbols, asked as the query is typed (M-t): gopls lists
// a function of a file no buffer holds, and Enter opens that file at it.
// clangd answers from the index of the files it has open.
func TestWorkspaceSymbolsAsYouType(t *testing.T) {
	for _, tc := range []struct {
		s     navServer
		query string
		row   string
		file  string
		at    pos
	}{
		{navServer{name: "gopls", peer: testenv.Gopls, file: "a.go", files: map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n",
			"a.go": "package m\n\nvar X = 1\n", "b.go": "package m\n\n// Target is found.\nfunc TargetFunc() int { return 1 }\n"}},
			"TargetF", "TargetFunc  function", "b.go", pos{3, 5}},
		{navServer{name: "clangd", peer: testenv.Clangd, file: "a.c", files: map[string]string{"compile_flags.txt": "-std=c11\n",
			"a.c": "int target_func(void) { return 1; }\nint main(void) { return target_func(); }\n"}},
			"target_f", "target_func  function", "a.c", pos{0, 4}},
	} {
		t.Run(tc.s.name, func(t *testing.T) {
			h, path := startNav(t, tc.s)
			want := filepath.Join(filepath.Dir(path), tc.file)
			h.alt('t')
			h.waitText("workspace symbols:")
			h.typeText(tc.query)
			var rows []string
			// A server still indexing answers with nothing: the query is
			// asked again (a keystroke taken back and typed again) until
			// the symbol comes.
			deadline := time.Now().Add(goplsTimeout)
			for {
				var listed, none bool
				h.e.call(func() {
					rows = bufLines(h.e)
					listed = h.e.cur.name == "*symbols*" && len(rows) > 1 && strings.HasPrefix(rows[1], tc.row)
					none = rows[0] == fmt.Sprintf("workspace symbols %q: 0 (Enter opens)", tc.query)
				})
				if listed {
					break
				}
				require.True(t, time.Now().Before(deadline), "no %s in the list:\n%s", tc.row, strings.Join(rows, "\n"))
				if none {
					h.key(tcell.KeyBackspace2)
					h.typeText(tc.query[len(tc.query)-1:])
				}
				time.Sleep(100 * time.Millisecond)
			}
			require.Contains(t, rows[1], tc.file+":"+fmt.Sprint(tc.at.Row+1))
			h.key(tcell.KeyEnter)
			h.untilLong("the symbol opened", func(e *session) bool { return e.cur.path == want && e.cur.cursor == tc.at })
		})
	}
}

// The call hierarchy (M-h) of a function in the middle of a chain: who
// calls it, at the call, and what it calls, at its definition, in
// *calls*; Enter jumps to the call in the caller. Against gopls and
// clangd.
func TestCallHierarchy(t *testing.T) {
	for _, tc := range []struct {
		s       navServer
		at      string // M-g spec of mid's name
		in, out string // the rows of the caller and of the callee
		jump    pos    // the call of mid in top
	}{
		{navServer{name: "gopls", peer: testenv.Gopls, file: "m.go", files: map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n",
			"m.go": "package m\n\nfunc leaf() int { return 1 }\n\nfunc mid() int { return leaf() }\n\nfunc top() int { return mid() }\n"}},
			"5:6", "  top  m.go:7:25", "  leaf  m.go:3:6", pos{6, 24}},
		{navServer{name: "clangd", peer: testenv.Clangd, file: "a.c", files: map[string]string{"compile_flags.txt": "-std=c11\n",
			"a.c": "int leaf(void) { return 1; }\n\nint mid(void) { return leaf(); }\n\nint top(void) { return mid(); }\n"}},
			// clangd 14 lists no outgoing calls (clangd 20 does).
			"3:5", "  top  a.c:5:24", "  ", pos{4, 23}},
	} {
		t.Run(tc.s.name, func(t *testing.T) {
			h, path := startNav(t, tc.s)
			h.gotoLine(tc.at)
			h.until("the cursor on mid", func(e *session) bool { return e.cur.cursor.Row > 0 })
			h.alt('h')
			var rows []string
			h.untilLong("the calls", func(e *session) bool {
				rows = bufLines(e)
				return e.cur.name == "*calls*" && rowsInOrder(rows, []string{"calls of mid", "called by:", tc.in, "calls:", tc.out})
			})
			for range 2 {
				h.key(tcell.KeyDown)
			}
			h.until("the cursor on the caller", func(e *session) bool { return e.cur.cursor.Row == 2 })
			h.key(tcell.KeyEnter)
			h.untilLong("the jump to the call in top", func(e *session) bool { return e.cur.path == path && e.cur.cursor == tc.jump })
		})
	}
}

// referenceSpans lists the shown buffer's spans of the document highlight's
// groups: "row:start-end group".
func referenceSpans(e *session) []string {
	var out []string
	for r := range e.cur.LineCount() {
		for _, sp := range e.cur.hl.row(r) {
			if g := e.faces.names[sp.face]; strings.HasPrefix(g, "reference.") {
				out = append(out, fmt.Sprintf("%d:%d-%d %s", r, sp.start, sp.end, g))
			}
		}
	}
	return out
}

// The document highlight against gopls: once the cursor rests on a
// variable, its occurrences are highlighted, the assignments as writes
// and the uses as reads; a move away clears them, and resting on a blank
// row highlights nothing.
func TestDocumentHighlightOfTheSymbolUnderTheCursor(t *testing.T) {
	src := "package m\n\nfunc f() int {\n\tx := 1\n\tx = x + 1\n\treturn x\n}\n"
	dir := goplsModule(t, map[string]string{"m.go": src})
	h := startEditor(t, Options{Path: filepath.Join(dir, "m.go")})
	h.untilSynced()
	h.gotoLine("5:2")
	want := []string{"3:1-2 reference.write", "4:1-2 reference.write", "4:5-6 reference.read", "5:8-9 reference.read"}
	var got []string
	h.untilWithin(20*time.Second, "x's occurrences highlighted", func(e *session) bool {
		got = referenceSpans(e)
		return strings.Join(got, ",") == strings.Join(want, ",")
	})
	t.Log(got)
	h.key(tcell.KeyUp)
	h.key(tcell.KeyUp)
	h.key(tcell.KeyUp)
	h.until("cleared by the move", func(e *session) bool { return e.cur.cursor.Row == 1 && len(referenceSpans(e)) == 0 })
}

// The flat form of a file's symbols (SymbolInformation[], here from the
// scripted server, in no order) is outlined by position, a symbol nested
// under the one whose range holds it.
func TestOutlineOfTheFlatSymbolForm(t *testing.T) {
	useFakeLSP(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.go")
	require.NoError(t, os.WriteFile(path, []byte("type Thing struct {\n\tField int\n}\n\nfunc Run() {}\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.untilSynced()
	h.alt('i')
	h.until("the outline", func(e *session) bool {
		return e.cur.name == "*outline*" && rowsInOrder(bufLines(e), []string{"outline of m.go: 3 symbols", "Thing  struct  :1", "  Field  field  :2", "Run  function  :5"})
	})
}
