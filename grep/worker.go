package grep

import (
	"bytes"
	"unicode/utf8"
)

// emitChunk caps the matches held for one emit call, so a file where every line matches
// costs bounded memory.
const emitChunk = 1024

// scanWindow is how much of a buffer the prefilter scans between two polls of the stop flag.
const scanWindow = 256 << 10

// worker is one fanout goroutine with its reused buffers.
type worker struct {
	s        *search
	m        *matcher
	buf      []byte // file content, reused across files
	dirBuf   []byte // getdents buffer
	entries  []dirEntry
	produced []task
	matches  []Match
	spans    [][2]uint32
	stats    Stats
}

func newWorker(s *search) *worker {
	return &worker{s: s, m: s.plan.matcher, dirBuf: make([]byte, 32<<10)}
}

func (w *worker) run() {
	for {
		t, ok := w.s.next()
		if !ok {
			return
		}
		w.produced = w.produced[:0]
		if t.files == nil {
			w.walkDir(t.dir)
		} else {
			for _, name := range t.files {
				if w.s.stop.Load() {
					break
				}
				w.searchFile(t.dir, name)
			}
		}
		w.s.done(w.produced)
		clear(w.produced)
	}
}

// walkDir reads one directory and queues its subdirectories and batches of its files.
func (w *worker) walkDir(d *dirNode) {
	var err error
	w.entries, err = readDir(d.abs, w.dirBuf, w.entries[:0], &w.s.stop)
	if err != nil {
		return // unreadable directories are skipped, as ripgrep skips them (with a warning)
	}
	p := w.s.plan
	ign := d.ign
	if !p.spec.NoIgnore {
		var hasDot, hasGitignore, hasGit bool
		for _, e := range w.entries {
			switch e.name {
			case ".ignore":
				hasDot = e.kind == kindFile
			case ".gitignore":
				hasGitignore = e.kind == kindFile
			case ".git":
				hasGit = true
			}
		}
		strip := 0
		if d.rel != "" {
			strip = len(d.rel) + 1
		}
		ign = newLevel(ign, d.abs, hasDot, hasGitignore, hasGit, strip, "")
	}
	var batch []string
	for _, e := range w.entries {
		if e.kind != kindFile && e.kind != kindDir {
			continue // symlinks are not followed; devices and the like are not searched
		}
		isDir := e.kind == kindDir
		if isDir {
			if _, skip := p.skipDirs[e.name]; skip {
				continue
			}
		}
		rel := e.name
		if d.rel != "" {
			rel = d.rel + "/" + e.name
		}
		verdict := ign.match(rel, isDir)
		if verdict == ignoreIgnored || (verdict == ignoreNone && !p.spec.Hidden && e.name[0] == '.') {
			continue
		}
		if isDir {
			w.produced = append(w.produced, task{dir: &dirNode{abs: d.abs + "/" + e.name, rel: rel, ign: ign}})
			continue
		}
		if batch == nil {
			batch = make([]string, 0, fileBatch)
		}
		batch = append(batch, e.name)
		if len(batch) == fileBatch {
			w.produced = append(w.produced, task{dir: d, files: batch})
			batch = nil
		}
	}
	if len(batch) > 0 {
		w.produced = append(w.produced, task{dir: d, files: batch})
	}
}

// searchFile reads one file into the worker's buffer and reports its matches.
func (w *worker) searchFile(d *dirNode, name string) {
	data, buf, status := readFile(d.abs+"/"+name, w.buf, w.s.plan.spec.MaxFileBytes, &w.s.stop)
	w.buf = buf
	switch status {
	case fileStopped:
		return
	case fileSkipped:
		w.stats.FilesSkipped++
		return
	}
	w.stats.FilesSearched++
	w.stats.BytesSearched += int64(len(data))
	rel := name
	if d.rel != "" {
		rel = d.rel + "/" + name
	}
	emittedBefore := w.stats.Matches
	w.scan(data, rel)
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
func (w *worker) scan(data []byte, file string) {
	m := w.m
	stop := &w.s.stop
	var (
		pos     int    // search position; always at a line start
		counted int    // newlines before counted are in lineNo
		lineNo  uint32 = 1
	)
	for pos < len(data) {
		if stop.Load() {
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
			if m.re != nil {
				from = 0
			}
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
		w.addMatch(file, lineNo, line)
		if len(w.matches) >= emitChunk && !w.flush() {
			return
		}
	}
}

// addMatch records a matching line, cut to MaxMatchText; spans ending past the cut go.
func (w *worker) addMatch(file string, lineNo uint32, line []byte) {
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
	spans := make([][2]uint32, len(kept))
	copy(spans, kept)
	w.matches = append(w.matches, Match{
		File:       file,
		Line:       lineNo,
		Text:       string(line),
		MatchStart: spans[0][0],
		MatchEnd:   spans[0][1],
		Spans:      spans,
	})
}

// flush hands the held matches to emit, honouring MaxResults. It returns false once the
// search must stop.
func (w *worker) flush() bool {
	if len(w.matches) == 0 {
		return !w.s.stop.Load()
	}
	batch := w.matches
	w.matches = nil
	if limit := int64(w.s.plan.spec.MaxResults); limit > 0 {
		n := int64(len(batch))
		after := w.s.emitted.Add(n)
		if before := after - n; before >= limit {
			return false
		} else if after >= limit {
			batch = batch[:limit-before]
			w.s.halt()
		}
	}
	if w.s.failed.Load() {
		return false
	}
	w.stats.Matches += int64(len(batch))
	if err := w.s.emit(batch); err != nil {
		w.s.fail(err)
		return false
	}
	return !w.s.stop.Load()
}
