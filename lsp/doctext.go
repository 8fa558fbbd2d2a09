package lsp

import (
	"bytes"
	"slices"

	"github.com/pmacs-go/pmacs-go/textpos"
)

// applyEdits returns text with edits applied in order, each range taken
// in the text the previous edits left, as didChange defines them.
// Positions are zero-based lines and columns in enc's units; like a server, it
// clamps what is out of range (a line past the end is the end of the text,
// a column past the end of its line is the end of the line, an end before
// its start is the start) rather than failing. text is not modified.
func applyEdits(text []byte, edits []Edit, enc textpos.Encoding) []byte {
	if len(edits) == 0 {
		return text
	}
	// Per line, so an edit costs the lines it touches, not the document.
	lines := splitLines(text)
	for _, e := range edits {
		lines = applyEdit(lines, e, enc)
	}
	return bytes.Join(lines, nil)
}

// splitLines splits text after each '\n'. The last element is what follows
// the last newline, empty when text ends with one, so every position LSP
// can name has a line.
func splitLines(text []byte) [][]byte {
	lines := make([][]byte, 0, bytes.Count(text, []byte{'\n'})+1)
	for {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			return append(lines, text)
		}
		lines = append(lines, text[:i+1:i+1])
		text = text[i+1:]
	}
}

func applyEdit(lines [][]byte, e Edit, enc textpos.Encoding) [][]byte {
	sl, sb := locate(lines, e.Range.Start.Line, e.Range.Start.Character, enc)
	el, eb := locate(lines, e.Range.End.Line, e.Range.End.Character, enc)
	if el < sl || (el == sl && eb < sb) {
		el, eb = sl, sb
	}
	joined := make([]byte, 0, sb+len(e.Text)+len(lines[el])-eb)
	joined = append(joined, lines[sl][:sb]...)
	joined = append(joined, e.Text...)
	joined = append(joined, lines[el][eb:]...)
	mid := splitLines(joined)
	if len(mid) > 1 && len(mid[len(mid)-1]) == 0 && el+1 < len(lines) {
		// The edit's text ends with a newline and a line follows: that line
		// starts there, there is no empty line in between.
		mid = mid[:len(mid)-1]
	}
	if len(mid) == el-sl+1 {
		// The common keystroke: no line added or removed, nothing moves.
		copy(lines[sl:], mid)
		return lines
	}
	return slices.Replace(lines, sl, el+1, mid...)
}

// locate turns an LSP position into a line index and a byte offset in it.
func locate(lines [][]byte, line, col uint32, enc textpos.Encoding) (int, int) {
	if int(line) >= len(lines) {
		last := len(lines) - 1
		return last, len(lines[last])
	}
	l := lines[line]
	content := len(l)
	if content > 0 && l[content-1] == '\n' {
		content--
		if content > 0 && l[content-1] == '\r' {
			content--
		}
	}
	return int(line), textpos.ByteCol(l[:content], int(min(col, 1<<31-1)), enc)
}
