package textpos_test

import (
	"fmt"

	"github.com/pmacs-go/pmacs-go/textpos"
)

// A position in a request: the cursor's byte column becomes the UTF-16
// column LSP counts by default. The emoji before it is a surrogate pair.
func ExampleUnits() {
	line := "s := \"😀\" + x"
	col := len("s := \"😀\" + ") // the cursor on x
	fmt.Println(col, textpos.Units(line, col, textpos.UTF16), textpos.Units(line, col, textpos.UTF8))
	// Output: 14 12 14
}

// A position in a reply: the server's UTF-16 column becomes a byte column
// of the buffer's line. A column between the halves of the pair stays
// before the emoji.
func ExampleByteCol() {
	line := "s := \"😀\" + x"
	fmt.Println(textpos.ByteCol(line, 12, textpos.UTF16), textpos.ByteCol(line, 7, textpos.UTF16))
	// Output: 14 6
}

// The encoding a server chose in its capabilities.
func ExampleParseEncoding() {
	enc, err := textpos.ParseEncoding("utf-8")
	fmt.Println(enc, err)
	// Output: utf-8 <nil>
}
