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

func (h *harness) bufText() string {
	var s string
	h.e.call(func() { s = h.e.cur.Text() })
	return s
}

func (h *harness) undoKey() { h.post(tcell.NewEventKey(tcell.KeyRune, 'z', tcell.ModCtrl)) }

// startReplace types M-%, the pattern (M-r first when toggle: the
// choice of regex or literal stays from one replace to the next) and the
// replacement.
func (h *harness) startReplace(pattern, replacement string, toggle bool) {
	h.t.Helper()
	h.alt('%')
	h.waitScreen("the replace prompt", bottomHas("replace: "))
	if toggle {
		h.alt('r')
	}
	h.typeText(pattern)
	h.key(tcell.KeyEnter)
	h.waitScreen("the replacement prompt", bottomHas("with:"))
	h.typeText(replacement)
	h.key(tcell.KeyEnter)
}

// M-% asks about each match from the cursor on (y replaces, n skips, q
// stops), replaces the accepted ones together, and one C-z takes them all
// back.
func TestReplaceConfirmsEachMatchAsOneUndoStep(t *testing.T) {
	const text = "foo bar foo\nfoo baz\nxfoo end\n"
	h := startEditor(t, Options{Path: writeTestFile(t, "r.txt", text)})
	h.waitText("xfoo end")
	h.startReplace("foo", "qux", false)
	h.waitScreen("the first question", bottomHas(`replace "foo" with "qux"? (y/n/!/q) [1 of 4]`))
	h.typeText("y")
	h.waitScreen("the second", bottomHas("[2 of 4]"))
	h.typeText("n")
	h.waitScreen("the third", bottomHas("[3 of 4]"))
	require.Equal(t, pos{1, 3}, h.cursor(), "the match asked about is selected, the cursor at its end")
	h.typeText("y")
	h.waitScreen("the fourth", bottomHas("[4 of 4]"))
	h.typeText("q")
	h.waitScreen("done", bottomHas("replaced 2 of 4 matches"))
	require.Equal(t, "qux bar foo\nqux baz\nxfoo end\n", h.bufText())
	h.undoKey()
	h.until("one undo takes every replacement back", func(e *session) bool { return e.cur.Text() == text })
}

// A regex replacement uses \1 for the pattern's groups; ! replaces this
// match and every one after it; Esc replaces nothing; a bad regex or a
// group the pattern lacks says why.
func TestReplaceRegexGroupsAllAndCancel(t *testing.T) {
	const text = "a=1 b=22\nc=333\n"
	h := startEditor(t, Options{Path: writeTestFile(t, "r.txt", text)})
	h.waitText("c=333")
	h.startReplace(`(\w)=(\d+)`, `\2:\1`, true)
	h.waitScreen("the first question", bottomHas(`replace "a=1" with "1:a"? (y/n/!/q) [1 of 3]`))
	h.typeText("!")
	h.waitScreen("done", bottomHas("replaced 3 of 3 matches"))
	require.Equal(t, "1:a 22:b\n333:c\n", h.bufText())
	h.undoKey()
	h.until("one undo", func(e *session) bool { return e.cur.Text() == text })

	h.startReplace(`(\w)=`, `\1\3`, false)
	h.waitScreen("the group error", bottomHas(`uses group \3, but the pattern has 1`))
	h.startReplace(`(`, `x`, false)
	h.waitScreen("the regex error", bottomHas("invalid regex"))

	h.startReplace("=", "-", true)
	h.waitScreen("the question", bottomHas("[1 of 3]"))
	h.key(tcell.KeyEscape)
	h.waitScreen("nothing replaced", bottomHas("nothing replaced"))
	require.Equal(t, text, h.bufText())
}

// grepThenReplace greps query in the editor's project, then asks
// M-% in *grep* to replace it with replacement, and waits for the review.
// (grep counts the rows that match: lines).
func (h *harness) grepThenReplace(query, replacement string, lines, matches, files int) {
	h.t.Helper()
	h.ctrl('f')
	h.waitText("grep:")
	h.typeText(query)
	h.waitText(fmt.Sprintf(`grep %q: %d matches`, query, lines))
	h.until("the grep done", func(e *session) bool {
		return e.bufs[e.cur.id].gv != nil && strings.Contains(e.cur.lines.row(0), "done")
	})
	h.alt('%')
	h.waitScreen("the replacement prompt", bottomHas("with:"))
	h.typeText(replacement)
	h.key(tcell.KeyEnter)
	h.waitText(fmt.Sprintf("%d matches in %d files", matches, files))
	h.waitScreen("the question", bottomHas("apply "))
}

// undoSteps reports how many undo steps the buffer visiting path holds.
func undoSteps(e *session, path string) int {
	for _, b := range e.bufs {
		if b.path == path {
			return len(b.undo.done)
		}
	}
	return -1
}

// M-% in *grep* replaces the grep's matches across the project after a
// review: through the workspace-edit path, every file at once, one undo
// step per file, the buffers left modified (y) and the disk as it was; s
// saves them as well.
func TestProjectReplaceFromGrep(t *testing.T) {
	proj := t.TempDir()
	testenv.WriteTree(t, proj, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"a.txt":     "old one\nkeep\nold old two\n",
		"sub/b.txt": "the old days\n",
		"c.txt":     "nothing here\n",
	})
	h := startEditor(t, Options{Path: proj})
	h.waitText("a.txt")
	h.grepThenReplace("old", "new", 3, 4, 2)
	rows := h.rows()
	require.True(t, anyContains(rows, "a.txt:3: new new two"), strings.Join(rows, "\n"))
	require.True(t, anyContains(rows, "sub/b.txt:1: the new days"), strings.Join(rows, "\n"))
	h.typeText("y")
	h.waitScreen("applied", bottomHas("replaced 4 matches in 2 files"))

	a, b := filepath.Join(proj, "a.txt"), filepath.Join(proj, "sub/b.txt")
	h.until("the buffers edited, one undo step each", func(e *session) bool {
		ba, bb := e.bufs[findBuf(e, a)], e.bufs[findBuf(e, b)]
		return ba != nil && bb != nil && ba.Text() == "new one\nkeep\nnew new two\n" && bb.Text() == "the new days\n" &&
			ba.Modified() && bb.Modified() && undoSteps(e, a) == 1 && undoSteps(e, b) == 1
	})
	data, err := os.ReadFile(a)
	require.NoError(t, err)
	require.Equal(t, "old one\nkeep\nold old two\n", string(data), "the disk waits for a save")

	// Undo the edits, then replace again, saving.
	h.e.call(func() {
		for _, p := range []string{a, b} {
			require.True(t, h.e.bufs[findBuf(h.e, p)].undoStep())
		}
	})
	h.grepThenReplace("old", "NEW", 3, 4, 2)
	h.typeText("s")
	h.until("saved", func(*session) bool {
		da, _ := os.ReadFile(a)
		db, _ := os.ReadFile(b)
		return string(da) == "NEW one\nkeep\nNEW NEW two\n" && string(db) == "the NEW days\n"
	})
}

func findBuf(e *session, path string) int {
	for id, b := range e.bufs {
		if b.path == path {
			return id
		}
	}
	return 0
}

// Benchmark (env-gated: PMACS_EDITOR_BENCH=1): replacing 1,000 grep
// matches across 100 files, from the y to the message, with one undo
// step per file.
func TestProjectReplaceFigures(t *testing.T) {
	if os.Getenv("PMACS_EDITOR_BENCH") == "" {
		t.Skip("set PMACS_EDITOR_BENCH=1 to time a project-wide replace")
	}
	proj := t.TempDir()
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
	for i := range 100 {
		var sb strings.Builder
		for j := range 10 {
			fmt.Fprintf(&sb, "line %d calls oldName(%d) here\nfiller %d\n", j, j, j)
		}
		files[fmt.Sprintf("pkg%02d/f%02d.go", i/10, i)] = sb.String()
	}
	testenv.WriteTree(t, proj, files)
	h := startEditor(t, Options{Path: proj})
	h.waitText("pkg00")
	start := time.Now()
	h.grepThenReplace("oldName", "newName", 1000, 1000, 100)
	review := time.Since(start)
	t0 := time.Now()
	h.typeText("y")
	h.waitScreen("applied", bottomHas("replaced 1000 matches in 100 files"))
	applied := time.Since(t0)
	h.e.call(func() {
		n := 0
		for _, b := range h.e.bufs {
			if b.path != "" && strings.HasSuffix(b.path, ".go") {
				n++
				require.Equal(t, 1, len(b.undo.done), b.path)
				require.NotContains(t, b.Text(), "oldName")
			}
		}
		require.Equal(t, 100, n)
	})
	t.Logf("project-replace of 1000 matches in 100 files: %v from C-f to the review (grep, opening and planning), %v to apply (one undo step per file)", review, applied)
}

// The replacer expands \N groups, keeps $ and other text literal, folds
// case when asked, and refuses a group the pattern lacks.
func TestReplacerExpandsGroupsAndKeepsTextLiteral(t *testing.T) {
	type hit struct {
		s, e int
		text string
	}
	run := func(pattern, repl string, regex, cs bool, line string) []hit {
		r, err := newReplacer(pattern, repl, regex, cs)
		require.NoError(t, err)
		var out []hit
		r.line(line, func(s, e int, text string) { out = append(out, hit{s, e, text}) })
		return out
	}
	require.Equal(t, []hit{{0, 5, "v2=k1 $1 \\"}}, run(`(\w+):(\w+)`, `\2=\1 $1 \\`, true, true, "k1:v2"), "groups, a literal dollar and backslash")
	require.Equal(t, []hit{{0, 3, `\1$x`}, {4, 7, `\1$x`}}, run("a.b", `\1$x`, false, true, "a.b a.b axb"), "a literal pattern and replacement")
	require.Equal(t, []hit{{0, 3, "z"}, {4, 7, "z"}}, run("abc", "z", false, false, "ABC abc"), "folded case")
	_, err := newReplacer(`(a)`, `\2`, true, true)
	require.ErrorContains(t, err, `uses group \2, but the pattern has 1`)
	_, err = newReplacer(``, `x`, false, true)
	require.ErrorContains(t, err, "empty pattern")
}
