package textpos_test

import (
	"testing"

	"github.com/pmacs-go/pmacs-go/textpos"
)

// FuzzColumns covers issue 25's fuzz point for the column conversion: on
// any line and column, in every encoding, Units and ByteCol agree with the
// slow reference decoding, never panic, are monotone, and ByteCol then
// Units never moves a position forward.
func FuzzColumns(f *testing.F) {
	f.Add("a\u00e9\U0001F600b\xffc", 4, 3)
	f.Add("\tx", 1, 1)
	f.Add("世界", 2, 1)
	f.Add("\xf0\x9f\x98", 2, 2)
	f.Add("\xed\xa0\x80\uFFFD", 3, 5)
	f.Add("", -1, 1<<30)
	f.Fuzz(func(t *testing.T, line string, col, units int) {
		if len(line) > 1<<12 {
			t.Skip()
		}
		for _, enc := range encodings {
			u := textpos.Units(line, col, enc)
			if want := refUnits(line, col, enc); u != want {
				t.Fatalf("%s: Units(%q, %d) = %d, the reference %d", enc, line, col, u, want)
			}
			if ub := textpos.Units([]byte(line), col, enc); ub != u {
				t.Fatalf("%s: Units of bytes %d, of the string %d", enc, ub, u)
			}
			if next := textpos.Units(line, col+1, enc); col < 1<<40 && next < u {
				t.Fatalf("%s: Units(%q) not monotone: %d at %d, %d at %d", enc, line, u, col, next, col+1)
			}
			b := textpos.ByteCol(line, units, enc)
			if want := refByteCol(line, units, enc); b != want {
				t.Fatalf("%s: ByteCol(%q, %d) = %d, the reference %d", enc, line, units, b, want)
			}
			if bb := textpos.ByteCol([]byte(line), units, enc); bb != b {
				t.Fatalf("%s: ByteCol of bytes %d, of the string %d", enc, bb, b)
			}
			if next := textpos.ByteCol(line, units+1, enc); units < 1<<40 && next < b {
				t.Fatalf("%s: ByteCol(%q) not monotone: %d at %d, %d at %d", enc, line, b, units, next, units+1)
			}
			if b < 0 || b > len(line) {
				t.Fatalf("%s: ByteCol(%q, %d) = %d, outside the line", enc, line, units, b)
			}
			if back := textpos.Units(line, b, enc); back > max(units, 0) {
				t.Fatalf("%s: Units(ByteCol(%d)) = %d, past the position", enc, units, back)
			}
			if back := textpos.ByteCol(line, u, enc); back > max(col, 0) {
				t.Fatalf("%s: ByteCol(Units(%d)) = %d, past the column", enc, col, back)
			}
		}
	})
}
