package lsp

import "unicode/utf8"

// UTF16Len is the length of s in UTF-16 code units, the unit of an LSP
// position's character. A byte that is not UTF-8 counts one unit, as the
// U+FFFD it decodes to.
func UTF16Len[T ~string | ~[]byte](s T) int {
	n := 0
	for _, r := range string(s) {
		n += utf16Units(r)
	}
	return n
}

// ByteOffset is the byte offset in line of the position col UTF-16 code
// units into it. Like a server, it clamps rather than fails: a column past
// the end is the end of line, and one inside a surrogate pair stays before
// its character. line is the line's content, without its line break.
func ByteOffset[T ~string | ~[]byte](line T, col int) int {
	units := 0
	for i, r := range string(line) {
		units += utf16Units(r)
		if units > col {
			return i
		}
	}
	return len(line)
}

func utf16Units(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}
