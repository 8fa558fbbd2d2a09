package editor

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pmacs-go/pmacs-go/journal"
)

// Crash recovery: every file buffer with unsaved edits has a journal in
// the state directory (package journal), written on helper goroutines a
// moment after the typing pauses, so a kill -9 loses at most the last
// fraction of a second. The main goroutine only appends each edit to a
// slice (the journal's queue) as buffer.replace makes it, and hands the
// queue over when a write is due; encoding, hashing and every file
// operation happen aside.
const (
	// journalQuiet is how long after the last edit the journal is
	// written, and journalMaxWait how long continuous typing may go
	// unwritten.
	journalQuiet   = 300 * time.Millisecond
	journalMaxWait = 2 * time.Second
	// journalSmall: a text under it is journalled as a whole snapshot
	// each time (one write, nothing to replay); over it, the edits are
	// appended, and compacted into a snapshot once the log passes
	// max(journalSmall, a quarter of the file), or replaying it would
	// take long (journalCompact).
	journalSmall = 1 << 20
	// journalMaxQueue bounds the edits held while no write lands (a full
	// disk): past it they are dropped for a snapshot of the whole text.
	journalMaxQueue = 1 << 16
)

// journalCompact bounds what replaying a journal may cost before it is
// compacted into a snapshot: records, and replay, the rows moved by the
// edits that add or remove rows (each moves every row below it: on a 50 MB
// file of 1.2 million rows, 1.5 ms), in units of 1024 rows. 1<<20 units
// keep a replay near a second on the largest file, and cost a snapshot
// (the whole text written) once per about 900 line breaks typed there.
// A variable, so tests can reach it without a million edits.
var journalCompact = struct {
	records int
	replay  int64
}{records: 1 << 16, replay: 1 << 20}

// replayCost is what one edit costs to replay, in journalCompact's units.
func replayCost(s, e pos, text string, rows int) int64 {
	if s.Row != e.Row || strings.Contains(text, "\n") {
		return 1 + int64(rows>>10)
	}
	return 1
}

// bufJournal is a file buffer's journal as the main goroutine knows it.
type bufJournal struct {
	// base is what the file held when the text was last equal to it
	// (loaded or saved); path is the file the journal on disk is for.
	base journal.Base
	path string
	// queue holds the edits not yet handed to a write; queued counts it
	// as last seen, firstAt and lastAt time its first and newest edits.
	queue           []journal.Edit
	queued          int
	firstAt, lastAt time.Time
	// inserted counts the bytes the edits since base inserted: a small
	// file grown by a large paste leaves snapshot mode. queuedCost is
	// the replay cost of the queue (journalCompact).
	inserted   int64
	queuedCost int64

	// What is on disk: onDisk says a journal exists, of size bytes
	// (its valid part) holding records records after the header, logged
	// bytes of them edits.
	onDisk  bool
	size    int64
	records int
	logged  int64
	cost    int64
	created time.Time
	// snapshot says the next write must be a whole snapshot (the queue
	// no longer describes the change since what is on disk); remove
	// says the journal must go (the text equals the file again).
	snapshot bool
	remove   bool
	busy     bool
	// failing is the last write error reported, so a full disk is said
	// once, not every 300 ms.
	failing string

	// offer is a journal found when the file was opened, waiting for the
	// user to recover or discard it; nothing is written for the buffer
	// meanwhile, so the journal that may hold lost work stays as it is.
	offer *recoveryOffer
	// onWritten runs once after the next write lands: a text recovered
	// into a new buffer removes the journal it came from only then.
	onWritten func()
}

// journalRetry is how long a journal write that failed waits before the
// next try (a whole snapshot), so a full disk is not hammered.
const journalRetry = 3 * time.Second

// recoveryOffer is a journal found when a file was opened, and the text it
// recovers.
type recoveryOffer struct {
	file    string
	header  journal.Header
	matches bool // the file on disk is the journal's base
	// snapshot says the journal holds a whole text (recoverable even when
	// the file changed); edits counts the edits replayed.
	snapshot bool
	edits    int
	dropped  int64
	reason   string
	// err says why the journal cannot be recovered; rec is the
	// recovered text otherwise.
	err error
	rec fileText
	// size and records describe the journal's valid part, so appending
	// goes on after it once it is recovered.
	size    int64
	records int
	cost    int64
	// altPath is where a text that no longer applies to the file is
	// offered: PATH.recovered, or PATH.recovered-N, a path with no file.
	altPath string
}

// errJournalReplay is returned (wrapped) when a journal's edits do not fit
// the text they are replayed on.
var errJournalReplay = errors.New("the journal's edits do not fit the text")

// journalAdd queues the replacement of [s, e) by text, whose rows took
// ends (nil unless the buffer keeps one ending per row). It runs in
// buffer.replace before the rows change.
func (jn *bufJournal) add(s, e pos, text string, ends []bool, rows int) {
	jn.inserted += int64(len(text))
	if jn.snapshot && !jn.onDisk || len(jn.queue) >= journalMaxQueue {
		// The whole text is written next anyway.
		jn.queue, jn.queuedCost, jn.snapshot = jn.queue[:0], 0, true
		return
	}
	jn.queuedCost += replayCost(s, e, text, rows)
	if ends != nil {
		ends = slices.Clone(ends)
	}
	jn.queue = append(jn.queue, journal.Edit{Row: s.Row, Col: s.Col, EndRow: e.Row, EndCol: e.Col, Text: text, Ends: ends})
}

// baseOf is the journal base of a file read as ft.
func baseOf(ft fileText) journal.Base {
	return journal.Base{Size: int64(len(ft.text)), ModTime: ft.stamp.mtime, Hash: journal.HashString(ft.text)}
}

// journalLoaded starts journalling b, whose text is now the file read as
// base (an open, a reload); a journal of earlier edits goes.
func (e *session) journalLoaded(b *buffer, base journal.Base) {
	if e.journalDir() == "" || b.path == "" {
		return
	}
	jn := b.jn
	if jn == nil {
		jn = &bufJournal{path: b.path}
		b.jn = jn
	}
	jn.base, jn.queue, jn.queued, jn.queuedCost, jn.inserted, jn.snapshot = base, nil, 0, 0, 0, false
	jn.firstAt, jn.lastAt = time.Time{}, time.Time{}
	if jn.onDisk {
		jn.remove = true
	}
}

// journalSaved notes a save of b that wrote base: the journal goes, or,
// when b was edited while the save ran, is rewritten against the new base.
func (e *session) journalSaved(b *buffer, base journal.Base) {
	jn := b.jn
	if jn == nil {
		return
	}
	jn.base, jn.inserted = base, 0
	if !b.Modified() {
		jn.queue, jn.queued, jn.queuedCost, jn.snapshot = nil, 0, 0, false
		jn.firstAt = time.Time{}
		jn.remove = jn.remove || jn.onDisk || jn.busy
		return
	}
	jn.queue, jn.queued, jn.queuedCost, jn.snapshot = nil, 0, 0, true
}

// journalTick runs once per loop turn: it notices new edits and buffers
// back at their file's text, and starts the writes and removals that are
// due. It returns when the next one falls due (zero for none).
func (e *session) journalTick(now time.Time) time.Time {
	var wake time.Time
	for _, id := range e.order {
		b := e.bufs[id]
		jn := b.jn
		if jn == nil || b.loading {
			continue
		}
		if len(jn.queue) != jn.queued || (jn.snapshot && jn.lastAt.IsZero()) {
			jn.queued = len(jn.queue)
			jn.lastAt = now
			if jn.firstAt.IsZero() {
				jn.firstAt = now
			}
		}
		if !b.Modified() && (len(jn.queue) > 0 || jn.snapshot || !jn.firstAt.IsZero()) {
			// Back at the file's text (undo, a save): nothing to keep.
			jn.queue, jn.queued, jn.queuedCost, jn.snapshot = nil, 0, 0, false
			jn.firstAt, jn.lastAt = time.Time{}, time.Time{}
			jn.remove = jn.remove || jn.onDisk || jn.busy
		}
		if jn.busy || jn.offer != nil {
			continue
		}
		if jn.onDisk && jn.path != b.path && !jn.snapshot {
			// The file was renamed or saved as another: its journal
			// follows it.
			jn.snapshot = true
			jn.firstAt, jn.lastAt = now, now
		}
		if jn.remove {
			e.journalRemove(b)
			continue
		}
		if jn.firstAt.IsZero() {
			continue
		}
		due := jn.lastAt.Add(journalQuiet)
		if latest := jn.firstAt.Add(journalMaxWait); latest.Before(due) {
			due = latest
		}
		if now.Before(due) {
			if wake.IsZero() || due.Before(wake) {
				wake = due
			}
			continue
		}
		e.journalWrite(b)
	}
	return wake
}

// journalWrite hands b's queued edits (or a snapshot of its text) to a
// helper goroutine.
func (e *session) journalWrite(b *buffer) {
	jn := b.jn
	dir, path, oldPath := e.jdir, b.path, jn.path
	if path != oldPath {
		// Renamed, or saved as another file: the journal moves with it,
		// whole.
		jn.snapshot = true
	}
	compact := jn.onDisk && (jn.records >= journalCompact.records || jn.cost >= journalCompact.replay ||
		jn.logged > max(int64(journalSmall), jn.base.Size/4))
	small := jn.base.Size+jn.inserted < journalSmall
	if !jn.onDisk && jn.created.IsZero() || jn.snapshot || small || compact {
		jn.created = time.Now()
	}
	h := journal.Header{Path: path, Base: jn.base, Created: jn.created}
	edits, cost := jn.queue, jn.queuedCost
	jn.queue, jn.queued, jn.queuedCost = nil, 0, 0
	jn.firstAt, jn.lastAt = time.Time{}, time.Time{}
	jn.busy = true
	var work func() (size int64, records int, logged int64, err error)
	total := jn.cost + cost
	switch {
	case jn.snapshot || small || compact:
		// The worker gets a frozen copy of the rows (the buffer's later
		// edits never reach it) and its own line endings.
		lines, ends, eol, crlf := b.lines.freeze(), slices.Clone(b.ends), b.eol, b.crlf
		jn.snapshot = false
		total = 0
		work = func() (int64, int, int64, error) {
			if oldPath != path {
				if err := journal.Remove(dir, oldPath); err != nil {
					return 0, 0, 0, err
				}
			}
			data := journal.AppendSnapshot(journal.NewFile(h), joinText(lines, eol, crlf, ends))
			return int64(len(data)), 1, 0, journal.Create(dir, path, data)
		}
	case !jn.onDisk:
		total = cost
		work = func() (int64, int, int64, error) {
			data := journal.NewFile(h)
			head := len(data)
			for _, ed := range edits {
				data = journal.AppendEdit(data, ed)
			}
			return int64(len(data)), len(edits), int64(len(data) - head), journal.Create(dir, path, data)
		}
	default:
		at, records, logged := jn.size, jn.records, jn.logged
		work = func() (int64, int, int64, error) {
			var data []byte
			for _, ed := range edits {
				data = journal.AppendEdit(data, ed)
			}
			err := journal.Append(dir, path, at, data)
			return at + int64(len(data)), records + len(edits), logged + int64(len(data)), err
		}
	}
	e.goIO(func() func() {
		size, records, logged, err := work()
		return func() {
			jn.busy = false
			if err != nil {
				// What is on disk is unknown now: the next write replaces
				// it whole, and the edits just lost are in the text.
				jn.snapshot = true
				jn.lastAt, jn.firstAt = time.Now().Add(journalRetry), time.Now().Add(journalRetry)
				if msg := err.Error(); msg != jn.failing {
					jn.failing = msg
					e.reportError(fmt.Sprintf("journal of %s not written (unsaved edits are not safe from a crash): %v", path, err), "")
				}
				return
			}
			jn.failing = ""
			jn.onDisk, jn.path, jn.size, jn.records, jn.logged, jn.cost = true, path, size, records, logged, total
			if fn := jn.onWritten; fn != nil {
				jn.onWritten = nil
				fn()
			}
			if e.bufs[b.id] != b && jn.remove {
				e.journalRemove(b)
			}
		}
	})
}

// journalRemove deletes b's journal on a helper goroutine.
func (e *session) journalRemove(b *buffer) {
	jn := b.jn
	jn.remove, jn.busy = false, true
	dir, path := e.jdir, jn.path
	e.goIO(func() func() {
		err := journal.Remove(dir, path)
		return func() {
			jn.busy = false
			if err != nil {
				e.reportError(fmt.Sprintf("journal of %s not removed: %v", path, err), "")
				return
			}
			jn.onDisk, jn.size, jn.records, jn.logged, jn.cost, jn.created = false, 0, 0, 0, 0, time.Time{}
		}
	})
}

// journalClosed ends b's journal as b closes: it is removed, unless keep,
// or unless it is a journal found at open that the user has not decided
// on (it may hold the only copy of lost work).
func (e *session) journalClosed(b *buffer, keep bool) {
	jn := b.jn
	if jn == nil || jn.offer != nil {
		return
	}
	if keep {
		if len(jn.queue) > 0 || jn.snapshot {
			if jn.busy {
				return // what is on disk stays; the last edits are lost
			}
			e.journalWrite(b)
		}
		return
	}
	jn.queue, jn.queuedCost = nil, 0
	if jn.onDisk || jn.busy {
		jn.remove = true
		if !jn.busy {
			e.journalRemove(b)
		}
	}
}

// journalFlushAll writes what is queued of every buffer's journal as the
// editor quits: the writes run while close waits for the file I/O.
func (e *session) journalFlushAll() {
	for _, id := range e.order {
		b := e.bufs[id]
		if jn := b.jn; jn != nil && !jn.busy && jn.offer == nil && !b.loading && b.Modified() && (len(jn.queue) > 0 || jn.snapshot) {
			e.journalWrite(b)
		}
	}
}

// findJournal reads path's journal, if it has one, for a file just read as
// ft, and replays it: the offer to make, or nil when there is none. It
// runs on the helper goroutine that read the file.
func findJournal(dir, path string, ft fileText, base journal.Base) *recoveryOffer {
	j, err := journal.Read(dir, path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return &recoveryOffer{file: journalFile(dir, path), err: err}
	}
	o := &recoveryOffer{
		file: journalFile(dir, path), header: j.Header, snapshot: j.HasSnapshot, edits: len(j.Edits),
		dropped: j.Dropped, reason: j.DropReason, size: j.Size, records: j.Records,
		matches: j.Header.Base.Size == base.Size && j.Header.Base.Hash == base.Hash,
	}
	if !j.HasSnapshot && len(j.Edits) == 0 {
		o.err = errors.New("the journal holds no edits")
		return o
	}
	start := ft
	if j.HasSnapshot {
		start = splitText(j.Snapshot)
	}
	o.rec, o.cost, o.err = replay(start, j.Edits)
	if o.err == nil && o.matches && len(ft.text) < journalSmall && string(joinText(&o.rec.lines, o.rec.eol, o.rec.crlf, o.rec.ends)) == ft.text {
		// The edits came back to the file's text (undone or saved, then
		// a crash before the journal went): nothing to ask about.
		_ = journal.Remove(dir, path)
		return nil
	}
	if !o.matches {
		o.altPath = freePath(path + ".recovered")
	}
	return o
}

func journalFile(dir, path string) string { return dir + string(os.PathSeparator) + journal.Name(path) }

// replay applies edits to the text ft on a buffer of its own, the way the
// editor applied them, and returns the text they make. An edit outside the
// text is an error matching errJournalReplay: nothing is applied in part.
func replay(ft fileText, edits []journal.Edit) (_ fileText, cost int64, _ error) {
	// The rows are the buffer's too (the file's text as read): edits
	// must not reach them.
	ft.lines, ft.ends = ft.lines.clone(), slices.Clone(ft.ends)
	rb := newBuffer(0, "")
	rb.load(ft)
	for i, ed := range edits {
		s, en := pos{ed.Row, ed.Col}, pos{ed.EndRow, ed.EndCol}
		if rb.validPos(s) != nil || rb.validPos(en) != nil || en.before(s) {
			return fileText{}, 0, fmt.Errorf("%w: edit %d of %d replaces %d:%d to %d:%d in a text of %d rows", errJournalReplay,
				i+1, len(edits), ed.Row+1, ed.Col, ed.EndRow+1, ed.EndCol, rb.lines.len())
		}
		cost += replayCost(s, en, ed.Text, rb.lines.len())
		rb.replace(s, en, ed.Text, ed.Ends)
	}
	return fileText{lines: rb.lines, ends: rb.ends, eol: rb.eol, crlf: rb.crlf}, cost, nil
}

// freePath returns p, or p-2, p-3...: the first with no file.
func freePath(p string) string {
	for i := 1; ; i++ {
		c := p
		if i > 1 {
			c = p + "-" + strconv.Itoa(i)
		}
		if _, err := os.Lstat(c); errors.Is(err, fs.ErrNotExist) || i > 100 {
			return c
		}
	}
}

// recover makes b hold the text its journal recovers (marked modified:
// the file does not hold it). When the file changed since the journal's
// edits, the text goes to a new buffer visiting the offer's altPath
// instead, and b keeps the file's text; that buffer is returned.
func (e *session) recover(b *buffer) (*buffer, error) {
	jn := b.jn
	if jn == nil || jn.offer == nil {
		return nil, fmt.Errorf("recover: %s has no journal to recover", b.name)
	}
	o := jn.offer
	if o.err != nil {
		return nil, fmt.Errorf("recover %s: %w", b.path, o.err)
	}
	if b.loading || b.saving {
		return nil, fmt.Errorf("recover: %s is being read or saved", b.name)
	}
	if o.matches && b.Modified() {
		return nil, fmt.Errorf("recover: %s was edited since it was opened: undo or save those edits first (the journal stays)", b.name)
	}
	jn.offer = nil
	if !o.matches {
		nb := newBuffer(e.nextBuf, e.uniqueName(filepath.Base(o.altPath)))
		e.nextBuf++
		nb.path, nb.lang = o.altPath, languageFor(o.altPath)
		e.addBuffer(nb)
		nb.load(o.rec)
		nb.savedStep = math.MaxUint64
		e.journalLoaded(nb, journal.Base{Hash: journal.HashString("")})
		// The journal lives on as the new buffer's; the old one goes once
		// that is on disk, so no moment holds neither.
		removeOld := func() { jn.onDisk, jn.path, jn.remove = true, b.path, true }
		if nb.jn != nil {
			nb.jn.snapshot = true
			nb.jn.onWritten = removeOld
		} else {
			removeOld()
		}
		e.raise(event{name: "loaded", buf: nb.id})
		e.raise(event{name: "open", buf: nb.id})
		return nb, nil
	}
	b.load(o.rec)
	b.savedStep = math.MaxUint64
	b.notifiedRev = b.rev - 1 // a "change": the syntax and the language server take the new text
	// The journal on disk is this text: writing goes on after its valid
	// part (dropping a torn tail with the next append).
	jn.onDisk, jn.path, jn.size, jn.records, jn.created = true, b.path, o.size, o.records, o.header.Created
	jn.logged, jn.cost = o.size, o.cost
	jn.queue, jn.queued, jn.queuedCost, jn.snapshot = nil, 0, 0, false
	jn.base = o.header.Base
	if o.dropped > 0 {
		e.message(fmt.Sprintf("recovered %s; its journal's last %d bytes were cut short by the crash and dropped (%s)", b.path, o.dropped, o.reason))
	} else {
		e.message(fmt.Sprintf("recovered %s (%s): not saved yet", b.path, o.describe()))
	}
	return b, nil
}

// discardJournal forgets b's offer and removes its journal.
func (e *session) discardJournal(b *buffer) error {
	jn := b.jn
	if jn == nil || jn.offer == nil {
		return fmt.Errorf("discard_journal: %s has no journal waiting", b.name)
	}
	jn.offer = nil
	jn.onDisk, jn.path, jn.remove = true, b.path, true
	return nil
}

// describe says what the journal holds.
func (o *recoveryOffer) describe() string {
	switch {
	case o.snapshot && o.edits > 0:
		return fmt.Sprintf("a snapshot and %d edits", o.edits)
	case o.snapshot:
		return "a snapshot"
	}
	return fmt.Sprintf("%d edits", o.edits)
}

// journalDir is where a buffer opened now keeps its journal: "" when
// journalling is off or there is no state directory.
func (e *session) journalDir() string {
	if e.journalOff {
		return ""
	}
	return e.jdir
}
