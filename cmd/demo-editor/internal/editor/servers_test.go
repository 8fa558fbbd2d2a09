package editor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// The default servers beside gopls: a C file opens with clangd, a Python
// file with pyright and a TypeScript file with typescript-language-server,
// found on PATH, and M-. on a call goes to the function's definition.
func TestDefaultServersForCPythonAndTypeScript(t *testing.T) {
	for _, tc := range []struct {
		name  string
		peer  testenv.PeerSpec
		files map[string]string
		file  string
		call  string // M-g spec of the call of add
		def   pos    // where add is defined
	}{
		{"clangd", testenv.Clangd, map[string]string{"compile_flags.txt": "-std=c11\n",
			"a.c": "int add(int a, int b) { return a + b; }\nint main(void) { return add(1, 2); }\n"}, "a.c", "2:26", pos{0, 4}},
		{"pyright", testenv.Pyright, map[string]string{"pyrightconfig.json": "{}\n",
			"a.py": "def add(a: int, b: int) -> int:\n    return a + b\nprint(add(1, 2))\n"}, "a.py", "3:7", pos{0, 4}},
		{"typescript-language-server", testenv.TypeScriptLS, map[string]string{"tsconfig.json": "{}\n",
			"a.ts": "export function add(a: number, b: number): number { return a + b; }\nconsole.log(add(1, 2));\n"}, "a.ts", "2:13", pos{0, 16}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := testenv.Peer(t, tc.peer)
			// The server is found the way a user's is: on PATH.
			t.Setenv("PATH", filepath.Dir(prog)+string(os.PathListSeparator)+os.Getenv("PATH"))
			dir := t.TempDir()
			testenv.WriteTree(t, dir, tc.files)
			path := filepath.Join(dir, tc.file)
			h := startEditor(t, Options{Path: path})
			h.untilLong("the server started", func(e *session) bool {
				return strings.Contains(e.messages.Text(), "lsp: started")
			})
			h.gotoLine(tc.call)
			h.alt('.')
			h.untilLong("the jump to add's definition", func(e *session) bool {
				return e.cur.path == path && e.cur.cursor == tc.def
			})
		})
	}
}

// M-x lsp-info lists the running client with its root, its state and what
// it offers.
func TestLSPInfoShowsTheClient(t *testing.T) {
	prog := testenv.Peer(t, testenv.Clangd)
	t.Setenv("PATH", filepath.Dir(prog)+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	testenv.WriteTree(t, dir, map[string]string{"compile_flags.txt": "-std=c11\n", "a.c": "int x;\n"})
	h := startEditor(t, Options{Path: filepath.Join(dir, "a.c")})
	h.untilLong("the server started", func(e *session) bool { return strings.Contains(e.messages.Text(), "lsp: started") })
	// Until the server has answered initialize the client is "starting".
	var text string
	deadline := time.Now().Add(goplsTimeout)
	for {
		h.alt('x')
		h.waitText("M-x")
		h.typeText("lsp-info")
		h.key(tcell.KeyEnter)
		text = strings.Join(h.waitText("c: clangd"), "\n")
		if strings.Contains(text, "state: running") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, want := range []string{"root: " + dir, "state: running", "offers: ", "definition,", "hover,"} {
		if !strings.Contains(text, want) {
			t.Fatalf("*lsp-info* lacks %q:\n%s", want, text)
		}
	}
}

// M-x type-definition and M-x implementation against gopls: from a
// variable to its type, and from an interface's method to the method that
// implements it.
func TestTypeDefinitionAndImplementation(t *testing.T) {
	src := "package m\n\ntype Shape interface{ Area() int }\n\ntype Square struct{ n int }\n\nfunc (s Square) Area() int { return s.n * s.n }\n\nvar sq = Square{2}\n"
	dir := goplsModule(t, map[string]string{"m.go": src})
	path := filepath.Join(dir, "m.go")
	h := startEditor(t, Options{Path: path})
	h.untilLong("gopls started", func(e *session) bool { return strings.Contains(e.messages.Text(), "lsp: started") })
	run := func(cmd string) {
		h.alt('x')
		h.waitText("command (")
		h.typeText(cmd)
		h.key(tcell.KeyEnter)
	}
	h.gotoLine("9:5") // sq
	h.until("the cursor on sq", func(e *session) bool { return e.cur.cursor == pos{8, 4} })
	run("type-definition")
	h.untilLong("the jump to Square", func(e *session) bool { return e.cur.cursor == pos{4, 5} })

	h.gotoLine("3:25") // Area in the interface
	h.until("the cursor on Area", func(e *session) bool { return e.cur.cursor == pos{2, 24} })
	run("implementation")
	h.untilLong("the jump to Square's Area", func(e *session) bool { return e.cur.cursor == pos{6, 16} })
}

// M-x format with a selection formats only the selected rows
// (textDocument/rangeFormatting, which clangd offers).
func TestFormatTheSelectionOnly(t *testing.T) {
	prog := testenv.Peer(t, testenv.Clangd)
	t.Setenv("PATH", filepath.Dir(prog)+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	testenv.WriteTree(t, dir, map[string]string{"compile_flags.txt": "-std=c11\n", "a.c": "int   a  =  1;\nint   b  =  2;\n"})
	h := startEditor(t, Options{Path: filepath.Join(dir, "a.c")})
	h.untilLong("clangd started", func(e *session) bool { return strings.Contains(e.messages.Text(), "lsp: started") })
	h.post(tcell.NewEventKey(tcell.KeyDown, 0, tcell.ModShift)) // select the first row
	h.until("the first row selected", func(e *session) bool { return e.cur.cursor == pos{1, 0} })
	h.alt('x')
	h.waitText("command (")
	h.typeText("format")
	h.key(tcell.KeyEnter)
	h.untilLong("the first row formatted", func(e *session) bool { return e.cur.Line(0) == "int a = 1;" })
	h.until("the second row as it was", func(e *session) bool { return e.cur.Line(1) == "int   b  =  2;" })
}

// Signature help while typing arguments, against gopls: "(" shows the
// signature on the message line, an argument keeps it there, ")" ends it.
func TestSignatureHelpWhileTypingArguments(t *testing.T) {
	src := "package m\n\nimport \"fmt\"\n\nfunc f() {\n\t\n}\n"
	dir := goplsModule(t, map[string]string{"m.go": src})
	h := startEditor(t, Options{Path: filepath.Join(dir, "m.go")})
	h.untilLong("gopls started", func(e *session) bool { return strings.Contains(e.messages.Text(), "lsp: started") })
	h.gotoLine("6:2")
	h.until("the cursor in f", func(e *session) bool { return e.cur.cursor == pos{5, 1} })
	h.typeText("fmt.Println(")
	// gopls answers once it has loaded the module: as long as M-. may wait.
	deadline := time.Now().Add(goplsTimeout)
	for !strings.Contains(messageLine(h.rows()), "Println(a ...any) (n int, err error)") {
		if time.Now().After(deadline) {
			t.Fatalf("no signature on the message line:\n%s", strings.Join(h.rows(), "\n"))
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.typeText("1")
	h.waitScreen("still shown while typing the argument", bottomHas("Println(a ...any)"))
	h.typeText(")")
	h.waitScreen("gone after the call", func(rows []string) bool { return !strings.Contains(messageLine(rows), "Println(") })
}
