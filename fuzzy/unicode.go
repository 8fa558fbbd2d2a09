package fuzzy

//go:generate go run gen_normalize.go

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

// Texts with non-ASCII characters are scored as fzf scores them, one character at a time:
// such a text is first recoded to one byte per character, ASCII as itself and every other
// character as a code >= 0x80 that carries its class (for the bonuses) and, when a term
// holds it, which of the pattern's characters it is (for the matching). An accented Latin
// letter or fullwidth ASCII character of the text reads as its ASCII letter when the term
// is normalizing (it holds no such character itself, as in fzf), and case folds with
// unicode.ToLower. Scores, gaps and the length tie-break then count characters, and
// positions are mapped back to byte offsets.
const (
	// codeOther + class is a character no term holds.
	codeOther = 0x80
	// codeNever is a term character past the maxRuneCodes-th: it matches nothing.
	codeNever = 0x87
	// codeTerm + 8*id + class is the pattern's id-th distinct non-ASCII character (by its
	// lower case) in a text, or in a term.
	codeTerm = 0x88
	// maxRuneCodes is how many distinct non-ASCII characters a pattern can match by.
	maxRuneCodes = (256 - codeTerm) / 8
)

func init() {
	for c := codeOther; c < 256; c++ {
		cl := charClass((c - codeOther) & 7)
		if c == codeNever {
			cl = classLetter
		}
		byteClass[c] = cl
		lowerTable[c] = byte(c)
		if cl == classUpper {
			lowerTable[c] = byte(c - int(classUpper) + int(classLower))
		}
	}
}

// upperCode returns the code of b's upper case when b is a lower-case character code, or 0.
func upperCode(b byte) byte {
	if b >= codeTerm && byteClass[b] == classLower {
		return b - byte(classLower) + byte(classUpper)
	}
	return 0
}

// runeClass is fzf's class of a non-ASCII character (delimiters are ASCII only).
func runeClass(r rune) charClass {
	switch {
	case unicode.IsLower(r):
		return classLower
	case unicode.IsUpper(r):
		return classUpper
	case unicode.IsNumber(r):
		return classNumber
	case unicode.IsLetter(r):
		return classLetter
	case unicode.IsSpace(r):
		return classWhite
	}
	return classNonWord
}

// normalizes reports whether s holds no character that normalization would change, the
// condition for a term to match accented letters by their ASCII letter.
func normalizes(s string) bool {
	for _, r := range s {
		if _, ok := normalized[r]; ok {
			return false
		}
	}
	return true
}

// encodeTerm recodes a term's text (already lower case unless case-sensitive) to the bytes
// a recoded text is compared with, adding its non-ASCII characters to runes.
func encodeTerm(s string, norm bool, runes *[]rune) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r < utf8.RuneSelf {
			out = append(out, byte(r))
			continue
		}
		if b, ok := normalized[r]; ok && norm {
			out = append(out, b)
			continue
		}
		key := unicode.ToLower(r)
		id := slices.Index(*runes, key)
		if id < 0 && len(*runes) < maxRuneCodes {
			*runes = append(*runes, key)
			id = len(*runes) - 1
		}
		if id < 0 {
			out = append(out, codeNever)
			continue
		}
		out = append(out, byte(codeTerm+8*id)+byte(runeClass(r)))
	}
	return out
}

// recode writes text, one byte per character, to s's buffer for norm and returns it; the
// byte offset of each character is in s.offs[norm].
func (s *scratch) recode(text []byte, p *Pattern, norm bool) []byte {
	k := 0
	if norm {
		k = 1
	}
	out, offs := s.recoded[k][:0], s.offs[k][:0]
	for i := 0; i < len(text); {
		b := text[i]
		if b < utf8.RuneSelf {
			out, offs = append(out, b), append(offs, i)
			i++
			continue
		}
		r, w := utf8.DecodeRune(text[i:])
		offs = append(offs, i)
		i += w
		if a, ok := normalized[r]; ok && norm {
			out = append(out, a)
			continue
		}
		cl := runeClass(r)
		if id := slices.Index(p.runes, unicode.ToLower(r)); id >= 0 {
			out = append(out, byte(codeTerm+8*id)+byte(cl))
		} else {
			out = append(out, codeOther+byte(cl))
		}
	}
	s.recoded[k], s.offs[k] = out, offs
	return out
}

// runeMask adds to an ASCII mask the bits of the ASCII letters the text's accented
// letters normalize to, so that the mask stays a necessary condition for a match.
func runeMask(s []byte) uint64 {
	var m uint64
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, w := utf8.DecodeRune(s[i:])
		i += w
		for _, c := range [2]rune{r, unicode.ToLower(r)} {
			if a, ok := normalized[c]; ok {
				m |= maskTable[a]
			}
		}
	}
	return m
}
