package grep

import (
	"bytes"
	"regexp/syntax"
	"unicode/utf8"
)

// simpleRe matches, at the start of its input, a regular expression that is a sequence of
// literal runs and repeats of one ASCII character class (`func \w+\(`, `[A-Z][a-z]+Error`,
// `0x[0-9a-f]+`) in one pass with no backtracking: a repeat that may stop early is only
// accepted when what follows cannot start with a byte of its class, so its longest run is
// the only one that can go on to match, and it is the one the leftmost-first rule picks.
// It stands in for the regexp package's backtracker at each prefilter hit, which costs
// several times more per character.
type simpleRe struct {
	items []simpleItem
}

type simpleItem struct {
	lit      []byte    // a literal run, or (when nil) a repeat of set
	set      [2]uint64 // bit b: byte b (< 128) is in the class
	min, max int       // bounds of the repeat; max < 0: unbounded
}

func (it *simpleItem) has(b byte) bool {
	return b < utf8.RuneSelf && it.set[b>>6]&(1<<(b&63)) != 0
}

// compileSimple returns the one-pass form of re, or nil when re is not of that shape.
func compileSimple(re *syntax.Regexp) *simpleRe {
	var items []simpleItem
	if !appendSimple(re, &items) || len(items) == 0 {
		return nil
	}
	for i := range items {
		it := &items[i]
		if it.lit != nil || it.min == it.max || i == len(items)-1 {
			continue
		}
		// The repeat may stop early: what follows must not start with a byte of its class.
		next := &items[i+1]
		switch {
		case next.lit != nil:
			if it.has(next.lit[0]) {
				return nil
			}
		case next.min == 0:
			return nil // what follows may be empty: the item after it would count too
		case it.set[0]&next.set[0] != 0 || it.set[1]&next.set[1] != 0:
			return nil
		}
	}
	return &simpleRe{items: items}
}

// appendSimple appends the items of re to items; false when re is not of the shape.
func appendSimple(re *syntax.Regexp, items *[]simpleItem) bool {
	switch re.Op {
	case syntax.OpCapture:
		return appendSimple(re.Sub[0], items)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !appendSimple(sub, items) {
				return false
			}
		}
		return true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 || len(re.Rune) == 0 {
			return false
		}
		var lit []byte
		for _, r := range re.Rune {
			lit = utf8.AppendRune(lit, r)
		}
		if n := len(*items); n > 0 && (*items)[n-1].lit != nil {
			(*items)[n-1].lit = append((*items)[n-1].lit, lit...)
		} else {
			*items = append(*items, simpleItem{lit: lit})
		}
		return true
	case syntax.OpCharClass:
		return appendClass(re, 1, 1, items)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		if re.Flags&syntax.NonGreedy != 0 || re.Sub[0].Op != syntax.OpCharClass {
			return false
		}
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		return appendClass(re.Sub[0], lo, hi, items)
	}
	return false
}

// appendClass appends a repeat of the class cc if every rune it holds is ASCII.
func appendClass(cc *syntax.Regexp, lo, hi int, items *[]simpleItem) bool {
	it := simpleItem{min: lo, max: hi}
	for i := 0; i+1 < len(cc.Rune); i += 2 {
		a, b := cc.Rune[i], cc.Rune[i+1]
		if b >= utf8.RuneSelf {
			return false
		}
		for r := a; r <= b; r++ {
			it.set[r>>6] |= 1 << (r & 63)
		}
	}
	if it.set == [2]uint64{} {
		return false
	}
	*items = append(*items, it)
	return true
}

// matchAt returns the end of the match that starts at b[0], or -1.
func (s *simpleRe) matchAt(b []byte) int {
	p := 0
	for i := range s.items {
		it := &s.items[i]
		if it.lit != nil {
			if !bytes.HasPrefix(b[p:], it.lit) {
				return -1
			}
			p += len(it.lit)
			continue
		}
		n := 0
		for p+n < len(b) && (it.max < 0 || n < it.max) && it.has(b[p+n]) {
			n++
		}
		if n < it.min {
			return -1
		}
		p += n
	}
	return p
}
