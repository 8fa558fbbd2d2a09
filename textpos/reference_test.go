package textpos_test

import (
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pmacs-go/pmacs-go/textpos"
)

// char is one character of a line as the server holds it: the bytes
// [start, end) of the line it came from and its length in each encoding.
type char struct {
	start, end int
	units      [3]int // by textpos.Encoding
}

// serverChars decodes line the slow way, as the text a server receives:
// every byte that is not part of valid UTF-8 becomes its own U+FFFD,
// whose lengths are taken from the standard library's encoders.
func serverChars(line string) []char {
	var cs []char
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		c := char{start: i, end: i + size}
		c.units[textpos.UTF16] = len(utf16.Encode([]rune{r}))
		c.units[textpos.UTF8] = len(string(r))
		c.units[textpos.UTF32] = 1
		cs = append(cs, c)
		i += size
	}
	return cs
}

// refUnits is Units by its definition: the units of the characters that
// end at or before col.
func refUnits(line string, col int, enc textpos.Encoding) int {
	n := 0
	for _, c := range serverChars(line) {
		if c.end <= col {
			n += c.units[enc]
		}
	}
	return n
}

// refByteCol is ByteCol by its definition: the start of the first
// character that ends past units, or the end of the line.
func refByteCol(line string, units int, enc textpos.Encoding) int {
	n := 0
	for _, c := range serverChars(line) {
		n += c.units[enc]
		if n > units {
			return c.start
		}
	}
	return len(line)
}
