package editor

import (
	"os"
	"path/filepath"
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
	ft, exists, err := readFileText(filepath.Join(dir, "nope"))
	require.NoError(t, err)
	require.False(t, exists)
	require.Equal(t, []string{""}, ft.lines)
	_, _, err = readFileText(dir)
	require.Error(t, err)
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxFileBytes+1))
	require.NoError(t, f.Close())
	_, _, err = readFileText(big)
	require.ErrorIs(t, err, errTooLarge)
}

// A file with a NUL byte near its start is flagged binary (opened
// read-only); text is not.
func TestSplitTextFlagsBinary(t *testing.T) {
	require.True(t, splitText([]byte("\x7fELF\x00\x01")).binary)
	require.False(t, splitText([]byte("plain\ntext\n")).binary)
}
