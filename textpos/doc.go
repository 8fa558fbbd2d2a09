// Package textpos converts between a byte column in a line of UTF-8 text
// and the column of an LSP position, counted in the units the client and
// server agreed on (PositionEncodingKind): UTF-16 code units (the default,
// and the only one every server supports), UTF-8 bytes or UTF-32 code
// points.
//
// # The text the server sees
//
// A column counts characters of the text as the server holds it, and that
// is not always the bytes of the buffer: an invalid UTF-8 byte cannot
// travel in JSON, so the client sends U+FFFD for each such byte (as
// encoding/json and go-json-experiment's jsontext do), and the server
// counts that character. So an invalid byte is one unit in UTF-16 and
// UTF-32 and three in UTF-8, the length of U+FFFD; a surrogate code point
// encoded in UTF-8 is three invalid bytes. A character outside the Basic
// Multilingual Plane (an emoji, most of them) is two UTF-16 units, a
// surrogate pair.
//
// # Rounding and clamping
//
// Neither direction fails, as servers clamp too. Units of a byte column
// inside a character counts up to the start of that character; ByteCol of
// a position inside a character (between the two halves of a surrogate
// pair, or inside a multi-byte UTF-8 sequence) is the byte column before
// that character. A column past the end of the line is the end of the
// line; a negative one is 0. Both are monotone: a larger argument never
// gives a smaller result.
//
// The line is a line's content without its line break: the functions
// count a '\n' or '\r' as the one-unit character it is.
//
// # Cost
//
// Both functions take a string or a []byte, allocate nothing, and cost one
// pass over the line up to the column (ASCII bytes are counted without
// decoding). They run on every keystroke that talks to a server.
//
// # Concurrency
//
// The functions are pure: call them from any goroutine.
package textpos
