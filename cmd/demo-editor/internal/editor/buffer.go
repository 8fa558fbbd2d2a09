package editor

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pmacs-go/pmacs-go/kinds/textsearch"
)

// pos is a position in a buffer: a zero-based row and a byte column within
// that row's text. Byte columns are what tree-sitter and grep report, so
// highlights and matches need no conversion.
type pos struct{ Row, Col int }

func (p pos) before(q pos) bool { return p.Row < q.Row || (p.Row == q.Row && p.Col < q.Col) }

// errReadOnly is returned (wrapped) by edits to a read-only buffer.
var errReadOnly = errors.New("buffer is read-only")

// errRange is returned (wrapped) for rows or positions outside a buffer.
var errRange = errors.New("position out of range")

// buffer is one text in the editor: a file, or a scratch view such as
// *workers* or the grep results. Its text is a slice of lines without their
// newlines. A buffer belongs to the main goroutine.
type buffer struct {
	id       int
	name     string
	path     string // absolute; "" for a scratch buffer
	lang     string // syntax language from the extension, "" for none
	readOnly bool
	// cursorLine draws the cursor's row highlighted: list views (grep
	// results, dired, *workers*) select a row rather than a character.
	cursorLine bool

	lines rowStore
	// text is the file as read, while it is also exactly what Text would
	// build (the rows are unedited since rev textRev and all end with LF):
	// Text and ByteCount of a file just opened then cost nothing, where
	// building the text of a 60 MB file takes 0.2 s of the main loop.
	// The rows are found in it (rowStore), so keeping it costs nothing
	// either.
	text    string
	textRev uint64
	// eol records whether the file ended with a newline, so a save writes
	// back exactly what it read when nothing was edited.
	eol  bool
	crlf bool
	// ends holds each row's line break (true: CRLF) for a file that mixes
	// both, kept in step with lines by every edit; nil when every row ends
	// as crlf says.
	ends []bool

	cursor pos
	// mark is the selection's other end (the cursor is one end), nil for
	// no selection. Any change to the text clears it: a selection is of
	// the text as it was when it was made.
	mark *pos
	// markTransient says the selection was made by shift+movement or a
	// mouse drag: the next movement without shift ends it.
	markTransient bool
	wantCol       int // display column vertical moves try to keep
	top           int // first row shown when this buffer is in the window
	left          int // first display column shown

	undo      undoLog
	savedStep uint64 // undo step id the file on disk matches
	// disk is the file as last read or written, to tell another program's
	// change from our own (disk.go).
	disk   diskStamp
	noUndo bool // scratch buffers keep no history

	hl hlRows
	// sem is the language server's semantic tokens, drawn over hl where
	// they speak (semantic.go); inlays its virtual text, sorted by
	// position (inlay.go).
	sem    hlRows
	inlays []inlay
	// semRev is the rev of the text the semantic layer was made for.
	semRev uint64
	// snap is the text handed to search jobs (nil until one asks); hits
	// are the in-buffer search's matches (nil for none).
	snap *textsearch.Snapshot
	hits *searchHits
	// gv fills the buffer from a grep job (ed.grep_view), nil for none.
	gv *grepView
	// refs holds, per row, the place a list row points at (a grep match's
	// file and line), for the rows appended with append_matches.
	refs []rowRef

	// rev grows on every change to the text, so a consumer can tell
	// whether what it computed is still current.
	rev uint64
	// notifiedRev is the rev the last "change" event reported.
	notifiedRev uint64
	// dirtyFrom and dirtyTo bound the rows changed since the last draw
	// ([dirtyFrom, dirtyTo)); dirtyFrom is -1 when the text shown is
	// current. Rewriting one row in place (a list view's header) repaints
	// that row only; adding or removing rows repaints from there down.
	dirtyFrom, dirtyTo int

	loading bool
	// tailFrom is the first row of the file's end in the rows shown while
	// it loads (showHead), 0 for none.
	tailFrom      int
	pendingCursor *pos
	saving        bool
	saveAgain     []saveRequest // saves asked for while one runs

	edits editLog // the edits since a script last took them (lspedits.go)
	// jn is the buffer's crash journal (journal.go), nil when its edits
	// are not journalled (a view, journalling off).
	jn *bufJournal
	// status is a script's note for the status line (ed.set_status): the
	// language server's diagnostics count, say.
	status string
	// statusSlots are notes of other owners (ed.set_status with a slot:
	// the git branch), shown after status in the order of their names.
	statusSlots map[string]string
	// signs is the one-column gutter a script set (ed.set_signs), nil for
	// none; popup is the list drawn over the window below a position of
	// this buffer while it is shown (ed.popup), nil for none (signs.go).
	signs *signColumn
	// signLayers are the gutter's named layers of row ranges
	// (ed.set_sign_ranges), drawn under signs, in the order of
	// signLayerNames.
	signLayers     map[string][]signRange
	signLayerNames []string
	popup          *popup
}

func newBuffer(id int, name string) *buffer {
	return &buffer{id: id, name: name, lines: newRows([]string{""}), dirtyFrom: 0, dirtyTo: math.MaxInt}
}

// LineCount returns the number of rows (at least one).
func (b *buffer) LineCount() int { return b.lines.len() }

// Line returns row's text, "" outside the buffer.
func (b *buffer) Line(row int) string {
	if row < 0 || row >= b.lines.len() {
		return ""
	}
	return b.lines.row(row)
}

// ByteCount returns the length of Text without building it. It walks the
// rows, a few milliseconds for 5 million.
func (b *buffer) ByteCount() int {
	if b.text != "" && b.rev == b.textRev {
		return len(b.text)
	}
	n := b.lines.len() - 1
	if b.eol {
		n++
	}
	for _, l := range b.lines.rows(0, b.lines.len()) {
		n += len(l)
	}
	return n
}

// Text returns the whole text joined with newlines, with a final newline if
// the file had one.
func (b *buffer) Text() string {
	if b.text != "" && b.rev == b.textRev {
		return b.text
	}
	n := b.lines.len()
	for _, l := range b.lines.rows(0, n) {
		n += len(l)
	}
	var sb strings.Builder
	sb.Grow(n)
	for i, l := range b.lines.rows(0, b.lines.len()) {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(l)
	}
	if b.eol {
		sb.WriteByte('\n')
	}
	return sb.String()
}

// Modified reports whether the text differs from the file as last read or
// saved.
func (b *buffer) Modified() bool { return !b.noUndo && b.undo.current() != b.savedStep }

// clampPos moves p onto the text: a valid row, and a column on a rune
// boundary no further than the row's end.
func (b *buffer) clampPos(p pos) pos {
	p.Row = min(max(p.Row, 0), b.lines.len()-1)
	line := b.lines.row(p.Row)
	p.Col = min(max(p.Col, 0), len(line))
	for p.Col > 0 && p.Col < len(line) && !utf8.RuneStart(line[p.Col]) {
		p.Col--
	}
	return p
}

func (b *buffer) validPos(p pos) error {
	if p.Row < 0 || p.Row >= b.lines.len() || p.Col < 0 || p.Col > len(b.lines.row(p.Row)) {
		return fmt.Errorf("%w: row %d col %d in a buffer of %d rows", errRange, p.Row, p.Col, b.lines.len())
	}
	return nil
}

// textRange returns the text between s and e (s before or at e).
func (b *buffer) textRange(s, e pos) string {
	if s.Row == e.Row {
		return b.lines.row(s.Row)[s.Col:e.Col]
	}
	var sb strings.Builder
	sb.WriteString(b.lines.row(s.Row)[s.Col:])
	for _, l := range b.lines.rows(s.Row+1, e.Row) {
		sb.WriteByte('\n')
		sb.WriteString(l)
	}
	sb.WriteByte('\n')
	sb.WriteString(b.lines.row(e.Row)[:e.Col])
	return sb.String()
}

// endOf returns where text ends when inserted at s.
func endOf(s pos, text string) pos {
	n := strings.Count(text, "\n")
	if n == 0 {
		return pos{s.Row, s.Col + len(text)}
	}
	return pos{s.Row + n, len(text) - strings.LastIndexByte(text, '\n') - 1}
}

// replace swaps the text between s and e for text and returns the end of
// the inserted text and what was removed. It is the one primitive every edit
// goes through; positions must be valid and s not after e.
//
// In a buffer with per-row line endings (ends non-nil), the rows replaced
// give up their endings (returned as oldEnds) and the new rows take
// newEnds: given ones (undo and redo put back exactly what was there), or,
// for nil, a new line break ends like the row it was typed in and the last
// new row keeps the ending of the last replaced one.
func (b *buffer) replace(s, e pos, text string, newEnds []bool) (end pos, removed string, oldEnds, ends []bool) {
	removed = b.textRange(s, e)
	b.edits.record(b, s, e, text)
	b.ownLines()
	head := b.lines.row(s.Row)[:s.Col]
	tail := b.lines.row(e.Row)[e.Col:]
	parts := strings.Split(text, "\n")
	parts[0] = head + parts[0]
	last := len(parts) - 1
	end = pos{s.Row + last, len(parts[last])}
	parts[last] += tail
	oldRows := e.Row - s.Row + 1
	if b.ends != nil {
		oldEnds = slices.Clone(b.ends[s.Row : e.Row+1])
		if len(newEnds) != len(parts) {
			newEnds = make([]bool, len(parts))
			for i := range newEnds {
				newEnds[i] = b.ends[s.Row]
			}
			newEnds[last] = b.ends[e.Row]
		}
		b.ends = slices.Replace(b.ends, s.Row, e.Row+1, newEnds...)
		ends = newEnds
	}
	if b.jn != nil {
		b.jn.add(s, e, text, ends, b.lines.len())
	}
	b.lines.replace(s.Row, e.Row+1, parts)
	b.hl.replace(s, e, end, b.lines.len())
	b.sem.replace(s, e, end, b.lines.len())
	b.moveInlays(s, e, end)
	b.spliceRefs(s.Row, e.Row+1, len(parts))
	b.mark = nil
	b.rev++
	if oldRows == len(parts) {
		b.markDirtyRows(s.Row, e.Row+1)
	} else {
		b.markDirty(s.Row) // the rows below moved
	}
	return end, removed, oldEnds, ends
}

// markDirty repaints from row down.
func (b *buffer) markDirty(row int) { b.markDirtyRows(row, math.MaxInt) }

// markDirtyRows repaints rows [from, to).
func (b *buffer) markDirtyRows(from, to int) {
	if b.dirtyFrom < 0 {
		b.dirtyFrom, b.dirtyTo = from, to
		return
	}
	b.dirtyFrom = min(b.dirtyFrom, from)
	b.dirtyTo = max(b.dirtyTo, to)
}

// setLines replaces rows [start, end) with lines; end < 0 means the last
// row. A scratch buffer keeps no undo; a file buffer records one step.
func (b *buffer) setLines(start, end int, lines []string) error {
	if end < 0 {
		end = b.lines.len()
	}
	if start < 0 || start > b.lines.len() || end < start || end > b.lines.len() {
		return fmt.Errorf("%w: rows [%d, %d) of a buffer of %d rows", errRange, start, end, b.lines.len())
	}
	if b.noUndo {
		b.spliceLines(start, end, lines)
		return nil
	}
	// As a text replacement, so undo and highlights follow the usual path;
	// the cursor stays where it was (a script's edit does not move it).
	cursor := b.cursor
	defer func() { b.cursor = b.clampPos(cursor) }()
	var s, e pos
	text := strings.Join(lines, "\n")
	switch {
	case start == end && start == b.lines.len(): // append after the last row
		s = pos{start - 1, len(b.lines.row(start - 1))}
		e = s
		text = "\n" + text
	case start == end: // insert before row start
		s, e = pos{start, 0}, pos{start, 0}
		text += "\n"
	case len(lines) == 0 && end == b.lines.len() && start > 0: // delete through the last row
		s = pos{start - 1, len(b.lines.row(start - 1))}
		e = pos{end - 1, len(b.lines.row(end - 1))}
	case len(lines) == 0 && end < b.lines.len(): // delete rows in the middle
		s, e = pos{start, 0}, pos{end, 0}
	default:
		s, e = pos{start, 0}, pos{end - 1, len(b.lines.row(end - 1))}
	}
	b.edit(s, e, text, false)
	return nil
}

// spliceLines is setLines without history, for scratch buffers whose text a
// script rebuilds wholesale (it may be 100,000 grep results).
func (b *buffer) spliceLines(start, end int, lines []string) {
	if b.ends != nil {
		b.ends = slices.Replace(b.ends, start, end, make([]bool, len(lines))...)
	}
	b.mark = nil
	b.ownLines()
	if gv := b.gv; gv != nil && !gv.orphaned && (start != end || start != b.lines.len()) {
		if end <= gv.base {
			// Rows above the view's (its header): the view moves with
			// them.
			gv.base += len(lines) - (end - start)
		} else {
			// A script rewrote rows the view fills: from now on they are
			// ordinary rows, and the references of those that stay must
			// follow the splice.
			b.materializeGrepRefs(start, end)
			gv.orphaned = true
		}
	}
	b.lines.replace(start, end, lines)
	if b.lines.len() == 0 {
		b.lines = newRows([]string{""})
	}
	b.hl.splice(start, end, len(lines))
	b.sem.splice(start, end, len(lines))
	b.spliceInlays(start, end, len(lines))
	b.spliceRefs(start, end, len(lines))
	b.rev++
	if end-start == len(lines) {
		b.markDirtyRows(start, end)
	} else {
		b.markDirty(start)
	}
	b.cursor = b.clampPos(b.cursor)
}

// rowRef is where a list row points: a file (relative to a root the
// script knows), a 1-based line and a byte column.
type rowRef struct {
	file      string
	line, col int
}

// spliceRefs mirrors a change of rows [start, end) into n rows.
func (b *buffer) spliceRefs(start, end, n int) {
	if len(b.refs) <= start {
		return
	}
	b.refs = slices.Replace(b.refs, start, min(end, len(b.refs)), make([]rowRef, n)...)
}

// refAt is where row points, if anywhere. A live grep view's rows point at
// their matches, which the view keeps anyway: no reference is stored for
// them (that slice grew with every batch and its copies cost frames).
func (b *buffer) refAt(row int) (rowRef, bool) {
	if gv := b.gv; gv != nil && !gv.orphaned {
		if i := row - gv.base; i >= 0 && i < gv.matches.len() {
			m := gv.matches.at(i)
			return rowRef{file: m.File, line: int(m.Line), col: int(m.MatchStart)}, true
		}
	}
	if row < 0 || row >= len(b.refs) || b.refs[row].file == "" {
		return rowRef{}, false
	}
	return b.refs[row], true
}

// materializeGrepRefs stores the references of a grep view's rows outside
// [start, end), before a splice of those rows that the view's row-to-match
// mapping cannot follow. A splice that drops every row of the view (a new
// search clearing the buffer) stores none.
func (b *buffer) materializeGrepRefs(start, end int) {
	gv := b.gv
	if start <= gv.base && end >= gv.base+gv.matches.len() {
		return
	}
	for i := range gv.matches.len() {
		if row := gv.base + i; row < start || row >= end {
			m := gv.matches.at(i)
			b.setRef(row, rowRef{file: m.File, line: int(m.Line), col: int(m.MatchStart)})
		}
	}
}

// setRef records where row points.
func (b *buffer) setRef(row int, r rowRef) {
	if len(b.refs) <= row {
		b.refs = append(b.refs, make([]rowRef, row+1-len(b.refs))...)
	}
	b.refs[row] = r
}

// appendLines adds lines after the last row. Appending to a buffer holding
// one empty row replaces that row, so a fresh list view has no blank first
// line.
func (b *buffer) appendLines(lines []string) {
	if len(lines) == 0 {
		return
	}
	if b.lines.len() == 1 && b.lines.row(0) == "" {
		b.spliceLines(0, 1, lines)
		return
	}
	b.spliceLines(b.lines.len(), b.lines.len(), lines)
}

// edit replaces [s, e) with text, recording it for undo (merged into the
// previous step when typing continues a run), and leaves the cursor after
// the inserted text.
func (b *buffer) edit(s, e pos, text string, typing bool) {
	before := b.cursor
	end, removed, oldEnds, newEnds := b.replace(s, e, text, nil)
	b.cursor = end
	if !b.noUndo {
		b.undo.record(change{at: s, removed: removed, inserted: text, removedEnds: oldEnds, insertedEnds: newEnds}, before, end, typing)
	}
	b.wantCol = -1
}

// errLoading is returned (wrapped) by key edits to a buffer whose file is
// still being read: the read would overwrite them.
var errLoading = errors.New("buffer is still loading")

// keyEditable says why keys may not edit b, or nil.
func (b *buffer) keyEditable(what string) error {
	switch {
	case b.loading:
		return fmt.Errorf("%s in %s: %w", what, b.name, errLoading)
	case b.readOnly:
		return fmt.Errorf("%s in %s: %w", what, b.name, errReadOnly)
	}
	return nil
}

// insert types text at the cursor, over the selection if there is one:
// what is selected is what the user means to replace, in the same undo
// step as the text typed over it.
func (b *buffer) insert(text string) error {
	if err := b.keyEditable("insert"); err != nil {
		return err
	}
	b.typeText(text)
	return nil
}

// typeText is insert without the check: a script's insert (ed.insert) is
// allowed where keys are not.
func (b *buffer) typeText(text string) {
	s, e, ok := b.selection()
	if !ok {
		s, e = b.cursor, b.cursor
	} else {
		b.undo.seal()
	}
	b.edit(s, e, text, !strings.ContainsAny(text, "\n"))
}

// deleteSelection removes the selected text, if any, and reports whether
// it did: Backspace and Delete delete a selection, not a character beside
// it.
func (b *buffer) deleteSelection() bool {
	s, e, ok := b.selection()
	if !ok {
		return false
	}
	b.undo.seal()
	b.edit(s, e, "", false)
	return true
}

// deleteBack removes the rune (or line break) before the cursor.
func (b *buffer) deleteBack() error {
	if err := b.keyEditable("delete"); err != nil {
		return err
	}
	if b.deleteSelection() {
		return nil
	}
	c := b.cursor
	switch {
	case c.Col > 0:
		_, n := utf8.DecodeLastRuneInString(b.lines.row(c.Row)[:c.Col])
		b.edit(pos{c.Row, c.Col - n}, c, "", false)
	case c.Row > 0:
		b.edit(pos{c.Row - 1, len(b.lines.row(c.Row - 1))}, c, "", false)
	}
	return nil
}

// deleteForward removes the rune (or line break) under the cursor.
func (b *buffer) deleteForward() error {
	if err := b.keyEditable("delete"); err != nil {
		return err
	}
	if b.deleteSelection() {
		return nil
	}
	c := b.cursor
	line := b.lines.row(c.Row)
	switch {
	case c.Col < len(line):
		_, n := utf8.DecodeRuneInString(line[c.Col:])
		b.edit(c, pos{c.Row, c.Col + n}, "", false)
	case c.Row < b.lines.len()-1:
		b.edit(c, pos{c.Row + 1, 0}, "", false)
	}
	return nil
}

// undoStep reverts the newest step; false when there is none.
func (b *buffer) undoStep() bool {
	st, ok := b.undo.popUndo()
	if !ok {
		return false
	}
	for i := len(st.changes) - 1; i >= 0; i-- {
		c := st.changes[i]
		b.replace(c.at, endOf(c.at, c.inserted), c.removed, c.removedEnds)
	}
	b.cursor = b.clampPos(st.before)
	b.wantCol = -1
	return true
}

// redoStep re-applies the newest undone step; false when there is none.
func (b *buffer) redoStep() bool {
	st, ok := b.undo.popRedo()
	if !ok {
		return false
	}
	for _, c := range st.changes {
		b.replace(c.at, endOf(c.at, c.removed), c.inserted, c.insertedEnds)
	}
	b.cursor = b.clampPos(st.after)
	b.wantCol = -1
	return true
}

// setCursor moves the cursor (clamped) and ends the current typing run, so
// the next keystroke starts a new undo step.
func (b *buffer) setCursor(p pos) {
	b.cursor = b.clampPos(p)
	b.undo.seal()
}

// load replaces the whole text with what was read from disk, forgetting the
// history: the buffer now matches the file.
func (b *buffer) load(ft fileText) {
	lines := ft.lines
	ends := ft.ends
	if lines.len() == 0 {
		lines, ends = newRows([]string{""}), nil
	}
	if b.tailFrom > 0 {
		// The cursor and the window were on the preview's end rows: they
		// stay as far from the end of the whole text.
		old, n := b.lines.len(), lines.len()
		if b.cursor.Row >= b.tailFrom {
			b.cursor.Row = n - (old - b.cursor.Row)
		}
		if b.top >= b.tailFrom {
			b.top = max(n-(old-b.top), 0)
		}
		b.tailFrom = 0
	}
	// The old array is never written again, so a snapshot of it stays
	// valid as it is.
	b.snap, b.hits = nil, nil
	b.lines, b.eol, b.crlf, b.ends = lines, ft.eol, ft.crlf, ends
	b.text = ""
	if !ft.crlf && ft.ends == nil {
		b.text = ft.text
	}
	b.hl, b.refs = hlRows{}, nil
	b.undo = undoLog{}
	b.edits.reset()
	b.mark = nil
	b.savedStep = 0
	b.rev++
	b.textRev = b.rev
	b.markDirty(0)
	b.cursor = b.clampPos(b.cursor)
}

// showHead shows rows, the start of the file being read, until load
// replaces them with the whole text. The buffer stays loading meanwhile:
// keys do not edit it and saves wait, so nothing can be lost when the whole
// text lands. The rows of the file's end (tail, unless empty) show after
// a row saying the rows between are being read: a move to the end of a
// large file shows its end at once, and load keeps the cursor there
// (counted from the end) when the whole text lands.
func (b *buffer) showHead(rows rowStore, tail []string) {
	if !b.loading || rows.len() == 0 {
		return
	}
	b.snap, b.hits = nil, nil
	b.tailFrom = 0
	if len(tail) > 0 {
		all := append(rows.all(), loadingGapRow)
		b.tailFrom = len(all)
		rows = newRows(append(all, tail...))
	}
	b.lines = rows
	b.rev++
	b.markDirty(0)
	b.cursor = b.clampPos(b.cursor)
}

// loadingGapRow stands between the start and the end of a large file
// shown while it loads.
const loadingGapRow = "⋯ (reading the rows between) ⋯"

// selection returns the selected range, start before end; ok is false when
// there is no mark or the range is empty.
func (b *buffer) selection() (s, e pos, ok bool) {
	if b.mark == nil {
		return pos{}, pos{}, false
	}
	s, e = b.clampPos(*b.mark), b.cursor
	if e.before(s) {
		s, e = e, s
	}
	return s, e, s != e
}
