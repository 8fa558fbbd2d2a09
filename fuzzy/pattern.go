package fuzzy

import (
	"bytes"
	"strings"
)

// termKind is how one term of a query matches.
type termKind uint8

const (
	termFuzzy         termKind = iota // foo
	termExact                         // 'foo
	termExactBoundary                 // 'foo'
	termPrefix                        // ^foo
	termSuffix                        // foo$
	termEqual                         // ^foo$
)

type term struct {
	kind termKind
	inv  bool   // !foo: the candidate must not match
	text []byte // lower case unless cs
	cs   bool   // smart case: the term holds an upper-case letter
	// norm: accented Latin letters of a text match their ASCII letter (the term holds
	// none itself).
	norm bool
}

// Pattern is a parsed query: terms separated by spaces that must all match, each term
// possibly an alternation of terms joined by " | ". The zero Pattern matches everything.
//
// The syntax is fzf's extended search: `foo` fuzzy, `'foo` exact, `'foo'` exact at word
// boundaries, `^foo` prefix, `foo$` suffix, `^foo$` the whole text, `!foo` must not contain
// (`!^foo`, `!foo$`, `!'foo` for inverse prefix, suffix and fuzzy), `a | b` either, and `\ `
// a literal space. A term is case-sensitive exactly when it holds an upper-case letter
// (smart case). Syntax that has nothing left to match (a lone `'`, `^` or `!`) is ignored,
// so every string is a valid query.
type Pattern struct {
	query string
	sets  [][]term
	// mask holds the bytes every match must contain (case folded), from the sets that are
	// a single positive term; it rejects most candidates before any scoring.
	mask uint64
	// runes are the distinct non-ASCII characters of the terms, by lower case: a text's
	// character matches by its index here (see recode).
	runes []rune
}

// ParsePattern parses query; it never fails (see Pattern).
func ParsePattern(query string) Pattern {
	p := Pattern{query: query}
	var set []term
	afterBar := false
	for _, tok := range splitTerms(query) {
		if len(set) > 0 && !afterBar && tok == "|" {
			afterBar = true
			continue
		}
		wasBar := afterBar
		afterBar = false
		t, ok := parseTerm(tok, &p.runes)
		if !ok {
			continue
		}
		if len(set) > 0 && !wasBar {
			p.sets = append(p.sets, set)
			set = nil
		}
		set = append(set, t)
	}
	if len(set) > 0 {
		p.sets = append(p.sets, set)
	}
	for _, set := range p.sets {
		if len(set) == 1 && !set[0].inv {
			p.mask |= asciiMask(set[0].text)
		}
	}
	return p
}

// splitTerms splits on unescaped spaces; `\ ` stands for a space inside a term.
func splitTerms(q string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\\' && i+1 < len(q) && q[i+1] == ' ':
			cur.WriteByte(' ')
			i++
		case c == ' ':
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func parseTerm(tok string, runes *[]rune) (term, bool) {
	t := term{kind: termFuzzy}
	lower := strings.ToLower(tok)
	t.cs = lower != tok
	s := tok
	if !t.cs {
		s = lower
	}
	if strings.HasPrefix(s, "!") {
		t.inv = true
		t.kind = termExact
		s = s[1:]
	}
	if s != "$" && strings.HasSuffix(s, "$") {
		t.kind = termSuffix
		s = s[:len(s)-1]
	}
	switch {
	case len(s) > 2 && strings.HasPrefix(s, "'") && strings.HasSuffix(s, "'"):
		t.kind = termExactBoundary
		s = s[1 : len(s)-1]
	case strings.HasPrefix(s, "'"):
		// A quote flips exactness: it makes a positive term exact and an inverse one fuzzy.
		if t.inv {
			t.kind = termFuzzy
		} else {
			t.kind = termExact
		}
		s = s[1:]
	case strings.HasPrefix(s, "^"):
		if t.kind == termSuffix {
			t.kind = termEqual
		} else {
			t.kind = termPrefix
		}
		s = s[1:]
	}
	if s == "" {
		return term{}, false
	}
	t.norm = normalizes(lower)
	t.text = encodeTerm(s, t.norm, runes)
	return t, true
}

// weight is the number of query bytes scored against each candidate, at least 1.
func (p Pattern) weight() int {
	w := 1
	for _, set := range p.sets {
		for _, t := range set {
			w += len(t.text)
		}
	}
	return w
}

// String returns the query the pattern was parsed from.
func (p Pattern) String() string { return p.query }

// Empty reports whether the pattern matches every candidate with score 0.
func (p Pattern) Empty() bool { return len(p.sets) == 0 }

// Narrows reports whether every candidate that matches p also matches prev, so a search for
// p may look only at prev's matches. It holds when each group of prev is implied by some
// group of p: typing more characters into the last term, adding a term, or turning a
// fuzzy term exact all narrow; deleting characters, adding an alternative or lengthening
// an inverse term do not. A pattern with non-ASCII characters is never said to narrow.
func (p Pattern) Narrows(prev Pattern) bool {
	if len(p.runes) > 0 || len(prev.runes) > 0 {
		// Their codes number each pattern's characters differently.
		return false
	}
	for _, old := range prev.sets {
		found := false
		for _, cur := range p.sets {
			if setImplies(cur, old) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// setImplies reports whether a match of alternation cur is always a match of alternation
// old: each alternative of cur must imply some alternative of old.
func setImplies(cur, old []term) bool {
	for _, c := range cur {
		ok := false
		for _, o := range old {
			if termImplies(c, o) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func termImplies(c, o term) bool {
	if c.inv || o.inv {
		return c.inv == o.inv && c.kind == o.kind && c.cs == o.cs && bytes.Equal(c.text, o.text)
	}
	if o.cs && !c.cs {
		return false
	}
	ct := c.text
	if !o.cs && c.cs {
		ct = bytes.ToLower(ct)
	}
	switch o.kind {
	case termFuzzy:
		return isSubsequence(o.text, ct)
	case termExact:
		return c.kind != termFuzzy && bytes.Contains(ct, o.text)
	case termPrefix:
		return (c.kind == termPrefix || c.kind == termEqual) && bytes.HasPrefix(ct, o.text)
	case termSuffix:
		return (c.kind == termSuffix || c.kind == termEqual) && bytes.HasSuffix(ct, o.text)
	default:
		return c.kind == o.kind && bytes.Equal(ct, o.text)
	}
}

func isSubsequence(needle, hay []byte) bool {
	k := 0
	for _, b := range hay {
		if k < len(needle) && b == needle[k] {
			k++
		}
	}
	return k == len(needle)
}

// maskBit maps a byte, case folded, to one of 64 presence bits: letters and digits get
// their own, other bytes share.
func maskBit(b byte) uint64 {
	switch {
	case b >= 'a' && b <= 'z':
		return 1 << (b - 'a')
	case b >= 'A' && b <= 'Z':
		return 1 << (b - 'A')
	case b >= '0' && b <= '9':
		return 1 << (26 + b - '0')
	case b < 0x80:
		return 1 << (36 + b%20)
	default:
		return 1 << (56 + b&7)
	}
}

var maskTable [256]uint64

func init() {
	for i := range maskTable {
		maskTable[i] = maskBit(byte(i))
	}
}

// foldedMask is a text's presence mask: its bytes' bits, and for a text with non-ASCII
// characters the bits of the ASCII letters its accented letters normalize to.
func foldedMask(s []byte) uint64 {
	var m uint64
	for _, b := range s {
		m |= maskTable[b]
	}
	if m&nonASCIIMask != 0 {
		m |= runeMask(s)
	}
	return m
}

// asciiMask is the mask a term requires: the bits of its ASCII bytes (its other
// characters may match a text's differently encoded ones).
func asciiMask(s []byte) uint64 {
	var m uint64
	for _, b := range s {
		if b < 0x80 {
			m |= maskTable[b]
		}
	}
	return m
}
