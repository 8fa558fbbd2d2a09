//go:build linux

package dirent

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// makeDir fills a directory with every kind of entry and long names.
func makeDir(t *testing.T) (string, map[string]Type) {
	t.Helper()
	dir := t.TempDir()
	want := map[string]Type{}
	for i := range 300 {
		name := strings.Repeat("f", i%255+1) + "_" + string(rune('a'+i%26))
		if len(name) > 255 {
			name = name[len(name)-255:]
		}
		name = name[:min(len(name), 250)] + "." + string(rune('0'+i%10)) + string(rune('a'+i/26))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
		want[name] = File
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	want["sub"] = Dir
	require.NoError(t, os.Symlink("sub", filepath.Join(dir, "link")))
	want["link"] = Symlink
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	want["fifo"] = Other
	want[".hidden"] = File
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".hidden"), nil, 0o644))
	return dir, want
}

// Read and ReadNames report every entry once, never "." or "..", with its type, whatever the
// buffer size (a small buffer takes many batches).
func TestReadReportsEveryEntryWithItsType(t *testing.T) {
	dir, want := makeDir(t)
	for _, size := range []int{512, 4 << 10, 64 << 10} {
		fd, err := Open(dir)
		require.NoError(t, err)
		buf := make([]byte, size)
		var got []Entry
		batches := 0
		for more := true; more; batches++ {
			got, more, err = Read(fd, buf, got)
			require.NoError(t, err)
		}
		require.NoError(t, unix.Close(fd))
		gotMap := map[string]Type{}
		for _, e := range got {
			_, dup := gotMap[e.Name]
			require.False(t, dup, "%q twice", e.Name)
			gotMap[e.Name] = e.Type
		}
		require.Equal(t, want, gotMap, "buffer %d", size)
		if size == 512 {
			require.Greater(t, batches, 10)
		}

		fd, err = Open(dir)
		require.NoError(t, err)
		var names []string
		for more := true; more; {
			names, more, err = ReadNames(fd, buf, names)
			require.NoError(t, err)
		}
		require.NoError(t, unix.Close(fd))
		sort.Strings(names)
		wantNames := slices.Sorted(func(yield func(string) bool) {
			for n := range want {
				if !yield(n) {
					return
				}
			}
		})
		require.Equal(t, wantNames, names)
	}
}

// Open and Read report errors: a missing path, a file, a closed descriptor.
func TestOpenAndReadReportErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(filepath.Join(dir, "missing"))
	require.ErrorIs(t, err, unix.ENOENT)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), nil, 0o644))
	_, err = Open(filepath.Join(dir, "f"))
	require.ErrorIs(t, err, unix.ENOTDIR)
	_, more, err := Read(-1, make([]byte, 4096), nil)
	require.ErrorIs(t, err, unix.EBADF)
	require.False(t, more)
}

// record builds one linux_dirent64 record, padded to 8 bytes.
func record(ino uint64, typ byte, name string) []byte {
	reclen := (offName + len(name) + 1 + 7) &^ 7
	r := make([]byte, reclen)
	binary.NativeEndian.PutUint64(r, ino)
	binary.NativeEndian.PutUint16(r[offReclen:], uint16(reclen))
	r[offType] = typ
	copy(r[offName:], name)
	return r
}

// The parser skips ".", "..", deleted (inode 0) records, and stops at a truncated or
// malformed record rather than reading past the buffer.
func TestNextSkipsAndStopsSafely(t *testing.T) {
	var buf []byte
	buf = append(buf, record(1, unix.DT_DIR, ".")...)
	buf = append(buf, record(2, unix.DT_DIR, "..")...)
	buf = append(buf, record(0, unix.DT_REG, "gone")...)
	buf = append(buf, record(3, unix.DT_REG, "kept")...)
	good := len(buf)
	bad := record(4, unix.DT_REG, "bad")
	binary.NativeEndian.PutUint16(bad[offReclen:], 4) // shorter than the fixed part
	buf = append(buf, bad...)
	buf = append(buf, record(5, unix.DT_REG, "after")...)
	var names []string
	for off := 0; off < len(buf); {
		var name []byte
		name, _, off = next(buf, off)
		if name != nil {
			names = append(names, string(name))
		}
	}
	require.Equal(t, []string{"kept"}, names)

	trunc := buf[:good+10] // a record cut short
	names = names[:0]
	for off := 0; off < len(trunc); {
		var name []byte
		name, _, off = next(trunc, off)
		if name != nil {
			names = append(names, string(name))
		}
	}
	require.Equal(t, []string{"kept"}, names)
}
