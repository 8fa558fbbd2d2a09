package journal_test

import (
	"fmt"
	"os"

	"github.com/pmacs-go/pmacs-go/journal"
)

// A journal of two edits to a file, read back as recovery would.
func Example() {
	dir, _ := os.MkdirTemp("", "journal-example-")
	defer os.RemoveAll(dir)
	path := "/home/me/notes.txt"
	text := []byte("hello\n")

	data := journal.NewFile(journal.Header{Path: path, Base: journal.Base{Size: int64(len(text)), Hash: journal.Hash(text)}})
	if err := journal.Create(dir, path, data); err != nil {
		fmt.Println(err)
		return
	}
	edits := journal.AppendEdit(nil, journal.Edit{Row: 0, Col: 5, EndRow: 0, EndCol: 5, Text: ", world"})
	edits = journal.AppendEdit(edits, journal.Edit{Row: 0, Col: 0, EndRow: 0, EndCol: 1, Text: "H"})
	if err := journal.Append(dir, path, int64(len(data)), edits); err != nil {
		fmt.Println(err)
		return
	}

	j, err := journal.Read(dir, path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(j.Header.Path, j.Header.Base.Hash == journal.Hash(text), len(j.Edits), j.Edits[0].Text)
	// Output: /home/me/notes.txt true 2 , world
}
