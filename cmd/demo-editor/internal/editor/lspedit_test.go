package editor

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// goplsModule writes files into a temp Go module and puts the project's
// gopls first on PATH, skipping the test when there is none.
func goplsModule(t *testing.T, files map[string]string) string {
	t.Helper()
	gopls := testenv.Peer(t, testenv.Gopls)
	t.Setenv("PATH", filepath.Dir(gopls)+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644))
	for name, src := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	return dir
}

// popupLines is what the shown buffer's popup lists, nil for no popup.
func popupLines(e *session) []string {
	if e.cur.popup == nil {
		return nil
	}
	return e.cur.popup.lines
}

func popupHas(e *session, label string) bool {
	for _, l := range popupLines(e) {
		if strings.HasPrefix(l, label) {
			return true
		}
	}
	return false
}

// untilSynced waits until the buffer's text went to the server (the
// gutter is set up then).
func (h *harness) untilSynced() {
	h.t.Helper()
	h.untilLong("the buffer synced with the server", func(e *session) bool { return e.cur.signs != nil })
}

// TestGoplsCompletion covers the completion point against gopls:
// M-/ lists a struct's fields under the cursor, typing narrows the list
// (each keystroke asks again), and Enter inserts the chosen item over the
// typed prefix, as one undo step.
func TestGoplsCompletion(t *testing.T) {
	src := "package m\n\ntype T struct {\n\tAlpha     int\n\tAlbatross int\n\tBeta      int\n}\n\nfunc f(t T) int {\n\treturn t.\n}\n"
	dir := goplsModule(t, map[string]string{"m.go": src})
	h := startEditor(t, Options{Path: filepath.Join(dir, "m.go")})
	h.untilSynced()
	h.gotoLine("10:11")
	h.until("the cursor after t.", func(e *session) bool { return e.cur.cursor == pos{9, 10} })

	h.alt('/')
	h.untilLong("the fields in the popup", func(e *session) bool {
		return popupHas(e, "Alpha") && popupHas(e, "Albatross") && popupHas(e, "Beta")
	})
	rows := h.rows()
	require.True(t, anyContains(rows, " Albatross"), "the popup is drawn:\n%s", strings.Join(rows, "\n"))

	h.typeText("Alb")
	h.untilLong("the list narrowed to Albatross", func(e *session) bool {
		return popupHas(e, "Albatross") && !popupHas(e, "Alpha") && !popupHas(e, "Beta")
	})
	h.key(tcell.KeyEnter)
	h.until("Albatross inserted over the prefix", func(e *session) bool {
		return e.cur.Line(9) == "\treturn t.Albatross" && e.cur.popup == nil && e.cur.cursor == pos{9, 19}
	})
	h.ctrl('z')
	h.until("one undo takes the completion back", func(e *session) bool { return e.cur.Line(9) == "\treturn t.Alb" })

	h.alt('/')
	h.untilLong("the popup again", func(e *session) bool { return popupHas(e, "Albatross") })
	h.key(tcell.KeyEsc)
	h.until("Esc closes it, inserting nothing", func(e *session) bool {
		return e.cur.popup == nil && e.cur.Line(9) == "\treturn t.Alb"
	})
	h.key(tcell.KeyDown)
	h.until("Down moves the cursor again", func(e *session) bool { return e.cur.cursor.Row == 10 })
}

// TestGoplsRenameAcrossFiles covers rename: F2 on a function asks for the
// new name, and the WorkspaceEdit gopls returns changes every occurrence,
// in the open file and in a file that was not open (opened and edited),
// with the count on the message line.
func TestGoplsRenameAcrossFiles(t *testing.T) {
	dir := goplsModule(t, map[string]string{
		"a.go": "package m\n\nfunc Target() int { return 1 }\n\nvar X = Target()\n",
		"b.go": "package m\n\nvar Y = Target() + Target()\n",
	})
	a, b := filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go")
	h := startEditor(t, Options{Path: a})
	h.untilSynced()
	h.renameSymbol("3:8", "Target", "Renamed")
	h.untilLong("the count of the edits", func(e *session) bool {
		return strings.Contains(e.msg, "rename Target to Renamed: 4 edits in 2 files")
	})
	h.until("every occurrence renamed", func(e *session) bool {
		var ta, tb string
		for _, buf := range e.bufs {
			switch buf.path {
			case a:
				ta = buf.Text()
			case b:
				if !buf.loading {
					tb = buf.Text()
				}
			}
		}
		return ta == "package m\n\nfunc Renamed() int { return 1 }\n\nvar X = Renamed()\n" &&
			tb == "package m\n\nvar Y = Renamed() + Renamed()\n"
	})
}

// renameSymbol renames the symbol at line:col, named old, to new with F2.
func (h *harness) renameSymbol(at, old, new string) {
	h.t.Helper()
	h.gotoLine(at)
	h.key(tcell.KeyF2)
	h.waitText("rename " + old + " to: " + old)
	h.ctrl('u')
	h.typeText(new)
	h.key(tcell.KeyEnter)
}

// goplsEditor opens m.go holding src in a new module, with gopls, and waits
// until the server has it.
func goplsEditor(t *testing.T, src string) (*harness, string) {
	t.Helper()
	path := filepath.Join(goplsModule(t, map[string]string{"m.go": src}), "m.go")
	h := startEditor(t, Options{Path: path})
	h.untilSynced()
	return h, path
}

// TestGoplsCodeActionFillStruct covers M-a against gopls: the actions at
// an empty struct literal are listed in *code actions*, and Enter on
// "Fill S" runs it. gopls lists it without its edit (the client resolves
// actions), so choosing it asks codeAction/resolve for the edit, which the
// editor applies to the buffer. The row has no diagnostics: the request's context.diagnostics must still be
// an array (pmacs.array), or gopls refuses it.
func TestGoplsCodeActionFillStruct(t *testing.T) {
	h, path := goplsEditor(t, "package m\n\ntype S struct {\n\tA int\n\tB string\n}\n\nvar v = S{}\n\nfunc F() S { return v }\n")
	h.gotoLine("8:10")
	h.alt('a')
	h.untilLong("*code actions* listing Fill S", func(e *session) bool {
		if e.cur.name != "*code actions*" {
			return false
		}
		for _, l := range e.cur.lines.all() {
			if strings.HasPrefix(l, "Fill S") {
				return true
			}
		}
		return false
	})
	var header string
	h.e.call(func() {
		header = h.e.cur.lines.row(0)
		for i, l := range h.e.cur.lines.all() {
			if strings.HasPrefix(l, "Fill S") {
				h.e.cur.setCursor(pos{i, 0})
			}
		}
	})
	require.Equal(t, "code actions at m.go:8 (Enter runs one, Esc goes back)", header)
	h.key(tcell.KeyEnter)
	h.untilLong("the struct literal filled", func(e *session) bool {
		for _, b := range e.bufs {
			if b.path == path && strings.Contains(b.Text(), "A: 0") && strings.Contains(b.Text(), `B: ""`) {
				return e.cur == b
			}
		}
		return false
	})
	h.until("the edit's count on the message line", func(e *session) bool {
		return strings.Contains(e.msg, "Fill S: 1 edits in 1 files")
	})
}

// TestGoplsCodeActionAddTest runs gopls's "Add test for A", whose edit
// creates m_test.go: the editor opens it as a new buffer holding the test,
// for the user to check and save, and writes nothing yet.
func TestGoplsCodeActionAddTest(t *testing.T) {
	h, path := goplsEditor(t, "package m\n\nfunc A(x int) int { return x + 1 }\n")
	h.gotoLine("3:6")
	h.alt('a')
	row := -1
	h.untilLong("*code actions* listing Add test for A", func(e *session) bool {
		if e.cur.name != "*code actions*" {
			return false
		}
		for i, l := range e.cur.lines.all() {
			if strings.HasPrefix(l, "Add test for A") {
				row = i
				e.cur.setCursor(pos{i, 0})
				return true
			}
		}
		return false
	})
	h.key(tcell.KeyEnter)
	testPath := filepath.Join(filepath.Dir(path), "m_test.go")
	h.untilLong("m_test.go open with the test", func(e *session) bool {
		for _, b := range e.bufs {
			if b.path == testPath && !b.loading && strings.Contains(b.Text(), "func TestA(t *testing.T)") {
				return b.Modified()
			}
		}
		return false
	})
	require.Positive(t, row)
	_, err := os.Stat(testPath)
	require.True(t, os.IsNotExist(err), "m_test.go is written by a save, not by the edit")
}

// TestGoplsFormatsOnSave covers formatting with gopls: C-s formats the
// file before writing it, M-x format formats without saving, and with
// format-on-save turned off the file is written as it is.
func TestGoplsFormatsOnSave(t *testing.T) {
	const messy, tidy = "package m\nfunc  F( )  int {return 1}\n", "package m\n\nfunc F() int { return 1 }\n"
	h, path := goplsEditor(t, messy)
	mx := func(line string) {
		h.alt('x')
		h.waitText("command (")
		h.typeText(line)
		h.key(tcell.KeyEnter)
	}
	h.typeText(" ") // modified, so the save writes
	h.ctrl('s')
	h.untilOnDisk("the formatted file on disk", path, tidy)
	h.until("the buffer formatted and saved", func(e *session) bool { return e.cur.Text() == tidy && !e.cur.Modified() })

	h.e.call(func() { h.e.cur.setCursor(pos{2, 0}) })
	h.typeText("  ")
	mx("format")
	h.untilLong("M-x format undid the indent, unsaved", func(e *session) bool {
		return e.cur.Text() == tidy && strings.Contains(e.msg, "format: 1 edits")
	})

	mx("format-on-save")
	h.until("format on save off", func(e *session) bool { return e.msg == "format on save: off" })
	h.e.call(func() { h.e.cur.setCursor(pos{2, 0}) })
	h.typeText("  ")
	h.ctrl('s')
	h.untilOnDisk("the file written as it is", path, "package m\n\n  func F() int { return 1 }\n")
}

// untilOnDisk waits, as long as a language server may take, until path
// holds want.
func (h *harness) untilOnDisk(what, path, want string) {
	h.t.Helper()
	h.untilLong(what, func(*session) bool {
		data, _ := os.ReadFile(path)
		return string(data) == want
	})
}

// TestGoplsOrganizesImportsOnSave: a save adds the import a new call
// needs and drops the one no longer used (gopls's organizeImports), then
// formats, before the file is written.
func TestGoplsOrganizesImportsOnSave(t *testing.T) {
	h, path := goplsEditor(t, "package m\n\nimport \"strings\"\n\nfunc F() { fmt.Println(1) }\n")
	h.typeText("\n")
	h.ctrl('s')
	h.untilOnDisk("the imports fixed on disk", path, "package m\n\nimport \"fmt\"\n\nfunc F() { fmt.Println(1) }\n")
}

// TestGoplsDiagnosticsGutter covers the gutter: an undefined name's row is
// marked E (in the error colour) beside the text, the status line gives
// the count and, with the cursor on that row, the message; fixing the name
// clears the mark and the message while the gutter stays.
func TestGoplsDiagnosticsGutter(t *testing.T) {
	dir := goplsModule(t, map[string]string{"m.go": "package m\n\nfunc Target() int { return 1 }\n\nvar X = Target() + undefinedName\n"})
	h := startEditor(t, Options{Path: filepath.Join(dir, "m.go")})
	h.untilLong("the E mark on the undefined name's row", func(e *session) bool {
		s, ok := e.cur.signs.rowsOrNil()[4]
		return ok && s.text == "E"
	})
	h.waitScreen("E in the gutter of row 5, the text one column right", func(rows []string) bool {
		// gopls's inlay hint of X's type may stand after X.
		return strings.HasPrefix(rows[4], "Evar X ") && strings.HasSuffix(rows[4], "= Target() + undefinedName") && rows[0] == " package m"
	})
	var st tcell.Style
	h.e.call(func() { _, st, _ = h.scr.Get(0, 4) })
	fg, _, _ := st.Decompose()
	require.Equal(t, tcell.ColorRed, fg, "the mark is drawn in the error colour")

	h.gotoLine("5:20")
	h.until("the message in the status line", func(e *session) bool {
		return strings.Contains(e.statusText(), "E1 W0  undefined: undefinedName")
	})
	for range len("undefinedName") {
		h.key(tcell.KeyDelete)
	}
	h.typeText("2")
	h.untilLong("the mark and the message cleared", func(e *session) bool {
		return e.cur.Line(4) == "var X = Target() + 2" && e.cur.signs != nil && len(e.cur.signs.rows) == 0 &&
			!strings.Contains(e.statusText(), "undefined")
	})
	h.waitScreen("the gutter empty", func(rows []string) bool {
		return strings.HasPrefix(rows[4], " var X ") && strings.HasSuffix(rows[4], "= Target() + 2")
	})
}

// rowsOrNil lets a test read the marks of a gutter that may not exist yet.
func (s *signColumn) rowsOrNil() map[int]sign {
	if s == nil {
		return nil
	}
	return s.rows
}

// TestCompletionShowsOnlyTheNewestRequest covers "each keystroke
// supersedes the last request" with a scripted server that holds every
// completion request until typing stops, then answers them newest first,
// so the answers to superseded requests arrive last. After M-/ and ten
// quick keystrokes, every list ever drawn must be the one asked at the
// cursor's column when it was drawn (the items name it), the last one the
// newest request's, and every superseded request must have been cancelled.
func TestCompletionShowsOnlyTheNewestRequest(t *testing.T) {
	logPath := useFakeLSP(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.go")
	require.NoError(t, os.WriteFile(path, []byte("package m\n\nvar x = \n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.untilSynced()
	// Record every popup drawn, with the cursor's column at that moment.
	h.e.call(func() {
		require.NoError(t, h.e.L.DoString(`
			local ed = pmacs.editor
			local popup = ed.popup
			popups_shown = {}
			ed.popup = function(buf, lines, opts)
			  if lines then
			    local _, col = ed.cursor(buf)
			    popups_shown[#popups_shown + 1] = {col = col, lines = lines}
			  end
			  return popup(buf, lines, opts)
			end`))
	})
	h.gotoLine("3:9")
	h.until("the cursor at the end of row 3", func(e *session) bool { return e.cur.cursor == pos{2, 8} })
	// Each key waits for its request to reach the server (a key typed
	// before the last request was written supersedes it unsent, and the
	// editor then has nothing to cancel).
	var l fakeLog
	asked := func(col int) {
		t.Helper()
		for deadline := time.Now().Add(waitTimeout); ; time.Sleep(2 * time.Millisecond) {
			l = readFakeLog(t, logPath)
			if len(l.cols) > 0 && l.cols[len(l.cols)-1] == col {
				return
			}
			if time.Now().After(deadline) {
				data, _ := os.ReadFile(logPath)
				t.Fatalf("no completion request at column %d; the server's log:\n%s", col, data)
			}
		}
	}
	h.alt('/')
	asked(8)
	for i, r := range "abcdefghij" {
		h.typeText(string(r))
		asked(9 + i)
	}
	h.until("the popup of the newest request", func(e *session) bool {
		return e.cur.Line(2) == "var x = abcdefghij" && popupHas(e, "c18_alpha")
	})
	// Wait until the server has answered every request it held, the
	// superseded ones after the newest, and has seen the $/cancelRequest
	// of every superseded one (a cancel may reach it after the request
	// that superseded it).
	cancelled := func() bool {
		for _, id := range l.requests[:len(l.requests)-1] {
			if !l.cancels[id] {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(waitTimeout); ; time.Sleep(5 * time.Millisecond) {
		l = readFakeLog(t, logPath)
		if l.answered == len(l.requests) && cancelled() {
			break
		}
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(logPath)
			t.Fatalf("the scripted server was not answered and cancelled as expected; its log:\n%s", data)
		}
	}
	h.e.call(func() {}) // a turn of the loop after the last answers were read
	require.Len(t, l.requests, 11, "M-/ and ten keys each ask once")
	require.False(t, l.cancels[l.requests[len(l.requests)-1]], "the newest request was cancelled")

	type shown struct {
		col   int
		first string
	}
	var got []shown
	h.e.call(func() {
		lt, ok := h.e.L.GetGlobal("popups_shown").(*lua.LTable)
		require.True(t, ok)
		lt.ForEach(func(_, v lua.LValue) {
			r := v.(*lua.LTable)
			lines := r.RawGetString("lines").(*lua.LTable)
			got = append(got, shown{int(r.RawGetString("col").(lua.LNumber)), lines.RawGetInt(1).String()})
		})
	})
	require.NotEmpty(t, got)
	for _, s := range got {
		require.True(t, strings.HasPrefix(s.first, "c"+strconv.Itoa(s.col)+"_"), "a stale list was drawn: %q with the cursor at column %d (all: %+v)", s.first, s.col, got)
	}
	require.Equal(t, "c18_alpha", got[len(got)-1].first)
	require.Equal(t, []string{"c18_alpha", "c18_beta"}, popupLinesOf(h))

	h.key(tcell.KeyTab)
	h.until("the item inserted over the typed word", func(e *session) bool {
		return e.cur.Line(2) == "var x = c18_alpha" && e.cur.popup == nil
	})
}

// TestGutterFollowsInsertedRows covers the gutter between publications:
// the scripted server publishes one warning on row 3 when the file opens
// and never again, so the marker's moves after a line break above it and
// its removal are the editor's own; the status line shows the count and,
// with the cursor on the row, the first line of the message.
func TestGutterFollowsInsertedRows(t *testing.T) {
	useFakeLSP(t)
	path := filepath.Join(t.TempDir(), "m.go")
	require.NoError(t, os.WriteFile(path, []byte("package m\n\nvar x = 1\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	signAt := func(row int) func(e *session) bool {
		return func(e *session) bool {
			s, ok := e.cur.signs.rowsOrNil()[row]
			return ok && s.text == "W" && len(e.cur.signs.rows) == 1
		}
	}
	h.untilLong("the W marker on row 3", signAt(2))
	h.key(tcell.KeyEnter)
	h.until("the marker one row down", signAt(3))
	h.waitScreen("W beside the moved row", func(rows []string) bool { return rows[3] == "Wvar x = 1" && rows[2] == "" })
	h.key(tcell.KeyBackspace)
	h.until("the marker back", signAt(2))
	h.gotoLine("3")
	h.until("the count and the message", func(e *session) bool {
		st := e.statusText()
		return strings.Contains(st, "E0 W1  fake warning") && !strings.Contains(st, "second line")
	})
	h.gotoLine("1")
	h.until("no message off the row", func(e *session) bool {
		st := e.statusText()
		return strings.Contains(st, "E0 W1") && !strings.Contains(st, "fake warning")
	})
}

func popupLinesOf(h *harness) []string {
	var out []string
	h.e.call(func() { out = append(out, popupLines(h.e)...) })
	return out
}

// TestServerApplyEditReachesTheBuffers covers workspace/applyEdit in the
// editor: the scripted server answers a save with an edit of the saved
// file and of a file not open; init.lua's on_apply_edit hook applies both
// through the path rename uses (the other file is opened and edited), and
// the server hears applied = true.
func TestServerApplyEditReachesTheBuffers(t *testing.T) {
	logPath := useFakeLSP(t)
	path, other := fakeEditFiles(t, "m.go")
	h := startEditor(t, Options{Path: path})
	h.untilSynced()
	h.ctrl('s')
	h.until("both files edited", func(e *session) bool {
		var tm, to string
		for _, b := range e.bufs {
			switch {
			case b.path == path:
				tm = b.Text()
			case b.path == other && !b.loading:
				to = b.Text()
			}
		}
		return tm == "// applied\npackage m\n" && to == "package m\n\nvar renamed = 1\n"
	})
	h.until("the count on the message line", func(e *session) bool {
		return strings.Contains(e.msg, "the server applied 2 edits in 2 files")
	})
	requireFakeReply(t, logPath, "apply-1", `reply "apply-1" {"applied":true}`)
}

// Completion belongs to the buffer it was opened in: showing another
// buffer closes its popup and gives the movement keys back (init.lua's
// frame hook), so coming back finds an ordinary buffer.
func TestCompletionClosesWhenAnotherBufferIsShown(t *testing.T) {
	useFakeLSP(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.go")
	// The scripted server answers a completion asked at column 18.
	require.NoError(t, os.WriteFile(path, []byte("package m\n\nvar x = abcdefghij\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.untilSynced()
	h.gotoLine("3:19")
	h.until("the cursor at the end of row 3", func(e *session) bool { return e.cur.cursor == pos{2, 18} })
	h.alt('/')
	h.until("the completion popup", func(e *session) bool { return popupLines(e) != nil })
	var goBuf *buffer
	h.e.call(func() { goBuf = h.e.cur })

	h.ctrl('w') // *workers*
	h.until("*workers* shown", func(e *session) bool { return e.cur.name == "*workers*" })
	h.until("the completion closed", func(e *session) bool { return goBuf.popup == nil })
	var own map[string]binding
	h.e.call(func() { own = maps.Clone(h.e.keys.buffer[goBuf.id]) })
	require.NotContains(t, own, "Down", "the completion's keys are gone from the buffer")
	require.NotContains(t, own, "Enter")
}

// An edit that names the version of the document it was made for is
// applied when the buffer still holds that version, and refused, with
// nothing changed, when the buffer was edited since: applied to the newer
// text it would land in the wrong place. The server hears why.
func TestServerEditForAnOlderVersionIsRefused(t *testing.T) {
	for _, c := range []struct {
		name, file string
		applied    bool
	}{
		{"current", "versioned.go", true},
		{"stale", "versioned_stale.go", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			logPath := useFakeLSP(t)
			path := filepath.Join(t.TempDir(), c.file)
			require.NoError(t, os.WriteFile(path, []byte("package m\n"), 0o644))
			h := startEditor(t, Options{Path: path})
			h.untilSynced()
			h.typeText("x") // version 2 once sent
			h.until("the edit typed", func(e *session) bool { return e.cur.Text() == "xpackage m\n" })
			h.ctrl('s')
			// The reply's fields come in either order.
			want := []string{`reply "apply-v" {"applied":true}`}
			text := "// v\nxpackage m\n"
			if !c.applied {
				want = []string{`"applied":false`, `"failureReason":"the edit was made for version 1 of ` + c.file + `, which has changed since (version 2): nothing was applied"`}
				text = "xpackage m\n"
			}
			requireFakeReply(t, logPath, "apply-v", want...)
			h.until("the buffer's text", func(e *session) bool { return e.cur.Text() == text })
		})
	}
}

// A workspace edit whose edits of one file cannot be applied changes none
// of the files: every file's edits are checked first. Before, open files
// were edited one by one (the first stayed edited), and a file not open
// was edited once its text loaded, after the server had been told
// "applied" and after the other files were edited. A file the refused
// edit opened is closed again.
func TestWorkspaceEditWithABadFileAppliesNothing(t *testing.T) {
	for _, badOpen := range []bool{true, false} {
		name := "bad file open"
		if !badOpen {
			name = "bad file not open"
		}
		t.Run(name, func(t *testing.T) {
			logPath := useFakeLSP(t)
			path, other := fakeEditFiles(t, "atomic.go")
			h := startEditor(t, Options{Path: path})
			h.untilSynced()
			if badOpen {
				h.e.call(func() {
					require.NoError(t, h.e.L.DoString(fmt.Sprintf(`assert(pmacs.editor.open(%q))`, other)))
				})
				h.until("other.go read", func(e *session) bool {
					b := e.findBuffer("other.go")
					return b != nil && !b.loading
				})
			}
			h.ctrl('s')
			// The reply's fields come in either order.
			want := []string{`"applied":false`, `"failureReason":"check_text_edits: edit 1: line 99 is past the end of other.go (3 rows): nothing was applied"`}
			requireFakeReply(t, logPath, "apply-a", want...)
			var texts map[string]string
			h.e.call(func() {
				texts = map[string]string{}
				for _, b := range h.e.bufs {
					if b.path != "" {
						texts[b.path] = b.Text()
					}
				}
			})
			require.Equal(t, "package m\n", texts[path], "the good file's edit was not applied either")
			if badOpen {
				require.Equal(t, "package m\n\nvar x = 1\n", texts[other])
			} else {
				require.NotContains(t, texts, other, "the buffer the refused edit opened is closed")
			}
		})
	}
}

// A workspace edit may create a file: the editor opens a new buffer for it,
// which the edits after the create fill and the first save writes. A
// create of a file that exists, and an edit of a file that does not exist
// without a create, are refused with nothing applied. Before, every create
// was refused ("file operations (create) are not supported", which gopls's
// "Add test for A" sends), and an edit of a missing file made it.
func TestWorkspaceEditCreatesAFile(t *testing.T) {
	for _, c := range []struct{ file, reply string }{
		{"create_new.go", `{"applied":true}`},
		{"create_exists.go", `"failureReason":"the edit creates other.go, which exists: nothing was applied"`},
		{"create_missing.go", `"failureReason":"the edit changes missing.go, which does not exist: nothing was applied"`},
	} {
		t.Run(c.file, func(t *testing.T) {
			logPath := useFakeLSP(t)
			path, other := fakeEditFiles(t, c.file)
			dir := filepath.Dir(path)
			h := startEditor(t, Options{Path: path})
			h.untilSynced()
			h.ctrl('s')
			requireFakeReply(t, logPath, "apply-c", c.reply)
			texts := map[string]string{}
			h.e.call(func() {
				for _, b := range h.e.bufs {
					if b.path != "" {
						texts[filepath.Base(b.path)] = b.Text()
					}
				}
			})
			_, err := os.Stat(filepath.Join(dir, "new.go"))
			require.True(t, os.IsNotExist(err), "the created file is written by a save, not by the edit")
			if c.file == "create_new.go" {
				require.Equal(t, "package m\n\nvar created = 1\n", texts["new.go"])
				return
			}
			require.NotContains(t, texts, "new.go")
			require.NotContains(t, texts, "missing.go")
			data, err := os.ReadFile(other)
			require.NoError(t, err)
			require.Equal(t, "package m\n\nvar x = 1\n", string(data))
		})
	}
}

// requireFakeReply waits for the scripted server to log the editor's reply
// to its request id, and requires that log to hold each of want.
func requireFakeReply(t *testing.T, logPath, id string, want ...string) {
	t.Helper()
	for deadline := time.Now().Add(waitTimeout); ; time.Sleep(5 * time.Millisecond) {
		data, err := os.ReadFile(logPath)
		if !os.IsNotExist(err) { // the server logs nothing before the answer
			require.NoError(t, err)
		}
		if strings.Contains(string(data), `reply "`+id+`"`) {
			for _, w := range want {
				require.Contains(t, string(data), w)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server heard no answer to %s; its log:\n%s", id, data)
		}
	}
}

// fakeEditFiles writes, in a new directory, name ("package m") and
// other.go beside it, the two files the scripted server's edits touch.
func fakeEditFiles(t *testing.T, name string) (path, other string) {
	t.Helper()
	dir := t.TempDir()
	path, other = filepath.Join(dir, name), filepath.Join(dir, "other.go")
	require.NoError(t, os.WriteFile(path, []byte("package m\n"), 0o644))
	require.NoError(t, os.WriteFile(other, []byte("package m\n\nvar x = 1\n"), 0o644))
	return path, other
}

// A workspace edit may rename and delete files: the edits of a file before
// and after its rename land in its buffer, the rename makes the missing
// directories and the buffer follows it, and the delete removes the file.
// A rename over an existing file is refused with nothing done: no edit in
// a buffer, no directory made, no file moved or removed. Two edits of one
// file apply in turn, the second to the text the first leaves; a bad second
// one undoes the first. Before, any file operation but create was refused,
// and two edits of one file were applied as one, to the text before both.
func TestWorkspaceEditRenamesAndDeletesFiles(t *testing.T) {
	for _, c := range []struct{ file, reply string }{
		{"fileops_move.go", `{"applied":true}`},
		{"fileops_taken.go", `"failureReason":"the edit renames other.go to taken.txt, which exists: nothing was applied"`},
		{"fileops_bad_second.go", `nothing was applied"`},
		{"fileops_unsaved.go", `"failureReason":"the edit deletes gone.txt, which has unsaved changes: nothing was applied"`},
	} {
		t.Run(c.file, func(t *testing.T) {
			logPath := useFakeLSP(t)
			path, other := fakeEditFiles(t, c.file)
			dir := filepath.Dir(path)
			gone, taken := filepath.Join(dir, "gone.txt"), filepath.Join(dir, "taken.txt")
			require.NoError(t, os.WriteFile(gone, []byte("x\n"), 0o644))
			require.NoError(t, os.WriteFile(taken, []byte("y\n"), 0o644))
			h := startEditor(t, Options{Path: path})
			h.untilSynced()
			if c.file == "fileops_unsaved.go" {
				// gone.txt open, with a change not saved.
				var err error
				h.e.call(func() { err = h.e.L.DoString(fmt.Sprintf(`gone = pmacs.editor.open(%q)`, gone)) })
				require.NoError(t, err)
				h.until("gone.txt read", func(e *session) bool { return e.findBuffer(gone) != nil && !e.findBuffer(gone).loading })
				h.e.call(func() {
					err = h.e.L.DoString(fmt.Sprintf(`pmacs.editor.set_lines(gone, 0, 0, {"unsaved"}) pmacs.editor.show(pmacs.editor.find(%q))`, path))
				})
				require.NoError(t, err)
			}
			h.ctrl('s')
			requireFakeReply(t, logPath, "apply-f", c.reply)
			moved := filepath.Join(dir, "sub", "dir", "moved.go")
			texts := map[string]string{}
			h.e.call(func() {
				for _, b := range h.e.bufs {
					if b.path != "" {
						texts[b.path] = b.Text()
					}
				}
			})
			if c.file == "fileops_move.go" {
				require.Equal(t, "// after the move\n// before the move\npackage m\n\nvar x = 1\n", texts[moved], "the buffer follows its file, with both edits")
				require.NotContains(t, texts, other)
				data, err := os.ReadFile(moved)
				require.NoError(t, err)
				require.Equal(t, "package m\n\nvar x = 1\n", string(data), "the file moved as it was: the edits wait for a save")
				require.NoFileExists(t, other)
				require.NoFileExists(t, gone)
				return
			}
			if c.file == "fileops_unsaved.go" {
				require.Equal(t, "unsaved\nx\n", texts[gone])
			}
			require.NotContains(t, texts, other, "the buffer opened for the edit was closed again")
			require.NoDirExists(t, filepath.Join(dir, "sub"))
			require.FileExists(t, gone)
			for file, want := range map[string]string{other: "package m\n\nvar x = 1\n", taken: "y\n"} {
				data, err := os.ReadFile(file)
				require.NoError(t, err)
				require.Equal(t, want, string(data))
			}
		})
	}
}

// TestGoplsRenamePackageMovesItsDirectory runs gopls's package rename: F2
// on a package clause renames the package, and gopls, told that the editor
// renames and deletes files, moves the package's files to the new
// directory and deletes the old one. The importer's edits land in its
// buffer, the moved file's buffer follows it with its edit, and the disk
// holds the move (the edits wait for a save). The moved file has a change
// not saved: the delete of its old directory comes after the file has
// left it, so it is no reason to refuse (a check of the buffers by their
// paths before the renames refused it). The editor is started in the
// module, its workspace: the rename edits and moves files all over it,
// and a server's edit never reaches beyond the workspace.
func TestGoplsRenamePackageMovesItsDirectory(t *testing.T) {
	dir := goplsModule(t, map[string]string{"main.go": "package main\n\nimport \"example.com/m/foo\"\n\nfunc main() { _ = foo.A() }\n"})
	testenv.WriteTree(t, dir, map[string]string{"foo/foo.go": "package foo\n\nfunc A() int { return 1 }\n"})
	h := startEditor(t, Options{Path: dir})
	h.waitText("..")
	h.alt('x')
	h.waitText("command (")
	h.typeText("open foo/foo.go")
	h.key(tcell.KeyEnter)
	h.untilSynced()
	h.e.call(func() { h.e.cur.setCursor(pos{1, 0}) })
	h.typeText("// note")
	h.renameSymbol("1:9", "foo", "bar")
	h.untilLong("the rename's message", func(e *session) bool {
		return strings.Contains(e.msg, "rename foo to bar:") && strings.Contains(e.msg, ", 2 files moved or deleted")
	})
	moved, main := filepath.Join(dir, "bar", "foo.go"), filepath.Join(dir, "main.go")
	texts := map[string]string{}
	h.e.call(func() {
		for _, b := range h.e.bufs {
			if b.path != "" {
				texts[b.path] = b.Text()
			}
		}
	})
	require.Equal(t, "package bar\n// note\nfunc A() int { return 1 }\n", texts[moved])
	require.Equal(t, "package main\n\nimport \"example.com/m/bar\"\n\nfunc main() { _ = bar.A() }\n", texts[main])
	require.NoDirExists(t, filepath.Join(dir, "foo"))
	data, err := os.ReadFile(moved)
	require.NoError(t, err)
	require.Equal(t, "package foo\n\nfunc A() int { return 1 }\n", string(data))
}
