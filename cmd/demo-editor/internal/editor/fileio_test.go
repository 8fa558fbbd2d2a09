package editor

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// An atomic save keeps the mode (setuid bits included), leaves no temporary
// file, and writes through a symlink to its target.
func TestWriteFileAtomicKeepsModeAndLinks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sh")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o755))
	require.NoError(t, os.Chmod(path, 0o750|os.ModeSetuid))
	require.NoError(t, writeFileAtomic(path, []byte("new")))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "new", string(got))
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o750)|os.ModeSetuid, st.Mode()&(os.ModePerm|os.ModeSetuid))

	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink("f.sh", link))
	require.NoError(t, writeFileAtomic(link, []byte("via link")))
	lst, err := os.Lstat(link)
	require.NoError(t, err)
	require.Equal(t, os.ModeSymlink, lst.Mode()&os.ModeSymlink, "the link stays a link")
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "via link", string(got))

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "no temporary file is left")
}

// A new file is created with 0644; a failed save leaves what was there and
// no temporary file.
func TestWriteFileAtomicNewFileAndFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new.txt")
	require.NoError(t, writeFileAtomic(path, []byte("x")))
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), st.Mode().Perm())

	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.Error(t, writeFileAtomic(sub, []byte("x")), "a directory is not replaced")
	require.DirExists(t, sub)
	require.Error(t, writeFileAtomic(filepath.Join(dir, "missing", "f"), []byte("x")))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2)
}

// Reading: a missing file is an empty new text; a directory and an
// oversize file are errors.
func TestReadFileText(t *testing.T) {
	dir := t.TempDir()
	ft, exists, err := readFileText(filepath.Join(dir, "nope"), nil)
	require.NoError(t, err)
	require.False(t, exists)
	require.Equal(t, []string{""}, ft.lines.all())
	_, _, err = readFileText(dir, nil)
	require.Error(t, err)
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxFileBytes+1))
	require.NoError(t, f.Close())
	_, _, err = readFileText(big, nil)
	require.ErrorIs(t, err, errTooLarge)
}

// A file with a NUL byte near its start is flagged binary (opened
// read-only); text is not.
func TestSplitTextFlagsBinary(t *testing.T) {
	require.True(t, splitText([]byte("\x7fELF\x00\x01")).binary)
	require.False(t, splitText([]byte("plain\ntext\n")).binary)
}

// Issue 14 (60 MB file): reading a file allocates its text once and a
// string header per row, nothing more. Reading into a growing buffer and
// converting it to a string allocated about three times the file, which
// the relaxed collector kept resident (4.4x the file in all).
func TestReadFileTextAllocatesTheTextOnce(t *testing.T) {
	const rows = 200_000
	path := filepath.Join(t.TempDir(), "f.go")
	text := strings.Repeat("\treturn a + b // sum\n", rows)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	ft, _, err := readFileText(path, nil)
	goruntime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Len(t, ft.lines.all(), rows)
	require.Nil(t, ft.ends, "one kind of line break: no per-row endings")
	allocated := after.TotalAlloc - before.TotalAlloc
	limit := uint64(len(text) + rows*16 + 1<<20) // the text, the row headers, a read buffer
	require.LessOrEqual(t, allocated, limit, "allocated %.1fx the file", float64(allocated)/float64(len(text)))
}

// Per-row line endings exist only for a file that mixes both kinds, and
// then say which row ends how, whichever kind comes first.
func TestSplitTextMixedEndings(t *testing.T) {
	ft := splitText([]byte("a\nb\nc\r\nd"))
	require.Equal(t, []bool{false, false, true, false}, ft.ends)
	require.Equal(t, [2]int{1, 2}, [2]int{ft.crlfRows, ft.lfRows})
	ft = splitText([]byte("a\r\nb\r\nc\nd\r\n"))
	require.Equal(t, []string{"a", "b", "c", "d"}, ft.lines.all())
	require.Equal(t, []bool{true, true, false, true}, ft.ends)
	ft = splitText([]byte("a\r\nb\r\n"))
	require.Nil(t, ft.ends)
	require.True(t, ft.crlf)
}
