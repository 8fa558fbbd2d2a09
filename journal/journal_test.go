package journal

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func testHeader(path string) Header {
	return Header{Path: path, Base: Base{Size: 12, ModTime: time.Unix(1700000000, 5), Hash: Hash([]byte("hello world\n"))}, Created: time.Unix(1700000100, 0)}
}

var testEdits = []Edit{
	{Row: 0, Col: 5, EndRow: 0, EndCol: 5, Text: ", wörld"},
	{Row: 1, Col: 0, EndRow: 3, EndCol: 2, Text: "a\nb\nc", Ends: []bool{true, false, true}},
	{Row: 2, Col: 1, EndRow: 2, EndCol: 4, Text: ""},
}

// The records a journal is written with are the records read back: the
// header, the edits with their line endings, and a snapshot that makes
// the edits before it irrelevant.
func TestJournalRoundTrips(t *testing.T) {
	data := NewFile(testHeader("/tmp/x.txt"))
	for _, e := range testEdits {
		data = AppendEdit(data, e)
	}
	j, err := Decode(data)
	require.NoError(t, err)
	require.Equal(t, "/tmp/x.txt", j.Header.Path)
	require.Equal(t, testHeader("/tmp/x.txt").Base.Hash, j.Header.Base.Hash)
	require.True(t, j.Header.Base.ModTime.Equal(time.Unix(1700000000, 5)))
	require.Equal(t, int64(12), j.Header.Base.Size)
	require.Equal(t, testEdits, j.Edits)
	require.False(t, j.HasSnapshot)
	require.Equal(t, int64(len(data)), j.Size)
	require.Zero(t, j.Dropped)

	data = AppendSnapshot(data, []byte("line\r\nnext\r\n"))
	data = AppendEdit(data, testEdits[0])
	j, err = Decode(data)
	require.NoError(t, err)
	require.True(t, j.HasSnapshot)
	require.Equal(t, "line\r\nnext\r\n", string(j.Snapshot))
	require.Equal(t, testEdits[:1], j.Edits)
	require.Equal(t, 5, j.Records)
}

// Acceptance (2): a record cut anywhere by a crash in mid-append is
// dropped whole and reported, and the records before it stay; a record
// whose bytes changed is dropped by its checksum the same way.
func TestTornTailRecordIsDropped(t *testing.T) {
	data := NewFile(testHeader("/tmp/x.txt"))
	data = AppendEdit(data, testEdits[0])
	whole := len(data)
	data = AppendEdit(data, testEdits[1])
	for cut := whole + 1; cut < len(data); cut++ {
		j, err := Decode(data[:cut])
		require.NoError(t, err, "cut at %d", cut)
		require.Equal(t, testEdits[:1], j.Edits, "cut at %d", cut)
		require.Equal(t, int64(whole), j.Size)
		require.Equal(t, int64(cut-whole), j.Dropped)
		require.NotEmpty(t, j.DropReason)
	}
	bad := append([]byte(nil), data...)
	bad[len(bad)-2] ^= 0x40
	j, err := Decode(bad)
	require.NoError(t, err)
	require.Equal(t, testEdits[:1], j.Edits)
	require.Equal(t, "checksum mismatch", j.DropReason)
}

// Acceptance (6): a hostile journal gives an error naming what is wrong,
// never a panic or an allocation its size does not pay for: no magic, a
// cut header, a length of 4 GiB, a record whose checksum holds but whose
// text length runs past it, a relative or unclean path, a second header.
func TestHostileJournalsAreClearErrors(t *testing.T) {
	good := NewFile(testHeader("/tmp/x.txt"))
	huge := append([]byte(nil), good...)
	huge = binary.LittleEndian.AppendUint32(huge, 0xFFFFFFFF)
	huge = append(huge, 0, 0, 0, 0, 'E')
	lying := appendRecord(append([]byte(nil), good...), func(b []byte) []byte {
		b = append(b, 'E', 0, 0, 0, 0)
		return binary.AppendUvarint(b, 1<<62) // a text "longer" than the record
	})
	manyEnds := appendRecord(append([]byte(nil), good...), func(b []byte) []byte {
		b = append(b, 'E', 0, 0, 0, 0, 0)
		return binary.AppendUvarint(b, 1<<60)
	})
	cases := map[string]struct {
		data []byte
		want string
	}{
		"empty":         {nil, "no magic"},
		"other file":    {[]byte("package main\n"), "no magic"},
		"newer version": {[]byte("PMACSJN\x07......"), "format version 7"},
		"cut header":    {good[:len(good)-3], "no complete header"},
		"relative path": {NewFile(Header{Path: "x.txt"}), "not absolute and clean"},
		"unclean path":  {NewFile(Header{Path: "/tmp/../etc/x"}), "not absolute and clean"},
		"second header": {append(append([]byte(nil), good...), good[len(magic):]...), "a second header"},
		"text too long": {lying, "runs past the record"},
		"ends too many": {manyEnds, "runs past the record"},
		"unknown type": {appendRecord(append([]byte(nil), good...), func(b []byte) []byte { return append(b, 'Z') }),
			"unknown record type"},
		"backwards edit": {AppendEdit(append([]byte(nil), good...), Edit{Row: 3, EndRow: 1}), "ends (1:0) before it starts (3:0)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Decode(c.data)
			require.ErrorIs(t, err, ErrCorrupt)
			require.ErrorContains(t, err, c.want)
		})
	}
	// A length past the bytes is a torn tail, not an allocation.
	j, err := Decode(huge)
	require.NoError(t, err)
	require.Contains(t, j.DropReason, "outside 1 to")
}

// Journals live in a 0700 directory as 0600 files; Create replaces one
// whole, Append cuts off a torn tail before it writes, Remove takes it away
// (and a second Remove is no error).
func TestFilesAreWrittenPrivatelyAndAppendCutsATornTail(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "journal")
	path := "/work/a.txt"
	head := NewFile(testHeader(path))
	require.NoError(t, Create(dir, path, head))
	st, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o700), st.Mode().Perm())
	name := filepath.Join(dir, Name(path))
	st, err = os.Stat(name)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o600), st.Mode().Perm())

	rec := AppendEdit(nil, testEdits[0])
	require.NoError(t, Append(dir, path, int64(len(head)), rec))
	// A crash left half a record; the next append starts where the valid
	// part ends.
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write(AppendEdit(nil, testEdits[1])[:7])
	require.NoError(t, err)
	require.NoError(t, f.Close())
	j, err := Read(dir, path)
	require.NoError(t, err)
	require.Equal(t, int64(7), j.Dropped)
	require.NoError(t, Append(dir, path, j.Size, AppendEdit(nil, testEdits[2])))
	j, err = Read(dir, path)
	require.NoError(t, err)
	require.Zero(t, j.Dropped)
	require.Equal(t, []Edit{testEdits[0], testEdits[2]}, j.Edits)

	entries, err := List(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.Equal(t, path, entries[0].Header.Path)
	require.NoError(t, entries[0].Err)

	require.NoError(t, Remove(dir, path))
	require.NoError(t, Remove(dir, path))
	_, err = Read(dir, path)
	require.ErrorIs(t, err, fs.ErrNotExist)
}

// Acceptance (6): a journal whose header claims another file than the one
// its name is for is refused, by Read, ReadFile and List, so a journal
// planted under one file's name cannot put text in another's buffer; a
// symlink where a journal should be is not followed.
func TestJournalClaimingAnotherPathIsRefused(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, Name("/home/u/a.txt")), NewFile(testHeader("/etc/passwd")), 0o600))
	_, err := Read(dir, "/home/u/a.txt")
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "claims")
	_, err = ReadFile(filepath.Join(dir, Name("/home/u/a.txt")))
	require.ErrorIs(t, err, ErrCorrupt)
	entries, err := List(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.ErrorIs(t, entries[0].Err, ErrCorrupt)

	target := filepath.Join(dir, "elsewhere")
	require.NoError(t, os.WriteFile(target, NewFile(testHeader("/home/u/b.txt")), 0o600))
	require.NoError(t, os.Symlink(target, filepath.Join(dir, Name("/home/u/b.txt"))))
	_, err = Read(dir, "/home/u/b.txt")
	require.Error(t, err)
	require.False(t, errors.Is(err, fs.ErrNotExist))
}

// The state directory follows XDG_STATE_HOME when it is absolute, and
// ~/.local/state otherwise.
func TestDirFollowsXDGStateHome(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	d, err := Dir()
	require.NoError(t, err)
	require.Equal(t, "/state/pmacs/journal", d)
	t.Setenv("XDG_STATE_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	d, err = Dir()
	require.NoError(t, err)
	require.Equal(t, "/home/u/.local/state/pmacs/journal", d)
}

// Acceptance (6): the decoder never panics, whatever the bytes, and what
// it accepts re-encodes to a journal it reads the same.
func FuzzDecode(f *testing.F) {
	data := NewFile(testHeader("/tmp/x.txt"))
	f.Add(append([]byte(nil), data...))
	for _, e := range testEdits {
		data = AppendEdit(data, e)
	}
	f.Add(append([]byte(nil), data...))
	f.Add(AppendSnapshot(append([]byte(nil), data...), []byte("a\r\nb")))
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error does not match ErrCorrupt: %v", err)
			}
			return
		}
		if j.Size+j.Dropped != int64(len(data)) {
			t.Fatalf("size %d + dropped %d != %d", j.Size, j.Dropped, len(data))
		}
		again := NewFile(j.Header)
		if j.HasSnapshot {
			again = AppendSnapshot(again, j.Snapshot)
		}
		for _, e := range j.Edits {
			again = AppendEdit(again, e)
		}
		k, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoded journal does not decode: %v", err)
		}
		if k.Header.Path != j.Header.Path || len(k.Edits) != len(j.Edits) || !strings.EqualFold(string(k.Snapshot), string(j.Snapshot)) {
			t.Fatalf("re-encoded journal differs")
		}
	})
}

// HashString is Hash of the string's bytes, and hashing a large text does
// not copy it (it did through io.WriteString: 60 MB for a 60 MB file).
func TestHashStringEqualsHashWithoutCopying(t *testing.T) {
	for _, s := range []string{"", "x", strings.Repeat("ab", 40_000)} {
		require.Equal(t, Hash([]byte(s)), HashString(s))
	}
	big := strings.Repeat("y", 8<<20)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	_ = HashString(big)
	runtime.ReadMemStats(&ms1)
	require.Less(t, ms1.TotalAlloc-ms0.TotalAlloc, uint64(1<<20), "hashing 8 MiB allocated")
}
