package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/kinds/grepjob"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// grepTree writes files whose lines all match "a" ("alpha ...") and a few
// that also match "ab" ("abacus ..."), enough that a search for "a" is
// still streaming when the next keystroke arrives.
func grepTree(t *testing.T, files, linesPerFile int) string {
	t.Helper()
	dir := t.TempDir()
	for f := range files {
		var sb strings.Builder
		for l := range linesPerFile {
			if f == 7 && l == 4 {
				sb.WriteString("the abacus counts\n")
				continue
			}
			fmt.Fprintf(&sb, "alpha %d %d\n", f, l)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.txt", f)), []byte(sb.String()), 0o644))
	}
	return dir
}

// jobsOfKind is the snapshot's running and recently completed jobs of kind.
func jobsOfKind(e *session, kind runtime.Kind) (active []runtime.ActiveJob, done []runtime.CompletedJob) {
	s := e.rt.Snapshot()
	for _, a := range s.Active {
		if a.Kind == kind {
			active = append(active, a)
		}
	}
	for _, c := range s.Completed {
		if c.Kind == kind {
			done = append(done, c)
		}
	}
	return active, done
}

// Acceptance: live grep. Results of the first query stream in; typing more
// supersedes the search, which ends cancelled, and none of its results
// ever show under the new query; Enter opens the file at the match.
func TestLiveGrepSupersedesAndNeverShowsStaleResults(t *testing.T) {
	dir := grepTree(t, 20, 1000)
	// A small stream credit keeps the first search waiting on the view
	// long after its first results show, so the second keystroke always
	// finds it running.
	h := startEditor(t, Options{Path: dir, runtime: runtime.Options{StreamCredit: 2048}, grepBatch: 256})
	h.waitText("f00.txt")

	h.ctrl('f')
	h.waitText("grep:")
	h.typeText("a")
	h.waitText(".txt:1: alpha")
	h.waitText(`grep "a": `)

	var first runtime.JobID
	h.until("the first search running", func(e *session) bool {
		active, _ := jobsOfKind(e, grepjob.Kind)
		if len(active) == 1 {
			first = active[0].ID
		}
		return first != 0
	})

	// From here on, every frame that shows the new query must show none
	// of the old query's results.
	var stale []string
	h.e.call(func() {
		h.e.afterShow = func() {
			rows := screenRows(h.scr)
			if !strings.HasPrefix(messageLine(rows), "grep: ab") {
				return
			}
			for _, r := range rows {
				if strings.Contains(r, "alpha") {
					stale = append(stale, r)
				}
			}
		}
	})
	h.typeText("b")
	h.waitText(`grep "ab": 1 matches in`)
	h.waitText("f07.txt:5: the abacus counts")

	var firstState runtime.State
	h.until("the first search settled", func(e *session) bool {
		_, done := jobsOfKind(e, grepjob.Kind)
		for _, c := range done {
			if c.ID == first {
				firstState = c.State
				return true
			}
		}
		return false
	})
	require.Equal(t, runtime.Cancelled, firstState, "the superseded search must end cancelled")
	var lines []string
	h.e.call(func() {
		h.e.afterShow = nil
		lines = append(lines, h.e.cur.lines.all()...)
	})
	require.Empty(t, stale, "results of the superseded search showed under the new query")
	require.Equal(t, 2, len(lines), "the view holds the header and the one match: %q", lines)

	h.key(tcell.KeyEnter)
	rows := h.waitText("f07.txt  5:")
	require.Contains(t, rows, "the abacus counts")
	x, y, _ := h.scr.GetCursor()
	require.Equal(t, [2]int{4, 4}, [2]int{x, y}, "the cursor sits on the match")
}

// Acceptance: Esc cancels the live grep and returns to the buffer shown
// before it.
func TestLiveGrepEscCancelsTheSearch(t *testing.T) {
	dir := grepTree(t, 20, 1000)
	h := startEditor(t, Options{Path: dir, runtime: runtime.Options{StreamCredit: 1024}, grepBatch: 256})
	h.waitText("f00.txt")
	h.ctrl('f')
	h.typeText("alpha")
	h.waitText(`grep "alpha": `)
	h.key(tcell.KeyEsc)
	h.waitScreen("the directory view back", func(rows []string) bool {
		return strings.HasPrefix(rows[0], dir) && !strings.HasPrefix(messageLine(rows), "grep:")
	})
	h.until("no search left running", func(e *session) bool {
		active, done := jobsOfKind(e, grepjob.Kind)
		return len(active) == 0 && len(done) > 0 && done[0].State == runtime.Cancelled
	})
}
