package textpos_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/textpos"
)

var encodings = []textpos.Encoding{textpos.UTF16, textpos.UTF8, textpos.UTF32}

// TestUnitsOfEachKindOfCharacter covers the UTF-16 point of issue 25 (one
// column module): per kind of character, the units a server counts for it
// in each encoding, as a whole line and at every byte column in it.
func TestUnitsOfEachKindOfCharacter(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		units      [3]int // UTF16, UTF8, UTF32 of the whole line
	}{
		{"empty", "", [3]int{0, 0, 0}},
		{"ASCII", "abc", [3]int{3, 3, 3}},
		{"a tab", "\tx", [3]int{2, 2, 2}},
		{"two-byte é", "\u00e9", [3]int{1, 2, 1}},
		{"CJK", "世界", [3]int{2, 6, 2}},
		{"an emoji is a surrogate pair", "\U0001F600", [3]int{2, 4, 1}},
		{"an invalid byte is one U+FFFD", "\xff", [3]int{1, 3, 1}},
		{"a continuation byte alone", "\x80", [3]int{1, 3, 1}},
		{"a truncated sequence is one U+FFFD per byte", "\xf0\x9f\x98", [3]int{3, 9, 3}},
		{"an encoded surrogate is invalid", "\xed\xa0\x80", [3]int{3, 9, 3}},
		{"a real U+FFFD", "\uFFFD", [3]int{1, 3, 1}},
		{"a line break counts", "a\r\n", [3]int{3, 3, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, enc := range encodings {
				require.Equal(t, tc.units[enc], textpos.Units(tc.line, len(tc.line), enc), enc.String())
				require.Equal(t, tc.units[enc], textpos.Units([]byte(tc.line), len(tc.line), enc), "%s of bytes", enc)
				for col := -1; col <= len(tc.line)+1; col++ {
					require.Equal(t, refUnits(tc.line, col, enc), textpos.Units(tc.line, col, enc), "%s at byte %d", enc, col)
				}
				for u := -1; u <= tc.units[enc]+1; u++ {
					require.Equal(t, refByteCol(tc.line, u, enc), textpos.ByteCol(tc.line, u, enc), "%s at unit %d", enc, u)
				}
			}
		})
	}
}

// TestColumnsAroundASurrogatePair covers the UTF-16 rounding rules of
// issue 25: a byte column inside a character counts up to its start, a
// UTF-16 column between the halves of a pair stays before the character,
// and both ends clamp.
func TestColumnsAroundASurrogatePair(t *testing.T) {
	line := "a\U0001F600b" // a, 4 bytes of 😀, b
	for col, want := range []int{0, 1, 1, 1, 1, 3, 4} {
		require.Equal(t, want, textpos.Units(line, col, textpos.UTF16), "byte column %d", col)
	}
	require.Equal(t, 4, textpos.Units(line, 100, textpos.UTF16), "past the end: the whole line")
	require.Equal(t, 0, textpos.Units(line, -5, textpos.UTF16))
	for units, want := range []int{0, 1, 1, 5, 6, 6} {
		require.Equal(t, want, textpos.ByteCol(line, units, textpos.UTF16), "UTF-16 column %d", units)
	}
	require.Equal(t, 0, textpos.ByteCol(line, -1, textpos.UTF16))
	require.Equal(t, 6, textpos.ByteCol(line, 1<<40, textpos.UTF16))
}

// TestColumnsOfAMixedLine covers the lsp package's former table (issue 25:
// no second implementation, the same answers): a é 😀 b, a bad byte, c.
func TestColumnsOfAMixedLine(t *testing.T) {
	line := "a\u00e9\U0001F600b\xffc"
	require.Equal(t, 1+1+2+1+1+1, textpos.Units(line, len(line), textpos.UTF16))
	require.Equal(t, 1+1+2+1+1+1, textpos.Units([]byte(line), len(line), textpos.UTF16))
	for _, tc := range []struct{ col, off int }{
		{0, 0}, {1, 1}, {2, 3}, {3, 3}, {4, 7}, {5, 8}, {6, 9}, {7, 10}, {100, 10},
	} {
		require.Equal(t, tc.off, textpos.ByteCol(line, tc.col, textpos.UTF16), "column %d", tc.col)
		require.Equal(t, tc.off, textpos.ByteCol([]byte(line), tc.col, textpos.UTF16), "column %d of bytes", tc.col)
	}
	// UTF-8 columns are the line's bytes except the bad one, which the
	// server holds as the three bytes of U+FFFD.
	require.Equal(t, 8, textpos.Units(line, 8, textpos.UTF8))
	require.Equal(t, 11, textpos.Units(line, 9, textpos.UTF8))
	require.Equal(t, 8, textpos.ByteCol(line, 10, textpos.UTF8), "inside the U+FFFD: before the bad byte")
	require.Equal(t, 9, textpos.ByteCol(line, 11, textpos.UTF8))
}

// TestParseEncoding covers the PositionEncodingKind names LSP defines.
func TestParseEncoding(t *testing.T) {
	for _, enc := range encodings {
		got, err := textpos.ParseEncoding(enc.String())
		require.NoError(t, err)
		require.Equal(t, enc, got)
	}
	_, err := textpos.ParseEncoding("utf-7")
	require.True(t, errors.Is(err, textpos.ErrEncoding))
	require.EqualError(t, err, `textpos: unknown position encoding "utf-7" (want utf-8, utf-16 or utf-32)`)
	require.Equal(t, "textpos.Encoding(9)", textpos.Encoding(9).String())
}

// TestColumnsAllocateNothing covers issue 25's per-keystroke cost: the
// conversions allocate nothing, for strings and byte slices.
func TestColumnsAllocateNothing(t *testing.T) {
	line := "\tfmt.Println(\"héllo 😀 世界\", x)\xff"
	b := []byte(line)
	allocs := testing.AllocsPerRun(100, func() {
		_ = textpos.Units(line, 20, textpos.UTF16)
		_ = textpos.ByteCol(line, 20, textpos.UTF16)
		_ = textpos.Units(b, 20, textpos.UTF8)
		_ = textpos.ByteCol(b, 20, textpos.UTF32)
	})
	require.Zero(t, allocs)
}
