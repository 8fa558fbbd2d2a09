package grep

import (
	"regexp"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// matcher finds matching lines in a buffer. It has two parts: a prefilter that finds
// candidate positions in the whole buffer fast (a literal every match must contain), and a
// line verifier that reports the exact spans in one line. With no prefilter every line is a
// candidate.
type matcher struct {
	// pre is the prefilter, or nil (every line is a candidate).
	pre *finder
	// verifier: re, or (when re is nil) the prefilter literal itself is the whole pattern.
	re *regexp.Regexp
	// anchored, when set, is re anchored at the start of its input: the prefilter literal
	// begins every match, so matches are tried only at its occurrences, with one anchored
	// attempt each: by simple when re has its shape, else by anchored.
	anchored *regexp.Regexp
	simple   *simpleRe
}

// compileMatcher builds the matcher for a non-empty pattern.
func compileMatcher(pattern string, isRegex, ignoreCase bool) (*matcher, error) {
	if !isRegex {
		if !ignoreCase {
			return &matcher{pre: newFinder([]byte(pattern), false)}, nil
		}
		if foldSafeString(pattern) {
			return &matcher{pre: newFinder([]byte(pattern), true)}, nil
		}
		pattern = regexp.QuoteMeta(pattern)
	}
	if ignoreCase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	m := &matcher{re: re}
	// The parse cannot fail: regexp.Compile accepted the same text with the same flags.
	if tree, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		tree = tree.Simplify()
		best, ok := bestLiteral(requiredLiterals(tree, nil))
		if pre, isPre := prefixLiteral(tree); isPre && len(pre.text) >= len(best.text) {
			best, ok = pre, true
			// The anchored form cannot fail to compile when the pattern did.
			m.anchored, _ = regexp.Compile(`^(?:` + pattern + `)`)
			m.simple = compileSimple(tree)
		}
		if ok {
			m.pre = newFinder(best.text, best.fold)
		}
	}
	return m, nil
}

// find returns the first candidate position in h, or -1. Only valid when hasPrefilter.
func (m *matcher) find(h []byte) int { return m.pre.index(h) }

func (m *matcher) hasPrefilter() bool { return m.pre != nil }

// spans appends to dst every match in line (non-overlapping, leftmost first). hit is the
// offset in line of the prefilter's first hit (0 without a prefilter): no match starts
// before it, and for a literal pattern it is the first match.
func (m *matcher) spans(line []byte, hit int, dst [][2]uint32) [][2]uint32 {
	if m.anchored != nil {
		for from := hit; from < len(line); {
			end := -1
			if m.simple != nil {
				end = m.simple.matchAt(line[from:])
			} else if loc := m.anchored.FindIndex(line[from:]); loc != nil {
				end = loc[1]
			}
			if end >= 0 {
				dst = append(dst, [2]uint32{uint32(from), uint32(from + end)})
				from += max(end, 1)
			} else {
				from++
			}
			next := m.find(line[from:])
			if next < 0 {
				break
			}
			from += next
		}
		return dst
	}
	if m.re != nil {
		// Every match holds an occurrence of the prefilter literal, and non-overlapping
		// matches hold distinct ones: a line with a single occurrence has at most one match,
		// found by one search instead of FindAllIndex's two.
		if m.hasPrefilter() && m.find(line[min(hit+1, len(line)):]) < 0 {
			if loc := m.re.FindIndex(line); loc != nil {
				dst = append(dst, [2]uint32{uint32(loc[0]), uint32(loc[1])})
			}
			return dst
		}
		for _, loc := range m.re.FindAllIndex(line, -1) {
			dst = append(dst, [2]uint32{uint32(loc[0]), uint32(loc[1])})
		}
		return dst
	}
	// The prefilter's hit is the first occurrence: it was checked whole. One that runs past
	// the line (into a stripped CR) leaves no room for a later one.
	n := len(m.pre.needle)
	if hit+n > len(line) {
		return dst
	}
	dst = append(dst, [2]uint32{uint32(hit), uint32(hit + n)})
	for from := hit + n; from <= len(line)-n; {
		i := m.pre.index(line[from:])
		if i < 0 {
			break
		}
		from += i
		dst = append(dst, [2]uint32{uint32(from), uint32(from + n)})
		from += n
	}
	return dst
}

// literalPiece is a run of bytes every match must contain, compared exactly or with ASCII
// case folding.
type literalPiece struct {
	text []byte
	fold bool
}

// requiredLiterals appends literal runs that any match of re must contain.
func requiredLiterals(re *syntax.Regexp, dst []literalPiece) []literalPiece {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			return append(dst, literalPiece{text: []byte(string(re.Rune))})
		}
		return appendFoldSegments(re.Rune, dst)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0], dst)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0], dst)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			dst = requiredLiterals(sub, dst)
		}
	}
	return dst
}

// prefixLiteral returns the literal every match of re starts with, if any.
func prefixLiteral(re *syntax.Regexp) (literalPiece, bool) {
	for re.Op == syntax.OpCapture || (re.Op == syntax.OpConcat && len(re.Sub) > 0) {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpLiteral {
		return literalPiece{}, false
	}
	if re.Flags&syntax.FoldCase == 0 {
		return literalPiece{text: []byte(string(re.Rune))}, true
	}
	if len(re.Rune) == 0 || !foldSafe(re.Rune[0]) {
		return literalPiece{}, false
	}
	segs := appendFoldSegments(re.Rune, nil)
	return segs[0], true
}

// appendFoldSegments splits a case-folded literal into the runs that an ASCII case-insensitive
// byte comparison matches exactly (see foldSafe).
func appendFoldSegments(runes []rune, dst []literalPiece) []literalPiece {
	var cur []byte
	for _, r := range runes {
		if foldSafe(r) {
			cur = utf8.AppendRune(cur, r)
			continue
		}
		if len(cur) > 0 {
			dst = append(dst, literalPiece{text: cur, fold: true})
			cur = nil
		}
	}
	if len(cur) > 0 {
		dst = append(dst, literalPiece{text: cur, fold: true})
	}
	return dst
}

// bestLiteral picks the longest piece, preferring exact comparison on a tie.
func bestLiteral(pieces []literalPiece) (literalPiece, bool) {
	var best literalPiece
	for _, p := range pieces {
		if len(p.text) > len(best.text) || (len(p.text) == len(best.text) && best.fold && !p.fold) {
			best = p
		}
	}
	return best, len(best.text) > 0
}

// foldSafe reports whether every rune r folds to under Unicode simple case folding is found
// by an ASCII case-insensitive byte comparison: r has no other case, or all its cases are
// ASCII. 'k' (KELVIN SIGN) and 's' (LONG S) are not: they fold to non-ASCII runes.
func foldSafe(r rune) bool {
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf || r >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func foldSafeString(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !foldSafe(r) {
			return false
		}
	}
	return true
}
