package diff

// A change that can slide (the lines it removes or adds repeat just above
// or below it) is placed as git places it: merged with neighbours it can
// reach, lined up with a change on the other side when it can be, and
// otherwise put where the indent heuristic scores best. This is xdiff's
// xdl_change_compact, whose choices `git diff` shows.

// group is a run of changed lines [start, end) of one side; empty between
// two unchanged lines.
type group struct{ start, end int }

func (s *side) groupInit() group {
	g := group{}
	for s.changed(g.end) {
		g.end++
	}
	return g
}

// next moves g to the side's next group; false at the end.
func (s *side) next(g *group) bool {
	if g.end == s.n() {
		return false
	}
	g.start = g.end + 1
	g.end = g.start
	for s.changed(g.end) {
		g.end++
	}
	return true
}

// prev moves g to the side's previous group; false at the start.
func (s *side) prev(g *group) bool {
	if g.start == 0 {
		return false
	}
	g.end = g.start - 1
	g.start = g.end
	for s.changed(g.start - 1) {
		g.start--
	}
	return true
}

// slideDown moves g one line down when the line below it equals its first;
// it then takes in any group it touches.
func (s *side) slideDown(g *group) bool {
	if g.end < s.n() && s.ha[g.start] == s.ha[g.end] {
		s.mark(g.start, false)
		g.start++
		s.mark(g.end, true)
		g.end++
		for s.changed(g.end) {
			g.end++
		}
		return true
	}
	return false
}

// slideUp is slideDown's mirror.
func (s *side) slideUp(g *group) bool {
	if g.start > 0 && s.ha[g.start-1] == s.ha[g.end-1] {
		g.start--
		s.mark(g.start, true)
		g.end--
		s.mark(g.end, false)
		for s.changed(g.start - 1) {
			g.start--
		}
		return true
	}
	return false
}

// maxSliding bounds how far the indent heuristic looks
// (INDENT_HEURISTIC_MAX_SLIDING).
const maxSliding = 100

func (d *differ) compact(s, o *side) {
	g, go_ := s.groupInit(), o.groupInit()
	for {
		if g.end != g.start {
			var groupsize, earliestEnd, endMatchingOther int
			for {
				groupsize = g.end - g.start
				endMatchingOther = -1
				for s.slideUp(&g) {
					o.prev(&go_)
				}
				earliestEnd = g.end
				if go_.end > go_.start {
					endMatchingOther = g.end
				}
				for s.slideDown(&g) {
					o.next(&go_)
					if go_.end > go_.start {
						endMatchingOther = g.end
					}
				}
				if groupsize == g.end-g.start {
					break
				}
			}
			switch {
			case g.end == earliestEnd:
			case endMatchingOther != -1:
				for go_.end == go_.start {
					s.slideUp(&g)
					o.prev(&go_)
				}
			case !d.o.NoIndentHeuristic:
				shift := max(earliestEnd, g.end-groupsize-1, g.end-maxSliding)
				bestShift := -1
				var best score
				for ; shift <= g.end; shift++ {
					var sc score
					sc.add(s.measure(shift))
					sc.add(s.measure(shift - groupsize))
					if bestShift == -1 || sc.cmp(best) <= 0 {
						best, bestShift = sc, shift
					}
				}
				for g.end > bestShift {
					s.slideUp(&g)
					o.prev(&go_)
				}
			}
		}
		if !s.next(&g) {
			break
		}
		o.next(&go_)
	}
}

const (
	maxIndent = 200
	maxBlanks = 20

	startOfFilePenalty             = 1
	endOfFilePenalty               = 21
	totalBlankWeight               = -30
	postBlankWeight                = 6
	relativeIndentPenalty          = -4
	relativeIndentWithBlankPenalty = 10
	relativeOutdentPenalty         = 24
	relativeOutdentWithBlank       = 17
	relativeDedentPenalty          = 23
	relativeDedentWithBlank        = 17
	indentWeight                   = 60
)

// indent is a line's indentation, a tab reaching the next multiple of 8;
// -1 for a blank line.
func indent(l string) int {
	n := 0
	for i := 0; i < len(l); i++ {
		switch c := l[i]; c {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		case '\n', '\r', '\f', '\v':
		default:
			return n
		}
		if n >= maxIndent {
			return maxIndent
		}
	}
	return -1
}

// split describes the place above line i of a side as a boundary of a
// change.
type split struct {
	eof                   bool
	indent                int
	preBlank, preIndent   int
	postBlank, postIndent int
}

func (s *side) measure(at int) split {
	var m split
	if at >= s.n() {
		m.eof, m.indent = true, -1
	} else {
		m.indent = indent(s.lines[at])
	}
	m.preIndent = -1
	for i := at - 1; i >= 0; i-- {
		m.preIndent = indent(s.lines[i])
		if m.preIndent != -1 {
			break
		}
		m.preBlank++
		if m.preBlank == maxBlanks {
			m.preIndent = 0
			break
		}
	}
	m.postIndent = -1
	for i := at + 1; i < s.n(); i++ {
		m.postIndent = indent(s.lines[i])
		if m.postIndent != -1 {
			break
		}
		m.postBlank++
		if m.postBlank == maxBlanks {
			m.postIndent = 0
			break
		}
	}
	return m
}

type score struct{ effectiveIndent, penalty int }

func (sc *score) add(m split) {
	if m.preIndent == -1 && m.preBlank == 0 {
		sc.penalty += startOfFilePenalty
	}
	if m.eof {
		sc.penalty += endOfFilePenalty
	}
	postBlank := 0
	if m.indent == -1 {
		postBlank = 1 + m.postBlank
	}
	totalBlank := m.preBlank + postBlank
	sc.penalty += totalBlankWeight * totalBlank
	sc.penalty += postBlankWeight * postBlank
	ind := m.indent
	if ind == -1 {
		ind = m.postIndent
	}
	anyBlanks := totalBlank != 0
	sc.effectiveIndent += ind
	switch {
	case ind == -1, m.preIndent == -1, ind == m.preIndent:
	case ind > m.preIndent:
		sc.penalty += pick(anyBlanks, relativeIndentWithBlankPenalty, relativeIndentPenalty)
	case m.postIndent != -1 && m.postIndent > ind:
		sc.penalty += pick(anyBlanks, relativeOutdentWithBlank, relativeOutdentPenalty)
	default:
		sc.penalty += pick(anyBlanks, relativeDedentWithBlank, relativeDedentPenalty)
	}
}

func pick(c bool, a, b int) int {
	if c {
		return a
	}
	return b
}

func (sc score) cmp(o score) int {
	c := 0
	switch {
	case sc.effectiveIndent > o.effectiveIndent:
		c = 1
	case sc.effectiveIndent < o.effectiveIndent:
		c = -1
	}
	return indentWeight*c + (sc.penalty - o.penalty)
}
