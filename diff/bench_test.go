package diff

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkLinesOneEditIn20000 is the worker's side of a keystroke in a
// 20,000-line file: its rows against the index version with one row
// changed (the gutter's case), and with 200 rows changed across it.
func BenchmarkLinesOneEditIn20000(b *testing.B) {
	base := make([]string, 20000)
	for i := range base {
		if i%9 == 4 {
			continue
		}
		base[i] = fmt.Sprintf("\tline %d of the notes, long enough to be a line of code", i)
	}
	for _, edits := range []int{1, 200} {
		edited := append([]string(nil), base...)
		for k := range edits {
			edited[100+k*(len(base)-200)/edits] += "x"
		}
		b.Run(fmt.Sprintf("edits=%d", edits), func(b *testing.B) {
			for b.Loop() {
				hs, err := Lines(context.Background(), base, edited, Options{Rows: true})
				if err != nil || len(hs) != edits {
					b.Fatalf("%d hunks, %v", len(hs), err)
				}
			}
		})
	}
}
