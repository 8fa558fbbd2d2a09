package editor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/journal"
)

// journalEditor is an idle editor (no loop: the test runs the helpers'
// results) whose journals go to a directory of the test's own.
func journalEditor(t testing.TB) *session {
	t.Helper()
	e := newIdleEditor(t)
	e.jdir = filepath.Join(t.TempDir(), "state", "pmacs", "journal")
	return e
}

// runCall runs the next result a helper goroutine hands the loop.
func runCall(t testing.TB, e *session) {
	t.Helper()
	select {
	case fn := <-e.calls:
		fn()
	case <-time.After(waitTimeout):
		t.Fatal("no helper result within the wait")
	}
}

// openLoaded opens path and runs its read to the end.
func openLoaded(t testing.TB, e *session, path string) *buffer {
	t.Helper()
	b, err := e.openFile(path)
	require.NoError(t, err)
	for b.loading {
		runCall(t, e)
	}
	return b
}

// settleJournals makes every journal write or removal that is queued due
// and runs them to the end.
func settleJournals(t testing.TB, e *session) {
	t.Helper()
	for range 10 {
		now := time.Now()
		e.journalTick(now)
		e.journalTick(now.Add(time.Hour))
		busy := false
		for _, b := range e.bufs {
			busy = busy || b.jn != nil && b.jn.busy
		}
		if !busy {
			return
		}
		for busy {
			runCall(t, e)
			busy = false
			for _, b := range e.bufs {
				busy = busy || b.jn != nil && b.jn.busy
			}
		}
	}
}

// recovered is the text path's journal recovers, as the file would be
// saved, replayed as opening the file would.
func recovered(t testing.TB, e *session, path string) (string, *recoveryOffer) {
	t.Helper()
	ft, _, err := readFileText(path, nil)
	require.NoError(t, err)
	o := findJournal(e.jdir, path, ft, baseOf(ft))
	require.NotNil(t, o, "no journal for %s", path)
	require.NoError(t, o.err)
	return string(joinText(&o.rec.lines, o.rec.eol, o.rec.crlf, o.rec.ends)), o
}

func savedForm(b *buffer) string { return string(joinText(&b.lines, b.eol, b.crlf, b.ends)) }

func journalExists(e *session, path string) bool {
	_, err := os.Stat(filepath.Join(e.jdir, journal.Name(path)))
	return err == nil
}

// typeAt types text with the cursor at row, col.
func typeAt(t testing.TB, b *buffer, row, col int, text string) {
	t.Helper()
	b.setCursor(pos{row, col})
	require.NoError(t, b.insert(text))
}

// Acceptance (1, in-process) and (3): the unsaved text of a CRLF file with
// non-ASCII rows is journalled (snapshot), the journal replays to exactly
// the text the buffer would save, in a 0700 directory as a 0600 file; a
// save removes it.
func TestJournalHoldsTheUnsavedTextAndASaveRemovesIt(t *testing.T) {
	e := journalEditor(t)
	path := writeTestFile(t, "crlf.txt", "héllo wörld\r\nzwei\r\n")
	b := openLoaded(t, e, path)
	typeAt(t, b, 0, len("héllo wörld"), " ünïcödé ✓")
	require.NoError(t, b.insert("\n"))
	require.NoError(t, b.insert("€ new"))
	require.NoError(t, b.deleteBack())
	settleJournals(t, e)

	got, o := recovered(t, e, path)
	require.Equal(t, "héllo wörld ünïcödé ✓\r\n€ ne\r\nzwei\r\n", got)
	require.Equal(t, savedForm(b), got)
	require.True(t, o.matches)
	require.True(t, o.snapshot, "a small file is journalled as a snapshot")
	st, err := os.Stat(filepath.Join(e.jdir, journal.Name(path)))
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o600), st.Mode().Perm())
	st, err = os.Stat(e.jdir)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o700), st.Mode().Perm())

	e.save(b, nil, false, false)
	for b.saving {
		runCall(t, e)
	}
	settleJournals(t, e)
	require.False(t, journalExists(e, path), "a saved buffer keeps no journal")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, got, string(data))
}

// Acceptance (3): a buffer undone back to its file's text, and a buffer
// closed, keep no journal; a buffer closed with keep_journal keeps it,
// with the edits not yet written.
func TestJournalGoesWithUndoAndCloseButNotWithKeep(t *testing.T) {
	e := journalEditor(t)
	path := writeTestFile(t, "a.txt", "one\ntwo\n")
	b := openLoaded(t, e, path)
	typeAt(t, b, 1, 3, " more")
	settleJournals(t, e)
	require.True(t, journalExists(e, path))
	for b.Modified() {
		require.True(t, b.undoStep())
	}
	settleJournals(t, e)
	require.False(t, journalExists(e, path), "undone back to the file's text")

	typeAt(t, b, 0, 0, "x")
	settleJournals(t, e)
	require.True(t, journalExists(e, path))
	require.NoError(t, e.closeBuffer(b))
	settleJournals(t, e)
	for journalExists(e, path) && b.jn.busy {
		runCall(t, e)
	}
	require.Eventually(t, func() bool {
		select {
		case fn := <-e.calls:
			fn()
		default:
		}
		return !journalExists(e, path)
	}, waitTimeout, time.Millisecond, "closed without keep")

	b = openLoaded(t, e, path)
	typeAt(t, b, 0, 0, "kept ")
	require.NoError(t, e.closeBufferKeep(b, true))
	runCall(t, e) // the write of the queued edit
	got, _ := recovered(t, e, path)
	require.Equal(t, "kept one\ntwo\n", got)
}

// Acceptance (2): a record torn by a crash mid-append is dropped whole: the
// recovered text is the one before it, and recovering says so.
func TestTornTailRecordIsDroppedOnRecovery(t *testing.T) {
	e := journalEditor(t)
	text := strings.Repeat("0123456789 abcdefghij\n", 60000) // past journalSmall: edits are appended
	path := writeTestFile(t, "big.txt", text)
	b := openLoaded(t, e, path)
	typeAt(t, b, 10, 0, "first ")
	settleJournals(t, e)
	before := savedForm(b)
	typeAt(t, b, 20, 0, "second ")
	settleJournals(t, e)
	name := filepath.Join(e.jdir, journal.Name(path))
	st, err := os.Stat(name)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(name, st.Size()-3))

	got, o := recovered(t, e, path)
	require.Equal(t, before, got)
	require.False(t, o.snapshot)
	require.Equal(t, int64(len(journal.AppendEdit(nil, journal.Edit{Row: 20, EndRow: 20, Text: "second "}))-3), o.dropped)

	e2 := journalEditor(t)
	e2.jdir = e.jdir
	b2 := openLoaded(t, e2, path)
	require.NotNil(t, b2.jn.offer)
	_, err = e2.recover(b2)
	require.NoError(t, err)
	require.Equal(t, before, savedForm(b2))
	require.True(t, b2.Modified())
	require.Contains(t, e2.msg, "cut short by the crash and dropped")
	// Appending goes on after the valid part: the torn bytes are cut off.
	typeAt(t, b2, 0, 0, "third ")
	settleJournals(t, e2)
	got, o = recovered(t, e2, path)
	require.Equal(t, savedForm(b2), got)
	require.Zero(t, o.dropped)
}

// Acceptance (5): a journal whose base is not the file on disk (changed
// since) is never applied to the file: the buffer keeps the disk's text,
// and the recovered text goes to a new buffer visiting PATH.recovered.
func TestBaseMismatchRecoversIntoANewBuffer(t *testing.T) {
	e := journalEditor(t)
	path := writeTestFile(t, "m.txt", "original\n")
	b := openLoaded(t, e, path)
	typeAt(t, b, 0, 8, " edited")
	settleJournals(t, e)
	want := savedForm(b)

	require.NoError(t, os.WriteFile(path, []byte("someone else's text\n"), 0o644))
	e2 := journalEditor(t)
	e2.jdir = e.jdir
	b2 := openLoaded(t, e2, path)
	o := b2.jn.offer
	require.NotNil(t, o)
	require.False(t, o.matches)
	require.Equal(t, path+".recovered", o.altPath)
	nb, err := e2.recover(b2)
	require.NoError(t, err)
	require.NotSame(t, b2, nb)
	require.Equal(t, "someone else's text\n", savedForm(b2), "the changed file is left as it is")
	require.False(t, b2.Modified())
	require.Equal(t, path+".recovered", nb.path)
	require.Equal(t, want, savedForm(nb))
	require.True(t, nb.Modified())
	settleJournals(t, e2)
	require.False(t, journalExists(e2, path), "the old journal went")
	require.True(t, journalExists(e2, path+".recovered"), "the recovered text has its own")
}

// Acceptance (6): a journal that is garbage, cut inside its header, or
// whose edits do not fit the file gives an offer that says why, and
// recover returns that error: nothing panics and nothing is applied.
func TestCorruptJournalIsAClearMessage(t *testing.T) {
	e := journalEditor(t)
	path := writeTestFile(t, "c.txt", "one\ntwo\n")
	require.NoError(t, os.MkdirAll(e.jdir, 0o700))
	name := filepath.Join(e.jdir, journal.Name(path))
	ft, _, err := readFileText(path, nil)
	require.NoError(t, err)
	head := journal.NewFile(journal.Header{Path: path, Base: baseOf(ft)})
	cases := map[string]struct {
		data []byte
		want string
	}{
		"garbage":      {[]byte("not a journal at all"), "not a journal"},
		"cut header":   {head[:len(head)-5], "no complete header"},
		"out of range": {journal.AppendEdit(append([]byte(nil), head...), journal.Edit{Row: 7, EndRow: 9, Text: "x"}), "do not fit"},
		"other path":   {journal.NewFile(journal.Header{Path: "/etc/passwd"}), "claims"},
	}
	for what, c := range cases {
		t.Run(what, func(t *testing.T) {
			require.NoError(t, os.WriteFile(name, c.data, 0o600))
			b := openLoaded(t, e, path)
			defer func() { require.NoError(t, e.closeBuffer(b)) }()
			require.NotNil(t, b.jn.offer)
			require.ErrorContains(t, b.jn.offer.err, c.want)
			_, err := e.recover(b)
			require.ErrorContains(t, err, c.want)
			require.Equal(t, "one\ntwo\n", savedForm(b))
			require.False(t, b.Modified())
		})
	}
}

// Large files journal their edits, not copies: after a few hundred edits
// the journal of a big text is a few KiB, and past journalCompact's
// records it is compacted into a snapshot; both recover exactly.
func TestLargeFileJournalsEditsAndCompacts(t *testing.T) {
	e := journalEditor(t)
	text := strings.Repeat("a line of text with ünïcode\r\n", 80000)
	path := writeTestFile(t, "big.txt", text)
	b := openLoaded(t, e, path)
	for i := range 300 {
		typeAt(t, b, i*200, 2, "é")
		if i%50 == 0 {
			require.NoError(t, b.insert("\n"))
			require.NoError(t, b.deleteForward())
		}
	}
	settleJournals(t, e)
	st, err := os.Stat(filepath.Join(e.jdir, journal.Name(path)))
	require.NoError(t, err)
	require.Less(t, st.Size(), int64(16<<10), "a log of the edits, not a copy of the %d bytes", len(text))
	got, o := recovered(t, e, path)
	require.False(t, o.snapshot)
	require.Equal(t, savedForm(b), got)

	defer func(was int) { journalCompact.records = was }(journalCompact.records)
	journalCompact.records = 1000
	for i := range 1000 {
		typeAt(t, b, 5+i%1000, 0, "z")
	}
	settleJournals(t, e)
	typeAt(t, b, 0, 0, "after ")
	settleJournals(t, e)
	got, o = recovered(t, e, path)
	require.True(t, o.snapshot, "compacted past %d records", journalCompact.records)
	require.Zero(t, o.edits)
	require.Equal(t, savedForm(b), got)
	typeAt(t, b, 1, 0, "appended ")
	settleJournals(t, e)
	got, o = recovered(t, e, path)
	require.True(t, o.snapshot)
	require.Equal(t, 1, o.edits, "edits go on after the snapshot")
	require.Equal(t, savedForm(b), got)
}

// The question when a file with a journal opens, through the embedded
// Lua: y recovers the unsaved text (the buffer is modified), n deletes
// the journal and leaves the file's text.
func TestOpeningAFileWithAJournalAsks(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	dir, err := journal.Dir()
	require.NoError(t, err)
	for _, answer := range []string{"y", "n"} {
		t.Run(answer, func(t *testing.T) {
			path := writeTestFile(t, "q.txt", "plain text\n")
			ft, _, err := readFileText(path, nil)
			require.NoError(t, err)
			data := journal.AppendEdit(journal.NewFile(journal.Header{Path: path, Base: baseOf(ft), Created: time.Now()}),
				journal.Edit{Row: 0, Col: 5, EndRow: 0, EndCol: 5, Text: " recovered"})
			require.NoError(t, journal.Create(dir, path, data))

			h := startEditor(t, Options{Path: path})
			h.waitText("q.txt has unsaved edits from")
			h.typeText(answer)
			var text string
			var modified, exists bool
			if answer == "y" {
				h.waitText("recovered " + path)
				h.until("the recovered text", func(e *session) bool {
					text, modified = savedForm(e.cur), e.cur.Modified()
					return text != "plain text\n"
				})
				require.Equal(t, "plain recovered text\n", text)
				require.True(t, modified)
				return
			}
			h.waitText("journal of q.txt deleted")
			h.until("the journal removed", func(e *session) bool {
				_, err := os.Stat(filepath.Join(dir, journal.Name(path)))
				exists = err == nil
				text, modified = savedForm(e.cur), e.cur.Modified()
				return !exists
			})
			require.Equal(t, "plain text\n", text)
			require.False(t, modified)
		})
	}
}

// M-x recover lists the journals of the state directory, with whether
// their file changed since.
func TestRecoverCommandListsJournals(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	dir, err := journal.Dir()
	require.NoError(t, err)
	path := writeTestFile(t, "listed.txt", "x\n")
	require.NoError(t, journal.Create(dir, path, journal.AppendSnapshot(journal.NewFile(journal.Header{Path: path}), []byte("y\n"))))
	require.NoError(t, os.WriteFile(filepath.Join(dir, journal.Name("/nowhere")), []byte("junk"), 0o600))

	h := startEditorSized(t, Options{Path: t.TempDir()}, 250, screenH)
	h.waitText("dired ") // the start is over: a prompt now stays with the buffer shown
	h.alt('x')
	h.waitScreen("the M-x prompt", func(rows []string) bool { return strings.HasPrefix(messageLine(rows), "command (") })
	h.typeText("recover")
	h.key(13)
	rows := h.waitText("journals of unsaved edits (2)")
	require.True(t, anyContains(rows, "file changed since"), "the file's size differs from the base:\n%s", strings.Join(rows, "\n"))
	require.True(t, anyContains(rows, path))
	require.True(t, anyContains(rows, "unreadable"))
}

// replay refuses an edit outside the text with errJournalReplay, whatever
// the numbers.
func TestReplayRefusesEditsOutsideTheText(t *testing.T) {
	ft := splitString("ab\ncd\n")
	for _, ed := range []journal.Edit{
		{Row: 0, Col: 3, EndRow: 0, EndCol: 3},
		{Row: 2, Col: 1, EndRow: 2, EndCol: 1},
		{Row: 0, Col: 0, EndRow: 1 << 40, EndCol: 0},
		{Row: 1, Col: 1, EndRow: 0, EndCol: 0},
	} {
		_, _, err := replay(ft, []journal.Edit{ed})
		require.True(t, errors.Is(err, errJournalReplay), fmt.Sprint(ed))
	}
	got, _, err := replay(ft, []journal.Edit{{Row: 0, Col: 1, EndRow: 1, EndCol: 1, Text: "X"}})
	require.NoError(t, err)
	require.Equal(t, "aXd\n", string(joinText(&got.lines, got.eol, got.crlf, got.ends)))
}

// A journal whose edits come back to the file's text asks nothing: it
// goes when the file opens.
func TestJournalEqualToTheFileIsDroppedQuietly(t *testing.T) {
	e := journalEditor(t)
	path := writeTestFile(t, "same.txt", "same\n")
	ft, _, err := readFileText(path, nil)
	require.NoError(t, err)
	data := journal.NewFile(journal.Header{Path: path, Base: baseOf(ft)})
	data = journal.AppendEdit(data, journal.Edit{Row: 0, Col: 4, EndRow: 0, EndCol: 4, Text: "!"})
	data = journal.AppendEdit(data, journal.Edit{Row: 0, Col: 4, EndRow: 0, EndCol: 5})
	require.NoError(t, journal.Create(e.jdir, path, data))
	b := openLoaded(t, e, path)
	require.Nil(t, b.jn.offer)
	require.False(t, journalExists(e, path))
}
