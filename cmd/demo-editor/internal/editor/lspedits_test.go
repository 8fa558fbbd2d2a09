package editor

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEditLogRecordsIncrementalUTF16Edits proves the edit log a language
// client reads: ranges measured on the text before each edit, columns in
// UTF-16 units (é is one, 😀 two) and in bytes (for a server that counts
// UTF-8), a reload and an overflow asking for a
// resync, and scratch buffers recording nothing.
func TestEditLogRecordsIncrementalUTF16Edits(t *testing.T) {
	b := newBuffer(1, "x.go")
	b.path = "/src/x.go"
	b.load(fileText{lines: newRows([]string{"héllo 😀x", "second"})})
	require.True(t, b.edits.overflow, "a load must ask for a resync")
	b.edits = editLog{}

	b.edit(pos{0, len("héllo 😀")}, pos{0, len("héllo 😀x")}, "Y", false)
	b.edit(pos{0, len("héllo 😀Y")}, pos{1, 0}, "", false)
	require.True(t, b.undoStep())
	require.Equal(t, []lspEdit{
		{line: 0, col: 8, endLine: 0, endCol: 9, byteCol: 11, endByteCol: 12, text: "Y"},
		{line: 0, col: 9, endLine: 1, endCol: 0, byteCol: 12, endByteCol: 0, text: ""},
		{line: 0, col: 9, endLine: 0, endCol: 9, byteCol: 12, endByteCol: 12, text: "\n"},
	}, b.edits.edits)

	b.edits = editLog{}
	for range maxEditLog + 1 {
		b.edit(pos{0, 0}, pos{0, 0}, "a", false)
	}
	require.True(t, b.edits.overflow)
	require.Empty(t, b.edits.edits, "an overflowed log must not keep growing")

	s := newBuffer(2, "*scratch*")
	s.edit(pos{0, 0}, pos{0, 0}, "x", false)
	require.Empty(t, s.edits.edits)
	require.False(t, s.edits.overflow)
}
