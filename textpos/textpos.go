package textpos

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Encoding is the unit of an LSP position's character: the
// PositionEncodingKind a client and a server agreed on. The zero value is
// UTF16, LSP's default.
type Encoding uint8

const (
	// UTF16 counts UTF-16 code units ("utf-16"): a character outside the
	// Basic Multilingual Plane is two.
	UTF16 Encoding = iota
	// UTF8 counts UTF-8 bytes ("utf-8").
	UTF8
	// UTF32 counts Unicode code points ("utf-32").
	UTF32
)

// ErrEncoding is what ParseEncoding returns for a kind LSP does not define.
var ErrEncoding = errors.New("textpos: unknown position encoding")

// ParseEncoding returns the Encoding of an LSP PositionEncodingKind:
// "utf-16", "utf-8" or "utf-32".
func ParseEncoding(kind string) (Encoding, error) {
	switch kind {
	case "utf-16":
		return UTF16, nil
	case "utf-8":
		return UTF8, nil
	case "utf-32":
		return UTF32, nil
	}
	return UTF16, fmt.Errorf("%w %q (want utf-8, utf-16 or utf-32)", ErrEncoding, kind)
}

// String returns the encoding's PositionEncodingKind.
func (e Encoding) String() string {
	switch e {
	case UTF16:
		return "utf-16"
	case UTF8:
		return "utf-8"
	case UTF32:
		return "utf-32"
	}
	return fmt.Sprintf("textpos.Encoding(%d)", uint8(e))
}

// width is how many units of enc the character r takes in the text the
// server holds; an invalid byte arrives as utf8.RuneError (U+FFFD), which
// is what the server got for it.
func width(r rune, enc Encoding) int {
	switch enc {
	case UTF8:
		return utf8.RuneLen(r) // 3 for U+FFFD
	case UTF32:
		return 1
	}
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// Units returns the position character, in units of enc, of byte column
// col of line: the units of the characters that end at or before col. A
// col inside a character counts up to that character's start; a col past
// the end counts the whole line, a negative one nothing.
func Units[T ~string | ~[]byte](line T, col int, enc Encoding) int {
	if col <= 0 {
		return 0
	}
	col = min(col, len(line))
	i := 0
	for i < col && line[i] < utf8.RuneSelf {
		i++
	}
	if i == col {
		return i
	}
	// n counts the characters before the one at hand, whose units wait in
	// prev until the next one shows where it ends.
	n, prev := i, 0
	for j, r := range string(line[i:]) {
		if i+j > col {
			return n
		}
		n += prev
		prev = width(r, enc)
	}
	if col == len(line) {
		n += prev // the last character ends at the end of the line
	}
	return n
}

// ByteCol returns the byte column of line at position character units,
// counted in units of enc. A position inside a character (inside a
// surrogate pair, say) gives the column before it; one past the end the
// line's length; a negative one 0.
func ByteCol[T ~string | ~[]byte](line T, units int, enc Encoding) int {
	if units <= 0 {
		return 0
	}
	i := 0
	for i < len(line) && i < units && line[i] < utf8.RuneSelf {
		i++
	}
	if i == units || i == len(line) {
		return i
	}
	n := i
	for j, r := range string(line[i:]) {
		n += width(r, enc)
		if n > units {
			return i + j
		}
	}
	return len(line)
}
