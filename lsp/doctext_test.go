package lsp

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/pmacs-go/pmacs-go/textpos"
)

// naiveApply is the reference for applyEdits: the whole text as UTF-16
// units, one edit at a time, with the same clamping.
func naiveApply(text string, edits []Edit) string {
	u := utf16.Encode([]rune(text))
	for _, e := range edits {
		off := func(p protocol.Position) int {
			line, o := uint32(0), 0
			for line < p.Line && o < len(u) {
				if u[o] == '\n' {
					line++
				}
				o++
			}
			if line < p.Line {
				return len(u)
			}
			end := o
			for end < len(u) && u[end] != '\n' {
				end++
			}
			if end > o && end < len(u) && u[end-1] == '\r' {
				end--
			}
			c := o + int(p.Character)
			if c > end {
				c = end
			}
			if c > o && c < len(u) && utf16.IsSurrogate(rune(u[c])) && u[c] >= 0xDC00 {
				c-- // inside a pair: stay before the character
			}
			return c
		}
		a, b := off(e.Range.Start), off(e.Range.End)
		if b < a {
			b = a
		}
		u = append(append(append([]uint16{}, u[:a]...), utf16.Encode([]rune(e.Text))...), u[b:]...)
	}
	return string(utf16.Decode(u))
}

// Edits as a server applies them: random ranges (some out of range) and
// texts with newlines and characters of one, two and four bytes, checked
// against a whole-text UTF-16 reference.
func TestApplyEditsMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "é", "😀", "\n", "\r\n", "xyz", "", "ab\ncd"}
	randText := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	pos := func() protocol.Position {
		return protocol.Position{Line: uint32(rng.IntN(8)), Character: uint32(rng.IntN(10))}
	}
	for i := range 2000 {
		text := randText(rng.IntN(20))
		edits := make([]Edit, 1+rng.IntN(5))
		for j := range edits {
			edits[j] = Edit{Range: protocol.Range{Start: pos(), End: pos()}, Text: randText(rng.IntN(4))}
		}
		orig := []byte(text)
		got := string(applyEdits(orig, edits, textpos.UTF16))
		require.Equal(t, naiveApply(text, edits), got, "case %d: %q %+v", i, text, edits)
		require.Equal(t, text, string(orig), "the base text was modified")
	}
}
