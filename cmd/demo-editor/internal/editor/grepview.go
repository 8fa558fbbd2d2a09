package editor

import (
	"slices"
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"github.com/pmacs-go/pmacs-go/grep"
	"github.com/pmacs-go/pmacs-go/kinds/grepjob"
	"github.com/pmacs-go/pmacs-go/runtime"
)

// grepView is a scratch buffer filled by a grep job the editor runs
// itself: the job's batches come back to Go (the frame's unclaimed
// batches) as blocks of undecoded matches, and each match becomes a row
// that stays empty until a window shows it. So no match is decoded,
// converted to a Lua table or formatted unless someone looks at it, and
// the count keeps pace with the job.
type grepView struct {
	job  runtime.JobID
	base int // the row of matches[0]
	// matches are the rows' matches.
	matches matchChunks
	count   int
	files   uint64
	skipped grep.SkipCounts // from the job: what the search left out so far
	state   string          // "running", "done", "cancelled" or "error"
	err     string
	// reported says on_update has seen the current figures.
	reported bool
	// orphaned says a script rewrote the rows the view fills: the search
	// stops and its rows are left as they are.
	orphaned bool
	onUpdate *lua.LFunction
}

// luaGrepView is ed.grep_view(buf, spec): it searches spec.root into buf
// below its first row (the header), replacing the rows there.
func (e *session) luaGrepView(L *lua.LState) int {
	const fname = "grep_view"
	b := e.bufArg(L, fname, 1)
	if !b.noUndo {
		L.RaiseError("pmacs.editor.%s: buffer %d keeps history; grep into a buffer made with create", fname, b.id)
	}
	t := optTable(L, fname, 2, "spec", "root", "pattern", "regex", "case_sensitive", "key", "on_update")
	if t == nil {
		argErr(L, fname, 2, "spec", "a table")
	}
	str := func(name string) string {
		v, ok := t.RawGetString(name).(lua.LString)
		if !ok {
			L.RaiseError("pmacs.editor.%s: field '%s' expected a string, got %s", fname, name, t.RawGetString(name).Type().String())
		}
		return string(v)
	}
	spec := grep.Spec{
		Root:       str("root"),
		Pattern:    str("pattern"),
		Regex:      lua.LVAsBool(t.RawGetString("regex")),
		IgnoreCase: t.RawGetString("case_sensitive") == lua.LFalse,
		// What rg searches by default: ignore files are honoured and
		// hidden files skipped, and no directory is skipped by name.
		SkipDirs: []string{},
	}
	key := ""
	if v, ok := t.RawGetString("key").(lua.LString); ok {
		key = string(v)
	}
	onUpdate := optFn(L, fname, t, "on_update")

	e.stopGrepView(b)
	// The old view's rows go with it: nothing needs their references.
	b.gv = nil
	if b.lines.len() > 1 {
		b.spliceLines(1, b.lines.len(), nil)
	}
	batch := e.opts.grepBatch
	if batch == 0 {
		batch = 1_000_000
	}
	id := grepjob.DispatchBlocks(e.rt, spec, runtime.DispatchOptions{Key: key, MaxBatch: batch})
	b.gv = &grepView{job: id, base: b.lines.len(), state: "running", onUpdate: onUpdate}
	if e.grepViews == nil {
		e.grepViews = map[runtime.JobID]*buffer{}
	}
	e.grepViews[id] = b
	return push(L, lua.LNumber(id))
}

// luaGrepCancel stops the buffer's search; its rows stay.
func (e *session) luaGrepCancel(L *lua.LState) int {
	b := e.bufArg(L, "grep_cancel", 1)
	e.stopGrepView(b)
	return 0
}

// luaGrepStatus returns the buffer's search figures, or nil.
func (e *session) luaGrepStatus(L *lua.LState) int {
	b := e.bufArg(L, "grep_status", 1)
	if b.gv == nil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(e.grepStatus(b.gv))
	return 1
}

func (e *session) grepStatus(gv *grepView) *lua.LTable {
	t := e.L.CreateTable(0, 5)
	t.RawSetString("matches", lua.LNumber(gv.count))
	t.RawSetString("files", lua.LNumber(gv.files))
	t.RawSetString("state", lua.LString(gv.state))
	if gv.err != "" {
		t.RawSetString("error", lua.LString(gv.err))
	}
	t.RawSetString("skipped", e.skippedTable(gv.skipped))
	return t
}

// skippedTable is a search's skip counts for Lua, by reason; every field is
// present, zero or not, so a script can add them up without nil checks.
func (e *session) skippedTable(c grep.SkipCounts) *lua.LTable {
	t := e.L.CreateTable(0, 10)
	for _, f := range []struct {
		name string
		n    int64
	}{
		{"ignored_files", c.IgnoredFiles}, {"ignored_dirs", c.IgnoredDirs},
		{"hidden_files", c.HiddenFiles}, {"hidden_dirs", c.HiddenDirs},
		{"excluded_dirs", c.NamedDirs}, {"unreadable_dirs", c.UnreadableDirs},
		{"unreadable_files", c.UnreadableFiles}, {"binary_files", c.BinaryFiles},
		{"oversize_files", c.OversizeFiles}, {"other", c.Other},
	} {
		t.RawSetString(f.name, lua.LNumber(f.n))
	}
	return t
}

// stopGrepView cancels b's running search, if any.
func (e *session) stopGrepView(b *buffer) {
	gv := b.gv
	if gv == nil || gv.state != "running" {
		return
	}
	e.rt.Cancel(gv.job)
	delete(e.grepViews, gv.job)
	gv.state = "cancelled"
}

// takeGrepBatches appends the frame's batches of the editor's own grep
// jobs to their buffers, and tells each view's on_update of the new
// figures once a frame.
func (e *session) takeGrepBatches(batches []runtime.StreamBatch) {
	for _, b := range e.grepViews {
		if b.gv.orphaned {
			e.stopGrepView(b)
		}
	}
	for i := range batches {
		sb := &batches[i]
		b := e.grepViews[sb.ID]
		if b == nil || b.gv == nil || b.gv.job != sb.ID {
			continue
		}
		gv := b.gv
		if n := sb.Len(); n > 0 {
			first := b.lines.len()
			for _, blk := range grepjob.BlocksOf(*sb) {
				gv.matches.append(blk)
			}
			gv.count += n
			for k := 0; k < n; k += len(blankRows) {
				b.spliceLines(first+k, first+k, blankRows[:min(n-k, len(blankRows))])
			}
		}
		gv.files, gv.skipped = sb.Progress, grepjob.SkippedOf(*sb)
		gv.reported = false
		if sb.Closed {
			delete(e.grepViews, sb.ID)
			switch sb.Outcome.State {
			case runtime.Complete:
				gv.state = "done"
			case runtime.Cancelled:
				gv.state = "cancelled"
			default:
				gv.state = "error"
				if sb.Outcome.Err != nil {
					gv.err = sb.Outcome.Err.Error()
				}
			}
		}
	}
	// Files searched and skipped move on between matches too.
	for id, b := range e.grepViews {
		if n, ok := e.rt.StreamProgress(id); ok && n != b.gv.files {
			b.gv.files, b.gv.reported = n, false
		}
		if sk, ok := grepjob.StreamSkipped(e.rt, id); ok && sk != b.gv.skipped {
			b.gv.skipped, b.gv.reported = sk, false
		}
	}
	for _, b := range e.bufs {
		if gv := b.gv; gv != nil && !gv.reported {
			gv.reported = true
			if gv.onUpdate != nil {
				e.callLua(gv.onUpdate, "grep_view on_update", e.grepStatus(gv))
			}
		}
	}
}

// formatGrepRow fills row from its match the first time it is drawn or
// read: "file:line: text", the prefix dim and the matches highlighted.
func (e *session) formatGrepRow(b *buffer, row int) {
	gv := b.gv
	i := row - gv.base
	if gv.orphaned || i < 0 || i >= gv.matches.len() || b.lines.row(row) != "" {
		return
	}
	m := gv.matches.at(i)
	text := make([]byte, 0, len(m.File)+len(m.Text)+12)
	text = append(text, m.File...)
	text = append(text, ':')
	text = strconv.AppendUint(text, uint64(m.Line), 10)
	text = append(text, ": "...)
	prefix := len(text)
	text = append(text, m.Text...)
	if b.snap != nil {
		b.ownLines()
	}
	b.lines.set(row, string(text))
	spans := make([]hlSpan, 0, 1+len(m.Spans))
	spans = append(spans, hlSpan{0, prefix - 2, e.faces.intern("dim")})
	match := e.faces.intern("match")
	for _, sp := range m.Spans {
		if sp[0] < sp[1] {
			spans = append(spans, hlSpan{prefix + int(sp[0]), prefix + int(sp[1]), match})
		}
	}
	b.hl.setRow(row, spans)
}

// matchChunks holds a view's matches as the blocks they came in: adding a
// frame's blocks copies nothing and decodes nothing. (One growing slice of
// 150,000 matches, 80 bytes each with three pointers, was copied again at
// every growth step, which made the frames that grew it take up to 17 ms;
// and decoding each match as it arrived was most of a frame's work at
// thousands of matches a frame.)
type matchChunks struct {
	chunks []*grepjob.MatchBlock
	starts []int // starts[k] is the index of chunks[k]'s first match
	n      int
}

func (c *matchChunks) len() int { return c.n }

// at decodes match i.
func (c *matchChunks) at(i int) grep.Match {
	k, found := slices.BinarySearch(c.starts, i)
	if !found {
		k--
	}
	return c.chunks[k].At(i - c.starts[k])
}

func (c *matchChunks) append(blk *grepjob.MatchBlock) {
	if blk.Len() == 0 {
		return
	}
	c.chunks = append(c.chunks, blk)
	c.starts = append(c.starts, c.n)
	c.n += blk.Len()
}

// blankRows are the rows a batch adds before they are drawn (a view's rows
// are formatted when shown): spliceLines copies them, so one array serves
// every batch.
var blankRows [4096]string

func (e *session) installGrepViewAPI(api *lua.LTable) {
	e.L.SetFuncs(api, map[string]lua.LGFunction{
		"grep_view": e.luaGrepView, "grep_cancel": e.luaGrepCancel, "grep_status": e.luaGrepStatus,
	})
}
