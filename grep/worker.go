package grep

import (
	"bytes"
	"io"
	"slices"
	"sync/atomic"
	"unicode/utf8"

	"github.com/pmacs-go/pmacs-go/walk"
)

// emitChunk caps the matches held for one emit call, so a file where every line matches
// costs bounded memory.
const emitChunk = 1024

// maxKeptBuf bounds the buffer a worker keeps between files; one grown past it for a long
// line is dropped. Below it a grown buffer is kept: the next file with long lines (a data
// blob, minified text) does not allocate again.
const maxKeptBuf = 4 << 20

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
	batch     []Match     // the last batch emitted, with Spec.ReuseBatch
	stats     Stats
	// The file being searched; rel, its relative path, is built at its first match.
	dir       *walk.Dir
	name, rel string
	lineNo    uint32 // the number of the line at counted in the chunk being scanned
	counted   int
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

// searchFile reads one file, a chunk at a time, into the worker's buffer and reports its
// matches.
func (w *worker) searchFile(d *walk.Dir, name string) {
	f, err := openFile(d.Fd(), d.Path(), name)
	if err != nil {
		w.skip(&w.s.skipped.UnreadableFiles)
		return
	}
	defer f.close()
	w.dir, w.name, w.rel = d, name, ""
	emittedBefore := w.stats.Matches
	size, ok := w.readAndScan(f)
	w.held, w.texts, w.heldSpans = w.held[:0], w.texts[:0], w.heldSpans[:0]
	if cap(w.buf) > maxKeptBuf {
		w.buf = nil // a rare huge line should not pin its buffer for the rest of the search
	}
	if !ok {
		return
	}
	w.stats.FilesSearched++
	w.stats.BytesSearched += size
	if w.stats.Matches > emittedBefore {
		w.stats.FilesMatched++
	}
}

// skip counts a file the search leaves out, under its reason.
func (w *worker) skip(reason *atomic.Int64) {
	w.stats.FilesSkipped++
	reason.Add(1)
}

// readAndScan searches the open file and returns its size and whether it was searched to
// its end. A file that fits in the first read costs one read: a short read of a regular file
// is its end, so only a file that fills the buffer is fstat'ed, for its size (larger than
// MaxFileBytes: skipped) and its type (no longer a regular file: unreadable). Such a file is
// searched a buffer of whole lines at a time; a line longer than the buffer is held whole
// only when every line is a candidate (no prefilter), else read again if it holds a hit.
func (w *worker) readAndScan(f file) (int64, bool) {
	if cap(w.buf) < chunkSize {
		w.buf = make([]byte, chunkSize)
	}
	buf := w.buf[:cap(w.buf)]
	maxBytes := w.s.plan.spec.MaxFileBytes
	want := int(min(int64(len(buf)), maxBytes+1)) // one byte past maxBytes tells an oversize file
	n, err := f.read(buf[:want])
	if err != nil {
		w.skip(&w.s.skipped.UnreadableFiles)
		return 0, false
	}
	size := int64(n)
	if n == want {
		var regular bool
		if size, regular, err = f.stat(); err != nil || !regular {
			w.skip(&w.s.skipped.UnreadableFiles)
			return 0, false
		}
		if size > maxBytes {
			w.skip(&w.s.skipped.OversizeFiles)
			return 0, false
		}
		size = max(size, int64(n))
	}
	if bytes.IndexByte(buf[:min(n, binaryProbe)], 0) >= 0 {
		w.skip(&w.s.skipped.BinaryFiles)
		return 0, false
	}
	if p := w.s.plan.spec.Progress; p != nil {
		p.Add(1)
	}
	if testHookFile != nil {
		testHookFile(w.dir.Join(w.name))
	}
	w.lineNo = 1
	filled, read := n, int64(n) // bytes in buf; bytes of the file read
	// A line that fills the buffer is not held whole when the pattern has a prefilter: its
	// head is dropped (headOff is where the line began, -1 when none is partly dropped) and
	// only enough of its tail stays for a hit straddling the drop. Should the line hold a
	// hit (hitInHead: in a dropped part), it is read again whole once its end is found.
	headOff, hitInHead := int64(-1), false
	for {
		final := read >= size
		start := 0 // where the lines not yet searched begin in buf
		if headOff >= 0 {
			end := bytes.IndexByte(buf[:filled], '\n')
			if end < 0 && final {
				end = filled
			}
			if end >= 0 {
				if hitInHead || w.m.find(buf[:end]) >= 0 {
					lineEnd := read - int64(filled) + int64(end)
					if ok, err := w.scanLongLine(f, headOff, lineEnd); err != nil {
						w.skip(&w.s.skipped.UnreadableFiles)
						return 0, false
					} else if !ok {
						return 0, false // stopped: the file is not counted as searched
					}
				}
				headOff, hitInHead = -1, false
				w.lineNo++
				start = min(end+1, filled)
			}
		}
		if final {
			w.scan(buf[start:filled])
			w.flush()
			return read, true
		}
		if headOff < 0 {
			if cut := bytes.LastIndexByte(buf[start:filled], '\n') + 1; cut > 0 {
				cut += start
				if !w.scan(buf[start:cut]) {
					return 0, false
				}
				w.lineNo += uint32(bytes.Count(buf[start+w.counted:cut], []byte{'\n'}))
				start = cut
			}
			filled = copy(buf, buf[start:filled])
		}
		if filled == len(buf) {
			// One line fills the buffer.
			if w.m.pre == nil || len(w.m.pre.needle) > len(buf)/2 {
				// Every line is a candidate (or a hit may not fit in what would be kept):
				// hold the line whole.
				grown := make([]byte, 2*len(buf))
				copy(grown, buf[:filled])
				buf, w.buf = grown, grown
			} else {
				if headOff < 0 {
					headOff = read - int64(filled)
				}
				hitInHead = hitInHead || w.m.find(buf[:filled]) >= 0
				keep := len(w.m.pre.needle) - 1
				filled = copy(buf, buf[filled-keep:filled])
			}
		}
		if w.stopped() {
			return 0, false
		}
		m, err := f.read(buf[filled:int(min(int64(len(buf)), int64(filled)+size-read))])
		if err != nil {
			// Matches already emitted stay; those held are dropped with the file.
			w.skip(&w.s.skipped.UnreadableFiles)
			return 0, false
		}
		if m == 0 {
			size = read // the file shrank since fstat
		}
		filled += m
		read += int64(m)
	}
}

// scanLongLine reads the line at [from, to) of the file again, whole, and searches it as
// line w.lineNo. It returns false once the search must stop, and the error of a read that
// failed or came short.
func (w *worker) scanLongLine(f file, from, to int64) (bool, error) {
	line := make([]byte, to-from)
	for n := 0; n < len(line); {
		m, err := f.readAt(line[n:], from+int64(n))
		if err != nil {
			return false, err
		}
		if m == 0 {
			return false, io.ErrUnexpectedEOF // the file shrank
		}
		n += m
	}
	return w.scan(line), nil
}

// scan finds the matching lines of data, whole lines of the file whose first is line
// w.lineNo. It splits lines only around candidate hits and counts line numbers only when a
// line matches: on return w.lineNo is the number of the line at w.counted. It returns false
// once the search must stop.
func (w *worker) scan(data []byte) bool {
	m := w.m
	pos := 0 // search position; always at a line start
	w.counted = 0
	for pos < len(data) {
		if w.stopped() {
			return false
		}
		var lineStart, lineEnd, from, hit int
		if m.hasPrefilter() {
			end := min(len(data), pos+scanWindow)
			hit = m.find(data[pos:end])
			if hit < 0 {
				if end == len(data) {
					return true
				}
				// Resume at the start of the window's last line: a hit may straddle the edge.
				next := bytes.LastIndexByte(data[pos:end], '\n')
				if next < 0 {
					// One line longer than the window: search the rest at once.
					hit = m.find(data[pos:])
					if hit < 0 {
						return true
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
		w.lineNo += uint32(bytes.Count(data[w.counted:lineStart], []byte{'\n'}))
		w.counted = lineStart
		w.addMatch(w.lineNo, line)
		if len(w.held) >= emitChunk && !w.flush() {
			return false
		}
	}
	return true
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
	var batch []Match
	if w.s.plan.spec.ReuseBatch {
		batch = slices.Grow(w.batch[:0], n)[:n]
		w.batch = batch
	} else {
		batch = make([]Match, n)
	}
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
