package grep

import (
	"bytes"
	"unicode/utf8"

	"github.com/pmacs-go/pmacs-go/walk"
)

// emitChunk caps the matches held for one emit call, so a file where every line matches
// costs bounded memory.
const emitChunk = 1024

// scanWindow is how much of a buffer the prefilter scans between two polls of the stop flag.
const scanWindow = 256 << 10

// testHookFile, set only by tests, is called by a fanout goroutine with each file it is about
// to search, so that a test can make that goroutine panic.
var testHookFile func(rel string)

// worker is one fanout goroutine with its reused buffers.
type worker struct {
	s         *search
	m         *matcher
	buf       []byte      // file content, reused across files
	spans     [][2]uint32 // spans of the line being examined
	held      []held      // matches of the current file not yet emitted
	texts     []byte      // their texts, back to back
	heldSpans [][2]uint32 // their spans, back to back
	stats     Stats
	// The file being searched; rel, its relative path, is built at its first match.
	dir       *walk.Dir
	name, rel string
}

func newWorker(s *search) *worker {
	return &worker{s: s, m: s.plan.matcher}
}

// stopped polls for the end of the search. The context is polled here, by the goroutines
// doing the work, rather than through a watcher goroutine, which could wait for a processor
// while every processor runs a busy worker.
func (w *worker) stopped() bool {
	if w.s.stop.Load() {
		return true
	}
	select {
	case <-w.s.ctxDone:
		w.s.fail(w.s.ctxErr())
		return true
	default:
		return false
	}
}

// searchFile reads one file into the worker's buffer and reports its matches.
func (w *worker) searchFile(d *walk.Dir, name string) {
	data, buf, status := readFile(d.Fd(), d.Path(), name, w.buf, w.s.plan.spec.MaxFileBytes, w.stopped)
	w.buf = buf
	switch status {
	case fileStopped:
		return
	case fileBinary:
		w.stats.FilesSkipped++
		w.s.skipped.BinaryFiles.Add(1)
		return
	case fileOversize:
		w.stats.FilesSkipped++
		w.s.skipped.OversizeFiles.Add(1)
		return
	case fileUnreadable:
		w.stats.FilesSkipped++
		w.s.skipped.UnreadableFiles.Add(1)
		return
	}
	w.stats.FilesSearched++
	w.stats.BytesSearched += int64(len(data))
	if p := w.s.plan.spec.Progress; p != nil {
		p.Add(1)
	}
	if testHookFile != nil {
		testHookFile(d.Join(name))
	}
	emittedBefore := w.stats.Matches
	w.dir, w.name, w.rel = d, name, ""
	w.scan(data)
	w.flush()
	if w.stats.Matches > emittedBefore {
		w.stats.FilesMatched++
	}
	if cap(w.buf) > 4<<20 {
		w.buf = nil // a rare huge file should not pin its buffer for the rest of the search
	}
}

// scan finds the matching lines of data. It splits lines only around candidate hits and
// counts line numbers only when a line matches.
func (w *worker) scan(data []byte) {
	m := w.m
	var (
		pos     int    // search position; always at a line start
		counted int    // newlines before counted are in lineNo
		lineNo  uint32 = 1
	)
	for pos < len(data) {
		if w.stopped() {
			return
		}
		var lineStart, lineEnd, from, hit int
		if m.hasPrefilter() {
			end := min(len(data), pos+scanWindow)
			hit = m.find(data[pos:end])
			if hit < 0 {
				if end == len(data) {
					return
				}
				// Resume at the start of the window's last line: a hit may straddle the edge.
				next := bytes.LastIndexByte(data[pos:end], '\n')
				if next < 0 {
					// One line longer than the window: search the rest at once.
					hit = m.find(data[pos:])
					if hit < 0 {
						return
					}
				} else {
					pos += next + 1
					continue
				}
			}
			hit += pos
			lineStart = pos + bytes.LastIndexByte(data[pos:hit], '\n') + 1
			from = hit - lineStart
		} else {
			lineStart, hit = pos, pos
		}
		lineEnd = len(data)
		if i := bytes.IndexByte(data[hit:], '\n'); i >= 0 {
			lineEnd = hit + i
		}
		pos = lineEnd + 1
		line := data[lineStart:lineEnd]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if from > len(line) {
			continue // the hit was the stripped CR or the newline itself
		}
		w.spans = m.spans(line, from, w.spans[:0])
		if len(w.spans) == 0 || !utf8.Valid(line) {
			continue
		}
		lineNo += uint32(bytes.Count(data[counted:lineStart], []byte{'\n'}))
		counted = lineStart
		w.addMatch(lineNo, line)
		if len(w.held) >= emitChunk && !w.flush() {
			return
		}
	}
}

// held is a matching line waiting for flush: its text and spans sit in the worker's reused
// buffers until flush copies the whole batch out with three allocations.
type held struct {
	line               uint32
	textStart, textEnd int
	spanStart, spanEnd int
}

// addMatch records a matching line, cut to MaxMatchText; spans ending past the cut go.
func (w *worker) addMatch(lineNo uint32, line []byte) {
	limit := w.s.plan.spec.MaxMatchText
	if len(line) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = line[:cut]
	}
	kept := w.spans
	for i, sp := range kept {
		if int(sp[1]) > len(line) {
			kept = kept[:i]
			break
		}
	}
	if len(kept) == 0 {
		return
	}
	h := held{line: lineNo, textStart: len(w.texts), spanStart: len(w.heldSpans)}
	w.texts = append(w.texts, line...)
	w.heldSpans = append(w.heldSpans, kept...)
	h.textEnd, h.spanEnd = len(w.texts), len(w.heldSpans)
	w.held = append(w.held, h)
}

// flush hands the held matches of the file to emit, honouring MaxResults. It returns false
// once the search must stop.
func (w *worker) flush() bool {
	n := len(w.held)
	if n == 0 {
		return !w.s.stop.Load()
	}
	if w.rel == "" {
		w.rel = w.dir.Join(w.name)
	}
	file := w.rel
	defer func() {
		w.held, w.texts, w.heldSpans = w.held[:0], w.texts[:0], w.heldSpans[:0]
	}()
	if limit := int64(w.s.plan.spec.MaxResults); limit > 0 {
		after := w.s.emitted.Add(int64(n))
		if before := after - int64(n); before >= limit {
			return false
		} else if after >= limit {
			n = int(limit - before)
			w.s.halt()
		}
	}
	if w.s.failed.Load() {
		return false
	}
	// The callee owns the batch: one string holds every text, one array every span.
	last := w.held[n-1]
	texts := string(w.texts[:last.textEnd])
	spans := make([][2]uint32, last.spanEnd)
	copy(spans, w.heldSpans)
	batch := make([]Match, n)
	for i, h := range w.held[:n] {
		sp := spans[h.spanStart:h.spanEnd:h.spanEnd]
		batch[i] = Match{
			File:       file,
			Line:       h.line,
			Text:       texts[h.textStart:h.textEnd],
			MatchStart: sp[0][0],
			MatchEnd:   sp[0][1],
			Spans:      sp,
		}
	}
	w.stats.Matches += int64(n)
	if err := w.s.emit(batch); err != nil {
		w.s.fail(err)
		return false
	}
	return !w.stopped()
}
