package editor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/journal"
)

// languageFor picks the syntax language from a file name; "" for none.
func languageFor(path string) string {
	base := filepath.Base(path)
	switch strings.ToLower(filepath.Ext(base)) {
	case ".go":
		return "go"
	case ".lua":
		return "lua"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx":
		return "cpp"
	case ".css":
		return "css"
	case ".html", ".htm":
		return "html"
	case ".js", ".mjs", ".cjs", ".jsx":
		return "javascript"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "tsx"
	case ".md", ".markdown":
		return "markdown"
	case ".py", ".pyi":
		return "python"
	case ".rs":
		return "rust"
	case ".toml":
		return "toml"
	case ".yaml", ".yml":
		return "yaml"
	case ".sh", ".bash":
		return "bash"
	}
	switch base {
	case "Makefile", "makefile", "GNUmakefile":
		return ""
	case ".bashrc", ".profile", ".bash_profile":
		return "bash"
	}
	return ""
}

func (e *session) addBuffer(b *buffer) *buffer {
	e.bufs[b.id] = b
	e.order = append(e.order, b.id)
	return b
}

// newScratch makes a read-only buffer with no file and no history, shown
// as a list (the selected row highlighted).
func (e *session) newScratch(name string) *buffer {
	b := newBuffer(e.nextBuf, name)
	e.nextBuf++
	b.readOnly, b.noUndo, b.cursorLine = true, true, true
	return e.addBuffer(b)
}

// findBuffer returns the buffer called name, or visiting the file at name.
func (e *session) findBuffer(name string) *buffer {
	abs, _ := filepath.Abs(name)
	for _, id := range e.order {
		b := e.bufs[id]
		if b.name == name || (b.path != "" && b.path == abs) {
			return b
		}
	}
	return nil
}

// openFile returns the buffer visiting path, creating it if needed. The
// text is read on a helper goroutine: the buffer shows at once, empty and
// marked loading, shows the file's first rows as soon as they are read (a
// large file), and fills in when the whole read lands (then "open" fires). A
// path that does not exist opens an empty buffer the first save creates,
// and the message line says it is a new file. A path ending in "/" names a
// directory, never a file.
func (e *session) openFile(path string) (*buffer, error) {
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) {
		return nil, fmt.Errorf("open %s: a path ending in / names a directory, not a file", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	for _, id := range e.order {
		if b := e.bufs[id]; b.path == abs {
			return b, nil
		}
	}
	b := newBuffer(e.nextBuf, e.uniqueName(filepath.Base(abs)))
	e.nextBuf++
	b.path, b.lang, b.loading = abs, languageFor(abs), true
	e.addBuffer(b)
	jdir := e.journalDir()
	e.goIO(func() func() {
		ft, exists, err := readFileText(abs, func(rows rowStore, tail []string) {
			select {
			case e.calls <- func() {
				if e.bufs[b.id] == b {
					b.showHead(rows, tail)
				}
			}:
			case <-e.stop:
				return
			}
			// The rest of the read waits for the loop to have drawn the
			// rows (the loop draws after each call, and runs the next call
			// in a later turn): reading a 1 GB file takes both cores for a
			// second, and the first frame waited up to twice as long
			// behind it.
			shown := make(chan struct{})
			select {
			case e.calls <- func() { close(shown) }:
			case <-e.stop:
				return
			}
			select {
			case <-shown:
			case <-e.stop:
			}
		})
		dirMissing := false
		if err == nil && !exists {
			_, derr := os.Stat(filepath.Dir(abs))
			dirMissing = errors.Is(derr, fs.ErrNotExist)
		}
		var base journal.Base
		var offer *recoveryOffer
		if err == nil && jdir != "" {
			base = baseOf(ft)
			offer = findJournal(jdir, abs, ft, base)
		}
		return func() {
			e.loaded(b, ft, err)
			if err == nil && e.bufs[b.id] == b {
				e.journalLoaded(b, base)
				if b.jn != nil && offer != nil {
					b.jn.offer = offer
				}
			}
			if err == nil && !exists && e.bufs[b.id] == b {
				if dirMissing {
					e.message(fmt.Sprintf("new file %s; its directory does not exist either (saving asks to create it)", abs))
				} else {
					e.message("new file " + abs + " (the first save creates it)")
				}
			}
		}
	})
	return b, nil
}

// uniqueName adds <2>, <3>... to a buffer name already taken.
func (e *session) uniqueName(name string) string {
	taken := func(n string) bool {
		for _, b := range e.bufs {
			if b.name == n {
				return true
			}
		}
		return false
	}
	if !taken(name) {
		return name
	}
	for i := 2; ; i++ {
		if n := fmt.Sprintf("%s<%d>", name, i); !taken(n) {
			return n
		}
	}
}

// loaded installs a file's text read by openFile.
func (e *session) loaded(b *buffer, ft fileText, err error) {
	if e.bufs[b.id] != b {
		return // closed while it loaded
	}
	b.loading = false
	if err != nil {
		// The first rows shown while it loaded are not the file: a save
		// of them would cut it short.
		b.load(fileText{lines: newRows([]string{""})})
		b.notifiedRev = b.rev
		b.readOnly = true
		e.reportError(err.Error(), "")
		// No "open": there is no text to sync or parse. A task waiting for
		// the read still has to wake and find it failed.
		e.raise(event{name: "loaded", buf: b.id})
		return
	}
	if o := e.win.other; o != nil && o.buf == b && b.tailFrom > 0 {
		// The other window on the preview's end rows stays as far from
		// the end of the whole text, as load keeps the focused one.
		old, n := b.lines.len(), max(ft.lines.len(), 1)
		if o.cursor.Row >= b.tailFrom {
			o.cursor.Row = max(n-(old-o.cursor.Row), 0)
		}
		if o.top >= b.tailFrom {
			o.top = max(n-(old-o.top), 0)
		}
	}
	b.load(ft)
	b.disk = ft.stamp
	b.notifiedRev = b.rev
	if ft.bytes > bigTextBytes {
		e.fitGC()
	}
	if ft.ends != nil {
		e.message(fmt.Sprintf("%s mixes line endings (%d CRLF, %d LF): each line keeps its own", b.name, ft.crlfRows, ft.lfRows))
	}
	switch {
	case ft.binary:
		b.readOnly = true
		e.message(b.name + " looks binary: opened read-only")
	case ft.readOnly:
		b.readOnly = true
		e.message(b.path + " is not writable by you: opened read-only")
	}
	if p := b.pendingCursor; p != nil {
		b.pendingCursor = nil
		b.setCursor(*p)
	}
	e.raise(event{name: "loaded", buf: b.id})
	e.raise(event{name: "open", buf: b.id})
}

// saveRequest is a save waiting for the one in flight.
type saveRequest struct {
	onDone   *lua.LFunction
	makeDirs bool
	force    bool
}

// save writes b to its file atomically on a helper goroutine (in place,
// after keeping the old text in memory, when only the directory refuses).
// The text is copied first, so editing goes on while the disk works; the
// buffer counts as unmodified afterwards only if it was not edited in the
// meantime. onDone (may be nil) is called with (true) or (false, message).
//
// A missing directory fails the save unless makeDirs (the caller asked the
// user) creates it and its missing parents first. A file another program
// changed since the buffer read or wrote it is not overwritten
// (errChangedOnDisk) unless force.
func (e *session) save(b *buffer, onDone *lua.LFunction, makeDirs, force bool) {
	fail := func(msg string) {
		e.reportError(msg, "")
		if onDone != nil {
			e.callLua(onDone, "save on_done", lua.LFalse, lua.LString(msg))
		}
	}
	switch {
	case b.path == "":
		fail(fmt.Sprintf("save: %s has no file", b.name))
		return
	case b.loading:
		fail(fmt.Sprintf("save: %s is still loading", b.name))
		return
	case b.saving:
		// Two writers racing on one temp-and-rename could land the older
		// text last: queue behind the one in flight.
		b.saveAgain = append(b.saveAgain, saveRequest{onDone: onDone, makeDirs: makeDirs, force: force})
		return
	}
	b.undo.seal()
	stepAt := b.undo.current()
	// The text is joined on the helper goroutine, from a frozen copy of
	// the rows: joining a large file took the main loop a second or more.
	lines, eol, crlf, ends := b.lines.freeze(), b.eol, b.crlf, slices.Clone(b.ends)
	path, stamp := b.path, b.disk
	b.saving = true
	journalled := b.jn != nil
	e.goIO(func() func() {
		data := joinText(lines, eol, crlf, ends)
		var none diskStamp
		if !force {
			if err := refuseClobber(path, stamp); err != nil {
				return func() { e.saved(b, stepAt, len(data), false, none, err, onDone, journal.Base{}) }
			}
		}
		if makeDirs {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return func() {
					e.saved(b, stepAt, len(data), false, none, fmt.Errorf("save %s: %w", path, err), onDone, journal.Base{})
				}
			}
		}
		inPlace, err := writeFile(path, data)
		if err != nil {
			return func() { e.saved(b, stepAt, len(data), inPlace, none, err, onDone, journal.Base{}) }
		}
		written := savedStamp(path, data)
		var base journal.Base
		if journalled {
			base = journal.Base{Size: int64(len(data)), ModTime: written.mtime, Hash: journal.Hash(data)}
		}
		return func() { e.saved(b, stepAt, len(data), inPlace, written, err, onDone, base) }
	})
}

func (e *session) saved(b *buffer, stepAt uint64, n int, inPlace bool, written diskStamp, err error, onDone *lua.LFunction, base journal.Base) {
	b.saving = false
	if err == nil {
		b.disk = written
	}
	if err != nil {
		e.reportError(err.Error(), "")
		if onDone != nil {
			e.callLua(onDone, "save on_done", lua.LFalse, lua.LString(err.Error()))
		}
	} else {
		b.savedStep = stepAt
		e.journalSaved(b, base)
		if inPlace {
			e.message(fmt.Sprintf("wrote %s (%d bytes) in place: its directory is not writable, so the save was not atomic", b.path, n))
		} else {
			e.message(fmt.Sprintf("wrote %s (%d bytes)", b.path, n))
		}
		if onDone != nil {
			e.callLua(onDone, "save on_done", lua.LTrue)
		}
		e.raise(event{name: "save", buf: b.id})
	}
	if len(b.saveAgain) > 0 {
		next := b.saveAgain[0]
		b.saveAgain = b.saveAgain[1:]
		e.save(b, next.onDone, next.makeDirs, next.force)
	}
}

// show puts b in the window. A prompt owned by the buffer that leaves the
// window ends (its on_cancel runs after the switch).
func (e *session) show(b *buffer) {
	if b == e.cur {
		return
	}
	e.prev = e.cur
	e.cur = b
	if e.prompt != nil && e.prompt.owner != b {
		e.cancelPrompt(cancelSwitch)
	}
}

// closeBuffer forgets b and removes its journal. The window falls back to
// the previous buffer, or *messages*, which cannot be closed.
func (e *session) closeBuffer(b *buffer) error { return e.closeBufferKeep(b, false) }

// closeBufferKeep is closeBuffer, keeping b's journal (with what it has
// queued) when keepJournal.
func (e *session) closeBufferKeep(b *buffer, keepJournal bool) error {
	if b == e.messages {
		return fmt.Errorf("close: *messages* cannot be closed")
	}
	e.journalClosed(b, keepJournal)
	delete(e.bufs, b.id)
	if b.path != "" && b.ByteCount() > bigTextBytes {
		defer e.fitGC()
	}
	for i, id := range e.order {
		if id == b.id {
			e.order = append(e.order[:i:i], e.order[i+1:]...)
			break
		}
	}
	if e.prompt != nil && e.prompt.owner == b {
		e.cancelPrompt(cancelClose)
	}
	e.windowClosed(b, e.messages)
	e.stopGrepView(b)
	delete(e.keys.buffer, b.id)
	delete(e.viewSent, b.id)
	e.hooks.dropBuffer(b.id)
	// Scripts release what they kept for the buffer (a parse tree), and
	// may remember where its cursor was (the buffer is gone when they run).
	e.raise(event{name: "close", buf: b.id, path: b.path, top: b.cursor.Row, bottom: b.cursor.Col})
	if e.prev == b {
		e.prev = nil
	}
	if e.cur == b {
		next := e.prev
		if next == nil {
			next = e.messages
		}
		e.cur, e.prev = next, nil
	}
	return nil
}
