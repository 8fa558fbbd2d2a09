package editor

import "strings"

// change is one replacement: at `at`, removed was replaced by inserted.
// Reverting it replaces inserted by removed.
type change struct {
	at       pos
	removed  string
	inserted string
	// The line endings of the rows removed and inserted, in a buffer that
	// keeps one per row (nil otherwise), so undo puts them back exactly.
	removedEnds, insertedEnds []bool
}

// step is what one undo reverts: usually one change, or a run of typed
// characters merged into one.
type step struct {
	id            uint64
	changes       []change
	before, after pos // cursor before and after the step
}

// undoLog is a buffer's history. Each step has an id that is never reused,
// so "the text matches the file" is "the newest step is the one that was
// current at save".
type undoLog struct {
	done, undone []step
	nextID       uint64
	// open allows the next typed character to join the newest step.
	open bool
}

// maxTypingRun caps how many typed characters one undo step merges, so an
// undo after a long paragraph takes back a sentence, not the paragraph.
const maxTypingRun = 64

// current is the id of the newest applied step, 0 for none.
func (u *undoLog) current() uint64 {
	if len(u.done) == 0 {
		return 0
	}
	return u.done[len(u.done)-1].id
}

func (u *undoLog) record(c change, before, after pos, typing bool) {
	u.undone = u.undone[:0]
	if typing && u.open && len(u.done) > 0 && c.removed == "" {
		last := &u.done[len(u.done)-1]
		prev := &last.changes[len(last.changes)-1]
		// Continue the run only where it left off, and break it at a
		// word boundary so undo takes back words.
		if endOf(prev.at, prev.inserted) == c.at && len(prev.inserted) < maxTypingRun &&
			!(strings.HasSuffix(prev.inserted, " ") && c.inserted != " ") {
			prev.inserted += c.inserted
			last.after = after
			return
		}
	}
	u.nextID++
	u.done = append(u.done, step{id: u.nextID, changes: []change{c}, before: before, after: after})
	// Typing over a selection opens a run too: the letters typed after
	// the first join the step that replaced the selection, so one undo
	// puts the selection back.
	u.open = typing
}

// seal ends the typing run: the next change starts a new step.
func (u *undoLog) seal() { u.open = false }

func (u *undoLog) popUndo() (step, bool) { return u.move(&u.done, &u.undone) }

func (u *undoLog) popRedo() (step, bool) { return u.move(&u.undone, &u.done) }

// move pops the newest step of from onto to, ending any typing run.
func (u *undoLog) move(from, to *[]step) (step, bool) {
	u.open = false
	if len(*from) == 0 {
		return step{}, false
	}
	st := (*from)[len(*from)-1]
	*from = (*from)[:len(*from)-1]
	*to = append(*to, st)
	return st, true
}
