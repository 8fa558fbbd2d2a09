package diff_test

import (
	"context"
	"fmt"

	"github.com/pmacs-go/pmacs-go/diff"
)

func ExampleLines() {
	old := diff.SplitLines("a\nb\nc\nd\n")
	new := diff.SplitLines("a\nB\nc\nd\ne\n")
	hunks, err := diff.Lines(context.Background(), old, new, diff.Options{})
	if err != nil {
		panic(err)
	}
	for _, h := range hunks {
		fmt.Printf("@@ -%d,%d +%d,%d @@\n", h.OldStart, h.OldCount, h.NewStart, h.NewCount)
	}
	// Output:
	// @@ -2,1 +2,1 @@
	// @@ -4,0 +5,1 @@
}
