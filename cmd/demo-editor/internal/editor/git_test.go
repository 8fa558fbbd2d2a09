package editor

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/internal/testenv"
)

// gitEditor is an editor on a file committed in a fresh repository, in a
// trusted workspace, its git gutter attached.
type gitEditor struct {
	*harness
	repo *testenv.GitRepo
	path string
}

// gitEnvForEditor makes the editor's git see no user configuration and
// commit as a fixed author.
func gitEnvForEditor(t *testing.T, home string) {
	for _, kv := range testenv.GitEnv(home)[len(os.Environ()):] {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

func startGitEditor(t *testing.T, text string) *gitEditor {
	t.Helper()
	repo := testenv.NewGitRepo(t)
	freshTrust(t)
	// A home of its own: the project watch (pmacs.disk) never watches the
	// home directory, and the repository is the project.
	gitEnvForEditor(t, t.TempDir())
	path := filepath.Join(repo.Root, "notes.txt")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	repo.Git("add", "notes.txt")
	repo.Git("commit", "-qm", "first notes")
	h := startEditor(t, Options{Path: path})
	h.until("the file", func(e *session) bool { return e.cur.path == path && !e.cur.loading })
	h.runTask(`assert(pmacs.trust.allow())`, nil)
	g := &gitEditor{harness: h, repo: repo, path: path}
	g.untilGutter("the gutter", func(rs []signRange) bool { return rs != nil })
	return g
}

// gutter is the git layer of the file's buffer, nil while there is none.
func (g *gitEditor) gutter() []signRange {
	var out []signRange
	g.e.call(func() {
		for _, b := range g.e.bufs {
			if b.path == g.path {
				if rs, ok := b.signLayers["git"]; ok {
					out = append([]signRange{}, rs...)
				}
			}
		}
	})
	return out
}

func (g *gitEditor) untilGutter(what string, cond func([]signRange) bool) {
	g.t.Helper()
	g.untilLong(what, func(e *session) bool {
		for _, b := range e.bufs {
			if b.path == g.path {
				rs, ok := b.signLayers["git"]
				if !ok {
					return cond(nil)
				}
				return cond(append([]signRange{}, rs...))
			}
		}
		return false
	})
}

// setText replaces the buffer's text (as typing would, through the undo
// log and the change event).
func (g *gitEditor) setText(lines []string) {
	g.t.Helper()
	src := "local buf = ed.find(PATH)\nlocal lines = {}\n"
	for _, l := range lines {
		src += "lines[#lines + 1] = " + strconv.Quote(l) + "\n"
	}
	src += "ed.set_lines(buf, 0, -1, lines)\n"
	g.runTask("local ed = pmacs.editor\n"+src, map[string]string{"PATH": g.path})
}

func (g *gitEditor) bufLines() []string {
	var out []string
	g.e.call(func() {
		for _, b := range g.e.bufs {
			if b.path == g.path {
				out = slices.Clone(b.lines.all())
			}
		}
	})
	return out
}

var hunkHeaderRE = regexp.MustCompile(`(?m)^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// wantGutter is the gutter git's own -U0 hunks call for: rows added,
// changed, and the row after removed ones (the last row when they were
// at the end).
func wantGutter(t *testing.T, diffOut string, nrows int) []string {
	num := func(s string) int {
		if s == "" {
			return 1
		}
		n, err := strconv.Atoi(s)
		require.NoError(t, err)
		return n
	}
	var out []string
	for _, m := range hunkHeaderRE.FindAllStringSubmatch(diffOut, -1) {
		oc, ns, nc := num(m[2]), num(m[3]), num(m[4])
		switch {
		case oc == 0:
			out = append(out, fmt.Sprintf("%d+%d %s", ns-1, nc, "+"))
		case nc == 0 && ns < nrows:
			out = append(out, fmt.Sprintf("%d+0 %s", ns, "‾"))
		case nc == 0:
			out = append(out, fmt.Sprintf("%d+0 %s", max(nrows-1, 0), "_"))
		default:
			out = append(out, fmt.Sprintf("%d+%d %s", ns-1, nc, "~"))
		}
	}
	return out
}

func gutterText(rs []signRange) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%d+%d %s", r.first, r.count, r.text))
	}
	return out
}

func numberedLines(n int) []string {
	var lines []string
	for i := range n {
		switch {
		case i%7 == 3:
			lines = append(lines, "")
		case i%5 == 0:
			lines = append(lines, "}")
		default:
			lines = append(lines, fmt.Sprintf("\tline %d of the notes", i))
		}
	}
	return lines
}

// The gutter marks what git diff -U0 reports for the same text, for
// random edit scripts made in the buffer (insertions of new and repeated
// lines, deletions, rewrites): git writes the buffer's text to the file
// and its hunks are turned into the rows the gutter should mark.
func TestGitGutterMarksWhatGitDiffReports(t *testing.T) {
	base := numberedLines(120)
	g := startGitEditor(t, strings.Join(base, "\n")+"\n")
	require.Empty(t, g.gutter(), "an unchanged file has an empty gutter")
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 3))
		lines := slices.Clone(base)
		for range 1 + r.IntN(5) {
			at := r.IntN(len(lines) + 1)
			n := 1 + r.IntN(3)
			switch r.IntN(4) {
			case 0:
				for k := range n {
					lines = slices.Insert(lines, at, fmt.Sprintf("new %d.%d", seed, k))
				}
			case 1:
				for range n {
					lines = slices.Insert(lines, at, lines[max(0, min(len(lines)-1, at-1))])
				}
			case 2:
				lines = slices.Delete(lines, at, min(len(lines), at+n))
			default:
				for k := at; k < min(len(lines), at+n); k++ {
					lines[k] += " (changed)"
				}
			}
		}
		if len(lines) == 0 {
			lines = []string{"only"}
		}
		g.setText(lines)
		require.NoError(t, os.WriteFile(g.path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
		want := wantGutter(t, g.repo.Git("diff", "-U0", "--no-color", "--no-ext-diff", "notes.txt"), len(lines))
		g.untilGutter(fmt.Sprintf("seed %d: %v", seed, want), func(rs []signRange) bool {
			return slices.Equal(gutterText(rs), want)
		})
	}
}

// M-x stage-hunk puts the hunk at the cursor into the index (git diff
// --cached shows it, and no other), and the gutter drops it.
func TestGitStageHunkPutsItIntoTheIndex(t *testing.T) {
	base := numberedLines(40)
	g := startGitEditor(t, strings.Join(base, "\n")+"\n")
	lines := slices.Clone(base)
	lines[4] = "first change"
	lines = slices.Insert(lines, 30, "second change")
	g.setText(lines)
	g.untilGutter("two hunks", func(rs []signRange) bool { return len(rs) == 2 })
	g.runTask(`pmacs.editor.set_cursor(pmacs.editor.find(PATH), 30, 0)`, map[string]string{"PATH": g.path})
	g.command("stage-hunk")
	g.untilGutter("one hunk left", func(rs []signRange) bool { return len(rs) == 1 && rs[0].first == 4 })
	cached := g.repo.Git("diff", "--cached", "-U0", "--no-color")
	require.Contains(t, cached, "+second change")
	require.NotContains(t, cached, "first change")
	require.Contains(t, cached, "@@ -30,0 +31 @@")
}

// M-x revert-hunk puts the index's text of the hunk at the cursor back in
// the buffer; with every hunk reverted the buffer is the index's text.
func TestGitRevertHunkRestoresTheIndexText(t *testing.T) {
	base := numberedLines(40)
	g := startGitEditor(t, strings.Join(base, "\n")+"\n")
	lines := slices.Clone(base)
	lines[4] = "changed"
	lines = slices.Delete(lines, 20, 23)
	lines = slices.Insert(lines, 30, "added", "added too")
	g.setText(lines)
	g.untilGutter("three hunks", func(rs []signRange) bool { return len(rs) == 3 })
	for n := 3; n > 0; n-- {
		// The first hunk each time: a revert moves the rows below it.
		row := g.gutter()[0].first
		g.runTask(`pmacs.editor.set_cursor(pmacs.editor.find(PATH), `+strconv.Itoa(row)+`, 0)`, map[string]string{"PATH": g.path})
		g.command("revert-hunk")
		g.untilGutter("a hunk fewer", func(rs []signRange) bool { return len(rs) == n-1 })
	}
	require.Equal(t, base, g.bufLines())
}

// M-x git-blame names the commit's author and summary for a committed
// line, and says a line typed since is not committed yet.
func TestGitBlameShowsAuthorAndSummary(t *testing.T) {
	g := startGitEditor(t, strings.Join(numberedLines(10), "\n")+"\n")
	g.runTask(`pmacs.editor.set_cursor(pmacs.editor.find(PATH), 2, 0)`, map[string]string{"PATH": g.path})
	g.alt('x')
	g.waitText("command (")
	g.typeText("git-blame")
	g.key(tcell.KeyEnter)
	g.until("the blame", func(e *session) bool { return strings.Contains(e.msg, "Ada Author") })
	var msg string
	g.e.call(func() { msg = g.e.msg })
	require.Contains(t, msg, "line 3:")
	require.Contains(t, msg, "first notes")

	g.runTask(`local ed = pmacs.editor
		local buf = ed.find(PATH)
		ed.set_lines(buf, 0, 0, {"typed just now"})
		ed.set_cursor(buf, 0, 0)`, map[string]string{"PATH": g.path})
	g.alt('x')
	g.waitText("command (")
	g.typeText("git-blame")
	g.key(tcell.KeyEnter)
	g.until("the blame of a new line", func(e *session) bool { return strings.Contains(e.msg, "line 1: not committed yet") })
}

// The status line shows the branch, and a * once the work tree differs
// from HEAD (after a save); a commit outside the editor takes it away.
func TestGitStatusLineShowsBranchAndDirtyMark(t *testing.T) {
	g := startGitEditor(t, "one\ntwo\n")
	g.until("the branch", statusHas("git:main "))
	g.setText([]string{"one", "two", "three"})
	g.ctrl('s')
	g.until("the dirty mark", statusHas("git:main*"))
	g.repo.Git("commit", "-qam", "three")
	g.until("clean again", func(e *session) bool {
		return strings.Contains(e.statusText(), "git:main") && !strings.Contains(e.statusText(), "git:main*")
	})
}

// A file another program writes in the work tree makes it dirty, and the
// status line says so without a save or a change in the git directory (the
// project watch's changes refresh the status).
func TestGitDirtyMarkFollowsExternalWrites(t *testing.T) {
	g := startGitEditor(t, "one\n")
	g.until("the clean branch", statusHas("git:main "))
	require.NoError(t, os.WriteFile(filepath.Join(g.repo.Root, "other.txt"), []byte("x\n"), 0o644))
	g.until("the dirty mark", statusHas("git:main*"))
}

// A git add outside the editor refreshes the gutter: the index now holds
// the buffer's text, so nothing is marked; a checkout of the old text
// marks the hunk again.
func TestGitExternalAddRefreshesTheGutter(t *testing.T) {
	g := startGitEditor(t, "one\ntwo\nthree\n")
	g.setText([]string{"one", "2", "three"})
	g.ctrl('s')
	g.untilGutter("the change", func(rs []signRange) bool { return slices.Equal(gutterText(rs), []string{"1+1 ~"}) })
	g.repo.Git("add", "notes.txt")
	g.untilGutter("no change against the new index", func(rs []signRange) bool { return rs != nil && len(rs) == 0 })
	g.repo.Git("reset", "-q", "notes.txt")
	g.untilGutter("the change again", func(rs []signRange) bool { return slices.Equal(gutterText(rs), []string{"1+1 ~"}) })
}

// Hunk navigation: M-} and M-{ move the cursor to the next and previous
// hunk's first row.
func TestGitHunkNavigation(t *testing.T) {
	base := numberedLines(40)
	g := startGitEditor(t, strings.Join(base, "\n")+"\n")
	lines := slices.Clone(base)
	lines[10] = "x"
	lines[25] = "y"
	g.setText(lines)
	g.untilGutter("two hunks", func(rs []signRange) bool { return len(rs) == 2 })
	g.runTask(`pmacs.editor.set_cursor(pmacs.editor.find(PATH), 0, 0)`, map[string]string{"PATH": g.path})
	cursorRow := func(want int) func(e *session) bool {
		return func(e *session) bool { return e.cur.cursor.Row == want }
	}
	g.alt('}')
	g.until("the first hunk", cursorRow(10))
	g.alt('}')
	g.until("the second hunk", cursorRow(25))
	g.alt('{')
	g.until("back to the first", cursorRow(10))
}

// M-x git-status lists the work tree's changed and untracked files in
// *git-status*; Enter on a row opens its file.
func TestGitStatusListsChangedFiles(t *testing.T) {
	g := startGitEditor(t, "one\n")
	require.NoError(t, os.WriteFile(g.path, []byte("one\ntwo\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(g.repo.Root, "other.txt"), []byte("x\n"), 0o644))
	g.alt('x')
	g.waitText("command (")
	g.typeText("git-status")
	g.key(tcell.KeyEnter)
	g.waitText("?? other.txt")
	rows := g.waitText(" M notes.txt")
	require.True(t, anyContains(rows, "git status of "+g.repo.Root))
	g.until("the list's cursor on its first file", func(e *session) bool { return e.cur.name == "*git-status*" && e.cur.cursor.Row == 1 })
	g.key(tcell.KeyDown)
	g.until("the second row", func(e *session) bool { return e.cur.cursor.Row == 2 })
	g.key(tcell.KeyEnter)
	g.until("other.txt open", func(e *session) bool { return e.cur.path == filepath.Join(g.repo.Root, "other.txt") })
}

// The picker's "!" mode ranks the files git status names: typing part of
// one's name puts it first, and Enter opens it.
func TestGitChangedFilesInThePicker(t *testing.T) {
	g := startGitEditor(t, "one\n")
	require.NoError(t, os.WriteFile(g.path, []byte("one\ntwo\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(g.repo.Root, "other.txt"), []byte("x\n"), 0o644))
	g.ctrl('p')
	g.waitText("find (@ buffers, > commands, ! changed)")
	g.typeText("!")
	g.waitText("other.txt")
	g.waitText("notes.txt")
	g.typeText("oth")
	rows := g.waitText(`changed "oth": 1 of 2`)
	require.False(t, anyContains(rows, "notes.txt"), "only the file the query matches")
	g.key(tcell.KeyEnter)
	g.until("other.txt open", func(e *session) bool { return e.cur.path == filepath.Join(g.repo.Root, "other.txt") })
}

// Nothing runs git for a file of an untrusted workspace (git would read
// the repository's configuration, which can name programs): no gutter and
// no branch until M-x trust, and then both come without reopening.
func TestGitWaitsForTheWorkspaceTrust(t *testing.T) {
	repo := testenv.NewGitRepo(t)
	freshTrust(t)
	// A home of its own: the project watch (pmacs.disk) never watches the
	// home directory, and the repository is the project.
	gitEnvForEditor(t, t.TempDir())
	path := filepath.Join(repo.Root, "notes.txt")
	require.NoError(t, os.WriteFile(path, []byte("one\n"), 0o644))
	repo.Git("add", "notes.txt")
	repo.Git("commit", "-qm", "first")
	// A repository whose configuration runs a program on git status.
	marker := filepath.Join(t.TempDir(), "ran")
	repo.Git("config", "core.fsmonitor", "touch "+marker+"; false")
	require.NoError(t, os.WriteFile(path, []byte("one\ntwo\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.until("the untrusted note", messagesHave("git: the workspace is not trusted"))
	g := &gitEditor{harness: h, repo: repo, path: path}
	require.Nil(t, g.gutter())
	require.NotContains(t, statusTextOf(h), "git:")
	require.NoFileExists(t, marker)
	h.runTask(`assert(pmacs.trust.allow())`, nil)
	g.untilGutter("the gutter once trusted", func(rs []signRange) bool { return slices.Equal(gutterText(rs), []string{"1+1 +"}) })
	h.until("the branch", statusHas("git:main*"))
	require.FileExists(t, marker, "trusted, git status ran the repository's program: what the wait kept from running")
	h.runTask(`assert(pmacs.trust.remove())`, nil)
	g.untilGutter("no gutter once untrusted", func(rs []signRange) bool { return rs == nil })
	h.until("no branch", func(e *session) bool { return !strings.Contains(e.statusText(), "git:") })
}

// A file whose index text has no last newline stages a hunk of its last
// line (the patch says so, or git apply refuses it).
func TestGitStageHunkOfALastLineWithoutNewline(t *testing.T) {
	g := startGitEditor(t, "one\ntwo")
	g.setText([]string{"one", "TWO"})
	g.untilGutter("the change", func(rs []signRange) bool { return slices.Equal(gutterText(rs), []string{"1+1 ~"}) })
	g.runTask(`pmacs.editor.set_cursor(pmacs.editor.find(PATH), 1, 0)`, map[string]string{"PATH": g.path})
	g.command("stage-hunk")
	g.until("staged", func(e *session) bool { return strings.Contains(e.msg, "staged the hunk") })
	require.Contains(t, g.repo.Git("diff", "--cached", "--no-color"), "+TWO")
}

func statusTextOf(h *harness) string {
	var s string
	h.e.call(func() { s = h.e.statusText() })
	return s
}

// The git layer and the diagnostics' signs share the one gutter column:
// a diagnostic's sign shows over a git mark on its row, the git marks show
// on the others, and removing the diagnostics leaves the git marks.
func TestSignRangesDrawUnderDiagnosticSigns(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	require.NoError(t, os.WriteFile(path, []byte("a\nb\nc\nd\n"), 0o644))
	h := startEditor(t, Options{Path: path})
	h.until("the file", func(e *session) bool { return e.cur.path == path && !e.cur.loading })
	h.runTask(`local ed = pmacs.editor
		local buf = ed.find(PATH)
		ed.set_sign_ranges(buf, "git", {{0, 2, "+", "git.added"}, {3, 0, "_", "git.removed"}})
		ed.set_signs(buf, {{1, "E", "error", "bad"}})`, map[string]string{"PATH": path})
	first := func(rows []string) string {
		var s string
		for _, r := range windowRows(rows)[:4] {
			s += r[:1]
		}
		return s
	}
	h.waitScreen("git marks under the diagnostic", func(rows []string) bool { return first(rows) == "+E _" })
	h.runTask(`pmacs.editor.set_signs(pmacs.editor.find(PATH), nil)`, map[string]string{"PATH": path})
	h.waitScreen("git marks alone", func(rows []string) bool { return first(rows) == "++ _" })
	for src, want := range map[string]string{
		`{{0, 2, "+", "g"}, {1, 1, "~", "g"}}`: "ranges overlap at row 1",
		`{{0, -1, "+", "g"}}`:                  "count must be a whole number >= 0",
		`{{0, 1, "++", "g"}}`:                  "text must be a string one cell wide",
		`{{0, 1, "+"}}`:                        "group must be a string",
		`"x"`:                                  "expected a list of ranges or nil",
	} {
		out := h.runTask(`local ok, err = pcall(pmacs.editor.set_sign_ranges, pmacs.editor.find(PATH), "git", `+src+`)
			assert(not ok)
			return err`, map[string]string{"PATH": path})
		require.Contains(t, out[0], want, src)
	}
}
