//go:build linux

package dirent

import (
	"bytes"
	"encoding/binary"

	"golang.org/x/sys/unix"

	"github.com/pmacs-go/pmacs-go/internal/eintr"
)

// Open opens the directory at path for reading, retrying EINTR.
func Open(path string) (int, error) {
	return eintr.Value(func() (int, error) {
		return unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
}

// The fixed part of struct linux_dirent64: u64 ino; s64 off; u16 reclen; u8 type; then the
// NUL-terminated name, padded.
const (
	offReclen = 16
	offType   = 18
	offName   = 19
)

// next parses the record at buf[off:], returning its name (nil for a record to skip: ".",
// "..", a deleted entry) and type byte, and the offset of the next record; a truncated
// record ends the batch (next == len(buf)).
func next(buf []byte, off int) (name []byte, typ byte, nextOff int) {
	if len(buf)-off < offName {
		return nil, 0, len(buf)
	}
	reclen := int(binary.NativeEndian.Uint16(buf[off+offReclen:]))
	if reclen < offName || reclen > len(buf)-off {
		return nil, 0, len(buf)
	}
	nextOff = off + reclen
	if binary.NativeEndian.Uint64(buf[off:]) == 0 {
		return nil, 0, nextOff // inode 0: an entry removed from the directory
	}
	name = buf[off+offName : nextOff]
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	if len(name) == 0 || (name[0] == '.' && (len(name) == 1 || (len(name) == 2 && name[1] == '.'))) {
		return nil, 0, nextOff
	}
	return name, buf[off+offType], nextOff
}

// getdents fills buf with one batch of records, retrying EINTR; 0 means the end.
func getdents(fd int, buf []byte) (int, error) {
	return eintr.Value(func() (int, error) { return unix.Getdents(fd, buf) })
}

// Read reads one batch of entries of the open directory fd into buf and appends them to dst,
// never "." or "..". more is false once the directory is exhausted. An entry whose type the
// file system does not report is lstat'ed relative to fd. buf should hold at least a few KiB:
// its size is how many entries one call reads, and so how often a caller that loops over Read
// can look at its context.
func Read(fd int, buf []byte, dst []Entry) (_ []Entry, more bool, err error) {
	n, err := getdents(fd, buf)
	if err != nil || n <= 0 {
		return dst, false, err
	}
	for off := 0; off < n; {
		var name []byte
		var typ byte
		name, typ, off = next(buf[:n], off)
		if name == nil {
			continue
		}
		e := Entry{Name: string(name)}
		switch typ {
		case unix.DT_REG:
			e.Type = File
		case unix.DT_DIR:
			e.Type = Dir
		case unix.DT_LNK:
			e.Type = Symlink
		case unix.DT_UNKNOWN:
			e.Type = lstatType(fd, e.Name)
		}
		dst = append(dst, e)
	}
	return dst, true, nil
}

// ReadNames is Read for a caller that needs only the names.
func ReadNames(fd int, buf []byte, dst []string) (_ []string, more bool, err error) {
	n, err := getdents(fd, buf)
	if err != nil || n <= 0 {
		return dst, false, err
	}
	for off := 0; off < n; {
		var name []byte
		name, _, off = next(buf[:n], off)
		if name != nil {
			dst = append(dst, string(name))
		}
	}
	return dst, true, nil
}

// lstatType serves file systems whose getdents does not report types. An entry that cannot
// be lstat'ed (removed since) is Other.
func lstatType(dirfd int, name string) Type {
	var st unix.Stat_t
	if eintr.Retry(func() error { return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }) != nil {
		return Other
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return File
	case unix.S_IFDIR:
		return Dir
	case unix.S_IFLNK:
		return Symlink
	}
	return Other
}
