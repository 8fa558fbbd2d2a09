package walk

import "strings"

// A glob is a compiled gitignore pattern. Like git's wildmatch and ripgrep's globset, it
// works on bytes: '?' and a class match one byte, a class's members are bytes (a multi-byte
// character in a class adds each of its bytes), and a star any bytes but '/'.
//
// Matching costs O(len(pattern) * len(path) * (slashes+1)) at worst, with no allocation: a
// backtracking matcher that retries every star at every position is exponential in the
// number of stars (a `*a*a*a*a*a*a*a*a*a*a*b` line against a 41-byte name took minutes), so
// the matcher uses two facts of the syntax instead.
//
//   - '*', '?' and classes never match '/', so every '/' of the path is matched by a '/' of
//     the pattern. A run of pattern between two '**/' segments (a group) therefore spans a
//     number of path segments fixed by its own slashes, and the earliest place where a group
//     matches is always the best one: a later '**' can skip whatever an earlier choice
//     leaves.
//   - Inside a group, a star that fails to let the rest match at every later position of its
//     segment cannot be helped by moving an earlier star: the later star could already reach
//     every position the move would give it. Only the last star is ever retried, and its
//     start only moves forward (the classic greedy wildcard match, O(len(group) * len(span))).
type glob struct {
	kind   globKind
	lit    string      // the literal text of globLiteral, globSuffix and globPrefix
	groups []globGroup // globGeneral: runs of tokens separated by '**/' segments
	tail   bool        // globGeneral: a final '**' segment accepts whatever follows the last group
}

type globKind uint8

const (
	globGeneral globKind = iota
	globLiteral          // no wildcard: equality
	globSuffix           // '*' then a literal: the literal ends a path with no '/' before it
	globPrefix           // a literal then '*': the literal starts a path with no '/' after it
)

// globGroup is a run of tokens holding no '**' segment.
type globGroup struct {
	toks    []globTok
	slashes int // '/' tokens: the number of path separators the group spans
}

type globTok struct {
	kind  tokKind
	b     byte       // tokByte
	class *[256]bool // tokClass: the bytes it matches ('/' never)
}

type tokKind uint8

const (
	tokByte  tokKind = iota // one literal byte
	tokAny                  // '?': one byte other than '/'
	tokClass                // "[...]": one byte other than '/', in (or not in) the class
	tokStar                 // '*': any bytes other than '/'
)

// compileGlob compiles gitignore glob syntax: '*' and '?' and classes never match '/', a run
// of stars is one star, a '**' that is a whole segment (at either end or between slashes)
// spans any number of directories ('**/' zero or more leading segments, a final '/**'
// everything below), '\' escapes the next byte (a trailing one is literal), and an
// unterminated class is a literal '['.
func compileGlob(p string) glob {
	var g glob
	var cur globGroup
	segStart := true // a '**' is special only where a segment starts: the start or after '/'
	for i := 0; i < len(p); {
		c := p[i]
		atSeg := segStart
		segStart = c == '/' // an escaped '/' matches a '/' but does not start a '**' segment
		switch c {
		case '*':
			if atSeg && strings.HasPrefix(p[i:], "**") && (i+2 == len(p) || p[i+2] == '/') {
				if i+2 == len(p) {
					g.tail = true
					i += 2
					continue
				}
				g.groups = append(g.groups, cur)
				cur = globGroup{}
				i += 3
				segStart = true
				continue
			}
			for i < len(p) && p[i] == '*' {
				i++
			}
			cur.toks = append(cur.toks, globTok{kind: tokStar})
		case '?':
			cur.toks = append(cur.toks, globTok{kind: tokAny})
			i++
		case '[':
			if set, n, valid := parseClass(p[i:]); valid {
				cur.toks = append(cur.toks, globTok{kind: tokClass, class: set})
				i += n
			} else {
				cur.toks = append(cur.toks, globTok{kind: tokByte, b: '['})
				i++
			}
		case '\\':
			if i+1 < len(p) {
				i++
			}
			cur.addByte(p[i])
			i++
		default:
			cur.addByte(c)
			i++
		}
	}
	g.groups = append(g.groups, cur)
	g.simplify()
	return g
}

func (g *globGroup) addByte(b byte) {
	g.toks = append(g.toks, globTok{kind: tokByte, b: b})
	if b == '/' {
		g.slashes++
	}
}

// simplify picks a direct comparison for the shapes most ignore lines have: a name, "*.ext",
// "prefix*".
func (g *glob) simplify() {
	if g.tail || len(g.groups) != 1 {
		return
	}
	toks := g.groups[0].toks
	star := -1
	var lit []byte
	for i, t := range toks {
		switch t.kind {
		case tokByte:
			lit = append(lit, t.b)
		case tokStar:
			if star >= 0 {
				return
			}
			star = i
		default:
			return
		}
	}
	switch {
	case star < 0:
		g.kind = globLiteral
	case star == 0:
		g.kind = globSuffix
	case star == len(toks)-1:
		g.kind = globPrefix
	default:
		return
	}
	g.lit = string(lit)
	g.groups = nil
}

// match reports whether the glob matches the whole of t, a '/'-separated path.
func (g *glob) match(t string) bool {
	ok, _ := g.matchSteps(t)
	return ok
}

// matchSteps is match that also counts its basic steps, so that tests can bound the work.
func (g *glob) matchSteps(t string) (bool, int) {
	switch g.kind {
	case globLiteral:
		return t == g.lit, 1
	case globSuffix:
		n := len(t) - len(g.lit)
		return n >= 0 && t[n:] == g.lit && strings.IndexByte(t[:n], '/') < 0, 1
	case globPrefix:
		return strings.HasPrefix(t, g.lit) && strings.IndexByte(t[len(g.lit):], '/') < 0, 1
	}
	steps := 0
	pos := 0
	last := len(g.groups) - 1
	for i := range g.groups {
		grp := &g.groups[i]
		if i == last && !g.tail {
			// The last group ends the path: its slashes fix where it starts.
			q := pos
			if i > 0 {
				n := strings.Count(t[pos:], "/")
				if n < grp.slashes {
					return false, steps
				}
				q = afterSlashes(t, pos, n-grp.slashes)
			}
			ok := matchSpan(grp.toks, t[q:], &steps)
			return ok, steps
		}
		// A group followed by '**' ends with a '/' (the '**' starts a segment), so from a
		// start q it spans exactly up to its slashes-th '/'. The first group starts at 0;
		// the others may start at any segment start from pos on: take the earliest.
		for q := pos; ; {
			end := afterSlashes(t, q, grp.slashes)
			if end < 0 {
				return false, steps
			}
			if matchSpan(grp.toks, t[q:end], &steps) {
				pos = end
				break
			}
			next := strings.IndexByte(t[q:], '/')
			if i == 0 || next < 0 {
				return false, steps
			}
			q += next + 1
		}
	}
	return true, steps // the final '**' takes the rest
}

// afterSlashes returns the index just after the n-th '/' of t from pos (pos itself for n ==
// 0), or -1 if t has fewer.
func afterSlashes(t string, pos, n int) int {
	for ; n > 0; n-- {
		i := strings.IndexByte(t[pos:], '/')
		if i < 0 {
			return -1
		}
		pos += i + 1
	}
	return pos
}

// matchSpan reports whether toks (no '**' among them) match the whole of t. Only the latest
// star is retried, one byte further each time; its start never moves back, so the loop runs
// at most len(toks)+1 steps per byte of t.
func matchSpan(toks []globTok, t string, steps *int) bool {
	pi, ti := 0, 0
	star, starT := -1, 0
	for {
		*steps++
		if pi < len(toks) {
			tk := &toks[pi]
			if tk.kind == tokStar {
				star, starT = pi, ti
				pi++
				continue
			}
			if ti < len(t) && tk.matches(t[ti]) {
				pi++
				ti++
				continue
			}
		} else if ti == len(t) {
			return true
		}
		if star < 0 || starT == len(t) || t[starT] == '/' {
			return false
		}
		starT++
		pi, ti = star+1, starT
	}
}

// matches reports whether the token (not a star) matches byte c.
func (tk *globTok) matches(c byte) bool {
	switch tk.kind {
	case tokByte:
		return c == tk.b
	case tokAny:
		return c != '/'
	default: // tokClass
		return tk.class[c]
	}
}

// parseClass compiles the class at the head of p ("[...]"): a '!' or '^' first negates, a ']'
// first is a member, lo-hi is a byte range (an inverted one holds nothing), '\' escapes the
// next byte. It returns the bytes the class matches, never '/', the class's length in p, and
// false for valid when the class is unterminated (then the '[' is a literal).
func parseClass(p string) (set *[256]bool, n int, valid bool) {
	var members [256]bool
	i := 1
	negate := i < len(p) && (p[i] == '!' || p[i] == '^')
	if negate {
		i++
	}
	member := func() byte {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		c := p[i]
		i++
		return c
	}
	for first := true; ; first = false {
		if i >= len(p) {
			return nil, 0, false
		}
		if p[i] == ']' && !first {
			break
		}
		lo := member()
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			i++
			hi = member()
		}
		for c := int(lo); c <= int(hi); c++ {
			members[c] = true
		}
	}
	set = new([256]bool)
	for c := range set {
		set[c] = members[c] != negate && c != '/'
	}
	return set, i + 1, true
}
