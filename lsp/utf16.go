package lsp

import "github.com/pmacs-go/pmacs-go/textpos"

// UTF16Len is the length of s in UTF-16 code units, the unit of an LSP
// position's character. A byte that is not UTF-8 counts one unit, as the
// U+FFFD it decodes to. It is textpos.Units of the whole of s, which new
// code calls directly.
func UTF16Len[T ~string | ~[]byte](s T) int {
	return textpos.Units(s, len(s), textpos.UTF16)
}

// ByteOffset is the byte offset in line of the position col UTF-16 code
// units into it. Like a server, it clamps rather than fails: a column past
// the end is the end of line, and one inside a surrogate pair stays before
// its character. line is the line's content, without its line break. It is
// textpos.ByteCol, which new code calls directly.
func ByteOffset[T ~string | ~[]byte](line T, col int) int {
	return textpos.ByteCol(line, col, textpos.UTF16)
}
