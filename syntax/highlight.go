package syntax

import (
	"bytes"
	"cmp"
	"embed"
	"errors"
	"fmt"
	"regexp"
	"slices"

	sitter "github.com/smacker/go-tree-sitter"
)

//go:embed queries/*.scm
var queryFiles embed.FS

// ErrInvalidRange is returned (wrapped) by Highlights when startRow > endRow.
var ErrInvalidRange = errors.New("syntax: invalid row range")

// Span is one highlight capture: the node's full extent (it may reach outside
// the requested rows) and the capture name, e.g. "keyword" or
// "function.call".
type Span struct {
	StartRow, StartCol, EndRow, EndCol uint32
	StartByte, EndByte                 uint32
	Group                              string
}

// compiledQuery is a highlights query with its predicates prepared once, so
// running it allocates no regexps. It is read-only after compilation and
// shared by all goroutines; each run uses its own cursor.
type compiledQuery struct {
	q          *sitter.Query
	captures   []string
	predicates [][]predicate // by pattern index
}

type predicateKind int

const (
	predEq predicateKind = iota
	predMatch
	predAnyOf
)

type predicate struct {
	kind    predicateKind
	negate  bool
	capture uint32
	other   int64 // capture id for #eq? between two captures, else -1
	text    []byte
	values  [][]byte
	re      *regexp.Regexp
}

// highlightsQuery compiles lang's highlights query on first use.
func (l *Language) highlightsQuery() (*compiledQuery, error) {
	l.highlightsOnce.Do(func() {
		src, err := querySource(l.name)
		if err != nil {
			l.highlightsErr = fmt.Errorf("syntax: no highlights query for %s: %w", l.name, err)
			return
		}
		l.highlights, l.highlightsErr = compileQuery(src, l.ts)
		if l.highlightsErr != nil {
			l.highlightsErr = fmt.Errorf("syntax: highlights query for %s: %w", l.name, l.highlightsErr)
		}
	})
	return l.highlights, l.highlightsErr
}

func compileQuery(src []byte, lang *sitter.Language) (*compiledQuery, error) {
	q, err := sitter.NewQuery(src, lang)
	if err != nil {
		return nil, err
	}
	cq := &compiledQuery{q: q}
	for i := uint32(0); i < q.CaptureCount(); i++ {
		cq.captures = append(cq.captures, q.CaptureNameForId(i))
	}
	cq.predicates = make([][]predicate, q.PatternCount())
	for i := range cq.predicates {
		for _, steps := range q.PredicatesForPattern(uint32(i)) {
			p, ok, err := compilePredicate(q, steps)
			if err != nil {
				return nil, fmt.Errorf("pattern %d: %w", i, err)
			}
			if ok {
				cq.predicates[i] = append(cq.predicates[i], p)
			}
		}
	}
	return cq, nil
}

// compilePredicate understands eq?, match? and any-of? (and their not-
// forms). Other predicates (#set!, ...) carry no filtering meaning for
// highlighting and are skipped.
func compilePredicate(q *sitter.Query, steps []sitter.QueryPredicateStep) (predicate, bool, error) {
	// The last step is the Done marker.
	if len(steps) > 0 && steps[len(steps)-1].Type == sitter.QueryPredicateStepTypeDone {
		steps = steps[:len(steps)-1]
	}
	if len(steps) < 2 || steps[0].Type != sitter.QueryPredicateStepTypeString {
		return predicate{}, false, nil
	}
	op := q.StringValueForId(steps[0].ValueId)
	p := predicate{other: -1}
	switch op {
	case "eq?", "not-eq?":
		p.kind, p.negate = predEq, op == "not-eq?"
	case "match?", "not-match?":
		p.kind, p.negate = predMatch, op == "not-match?"
	case "any-of?", "not-any-of?":
		p.kind, p.negate = predAnyOf, op == "not-any-of?"
	default:
		return predicate{}, false, nil
	}
	if steps[1].Type != sitter.QueryPredicateStepTypeCapture {
		return predicate{}, false, fmt.Errorf("#%s: first argument must be a capture", op)
	}
	p.capture = steps[1].ValueId
	args := steps[2:]
	switch p.kind {
	case predEq, predMatch:
		if len(args) != 1 {
			return predicate{}, false, fmt.Errorf("#%s takes 2 arguments, got %d", op, len(args)+1)
		}
		if args[0].Type == sitter.QueryPredicateStepTypeCapture {
			if p.kind == predMatch {
				return predicate{}, false, fmt.Errorf("#%s: second argument must be a string", op)
			}
			p.other = int64(args[0].ValueId)
			break
		}
		p.text = []byte(q.StringValueForId(args[0].ValueId))
		if p.kind == predMatch {
			re, err := regexp.Compile(string(p.text))
			if err != nil {
				return predicate{}, false, fmt.Errorf("#%s: %w", op, err)
			}
			p.re = re
		}
	case predAnyOf:
		for _, a := range args {
			if a.Type != sitter.QueryPredicateStepTypeString {
				return predicate{}, false, fmt.Errorf("#%s: arguments after the capture must be strings", op)
			}
			p.values = append(p.values, []byte(q.StringValueForId(a.ValueId)))
		}
	}
	return p, true, nil
}

// accepts reports whether every predicate of the match's pattern holds.
func (cq *compiledQuery) accepts(m *sitter.QueryMatch, src []byte) bool {
	for _, p := range cq.predicates[m.PatternIndex] {
		if !p.holds(m, src) {
			return false
		}
	}
	return true
}

func (p *predicate) holds(m *sitter.QueryMatch, src []byte) bool {
	text := func(id uint32) ([]byte, bool) {
		for _, c := range m.Captures {
			if c.Index == id {
				return src[c.Node.StartByte():c.Node.EndByte()], true
			}
		}
		return nil, false
	}
	subject, ok := text(p.capture)
	if !ok {
		return true // an optional capture that did not match constrains nothing
	}
	var r bool
	switch p.kind {
	case predEq:
		want := p.text
		if p.other >= 0 {
			if want, ok = text(uint32(p.other)); !ok {
				return true
			}
		}
		r = bytes.Equal(subject, want)
	case predMatch:
		r = p.re.Match(subject)
	case predAnyOf:
		r = slices.ContainsFunc(p.values, func(v []byte) bool { return bytes.Equal(v, subject) })
	}
	return r != p.negate
}

// Highlights returns the highlight captures of nodes that intersect rows
// [startRow, endRow), from the root tree and every injected tree, sorted by
// start byte with enclosing spans before the spans inside them (so painting
// them in order leaves the innermost group visible; at equal ranges an
// injected tree's span comes after the host's). A node captured by several
// patterns is reported once, with the first pattern's group. The result of
// the previous call is kept, so asking for the same rows again (a redraw
// with no edit) costs a copy; the returned slice is the caller's.
func (t *Tree) Highlights(startRow, endRow uint32) ([]Span, error) {
	if t.closed {
		return nil, fmt.Errorf("syntax: highlights: %w", ErrClosedTree)
	}
	if startRow > endRow {
		return nil, fmt.Errorf("%w: [%d, %d)", ErrInvalidRange, startRow, endRow)
	}
	if startRow == endRow {
		return nil, nil
	}
	if l := t.last; l != nil && l.startRow == startRow && l.endRow == endRow {
		return slices.Clone(l.spans), nil
	}
	if t.lines == nil {
		t.lines = newLineIndex(t.source)
	}
	w := window{startRow: startRow, endRow: endRow, lines: t.lines}
	if err := t.highlightsOf(&w, 0); err != nil {
		return nil, err
	}
	for i, inj := range t.injections {
		if inj.Tree.startRow >= endRow || inj.Tree.endRow < startRow {
			continue
		}
		if err := inj.Tree.highlightsOf(&w, uint32(i+1)); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(w.found, func(a, b found) int {
		return cmp.Or(
			cmp.Compare(a.StartByte, b.StartByte),
			cmp.Compare(b.EndByte, a.EndByte),
			cmp.Compare(a.tree, b.tree),
			cmp.Compare(a.pattern, b.pattern),
		)
	})
	spans := make([]Span, 0, len(w.found))
	for i, f := range w.found {
		if i > 0 {
			p := w.found[i-1]
			if p.StartByte == f.StartByte && p.EndByte == f.EndByte && p.tree == f.tree {
				continue // a later pattern capturing the same node
			}
		}
		spans = append(spans, f.Span)
	}
	t.last = &cachedHighlights{startRow: startRow, endRow: endRow, spans: spans}
	return slices.Clone(spans), nil
}

// window collects the captures of one Highlights call.
type window struct {
	startRow, endRow uint32
	lines            lineIndex
	found            []found
}

// found is a capture with what decides between duplicates: the tree it came
// from (0 = root, i+1 = injection i) and the pattern that matched.
type found struct {
	Span
	tree    uint32
	pattern uint16
}

// highlightsOf adds t's own captures (not its injections') to w.
func (t *Tree) highlightsOf(w *window, ord uint32) error {
	cq, err := t.lang.highlightsQuery()
	if err != nil {
		return err
	}
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.SetPointRange(sitter.Point{Row: w.startRow}, sitter.Point{Row: w.endRow})
	qc.Exec(cq.q, t.ts.RootNode())
	// Matches rather than captures: next_capture orders captures across
	// pending matches, which costs more than sorting the result once.
	for {
		m, ok := qc.NextMatch()
		if !ok {
			return nil
		}
		if !cq.accepts(m, t.source) {
			continue
		}
		for _, c := range m.Captures {
			start, end := c.Node.StartByte(), c.Node.EndByte()
			if t.lang.trimSpace {
				start = skipSpace(t.source, start, end)
			}
			// Rows come from the line index rather than the node: two
			// fewer calls into C per capture.
			sp, ep := w.lines.point(start), w.lines.point(end)
			// The cursor's range test is inclusive at the edges; a node
			// that ends exactly where the window starts shows nothing in it.
			if sp.Row >= w.endRow || ep.Row < w.startRow ||
				(ep.Row == w.startRow && ep.Column == 0 && sp.Row < w.startRow) {
				continue
			}
			w.found = append(w.found, found{
				Span: Span{
					StartRow: sp.Row, StartCol: sp.Column, EndRow: ep.Row, EndCol: ep.Column,
					StartByte: start, EndByte: end, Group: cq.captures[c.Index],
				},
				tree: ord, pattern: m.PatternIndex,
			})
		}
	}
}

// skipSpace returns the first offset in [start, end) that is not a blank or
// a line break, or end.
func skipSpace(src []byte, start, end uint32) uint32 {
	for start < end {
		switch src[start] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			start++
		default:
			return start
		}
	}
	return start
}

// lineIndex holds the byte offset at which each line starts.
type lineIndex []uint32

func newLineIndex(src []byte) lineIndex {
	li := lineIndex{0}
	for off := 0; ; {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return li
		}
		off += i + 1
		li = append(li, uint32(off))
	}
}

// point converts a byte offset to a row and byte column, as tree-sitter
// counts them.
func (li lineIndex) point(off uint32) Point {
	row, found := slices.BinarySearch(li, off)
	if !found {
		row--
	}
	return Point{Row: uint32(row), Column: off - li[row]}
}

// querySource reads queries/NAME.scm. A first line "; inherits: OTHER"
// appends OTHER's query (itself possibly inheriting) after the file's own
// patterns, so a grammar that extends another (tsx extends typescript)
// lists only what it adds. Since the first pattern to capture a node wins,
// the file's own patterns take precedence: a JSX tag name is a tag, not the
// plain identifier TypeScript's patterns would make it.
func querySource(name string) ([]byte, error) {
	src, err := queryFiles.ReadFile("queries/" + name + ".scm")
	if err != nil {
		return nil, err
	}
	first, _, _ := bytes.Cut(src, []byte("\n"))
	base, ok := bytes.CutPrefix(bytes.TrimSpace(first), []byte("; inherits:"))
	if !ok {
		return src, nil
	}
	parent, err := querySource(string(bytes.TrimSpace(base)))
	if err != nil {
		return nil, fmt.Errorf("%s inherits: %w", name, err)
	}
	return append(append(src, '\n'), parent...), nil
}
