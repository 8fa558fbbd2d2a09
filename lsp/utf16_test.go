package lsp

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// LSP columns count UTF-16 code units: a character above U+FFFF is two,
// a byte that is not UTF-8 one. A column past the end is the end, and one
// inside a surrogate pair stays before its character.
func TestUTF16ColumnsAndByteOffsets(t *testing.T) {
	line := "a\u00e9\U0001F600b\xffc" // a é 😀 b <bad byte> c
	require.Equal(t, 1+1+2+1+1+1, UTF16Len(line))
	require.Equal(t, UTF16Len(line), UTF16Len([]byte(line)))
	for _, tc := range []struct{ col, off int }{
		{0, 0}, {1, 1}, {2, 3}, {3, 3}, {4, 7}, {5, 8}, {6, 9}, {7, 10}, {100, 10},
	} {
		require.Equal(t, tc.off, ByteOffset(line, tc.col), "column %d", tc.col)
		require.Equal(t, tc.off, ByteOffset([]byte(line), tc.col), "column %d of bytes", tc.col)
	}
}
