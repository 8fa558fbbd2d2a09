//go:build linux

package walk

import (
	"bytes"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readDir lists path with getdents64 into the caller's reused buffer, so an entry costs no
// stat call: the kernel reports each entry's type. It also returns the directory's
// modification time (nanoseconds since the epoch), read from the open descriptor.
func readDir(path string, buf []byte, dst []dirEntry, stopped func() bool) ([]dirEntry, int64, error) {
	fd, err := openRetry(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		return dst, 0, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return dst, 0, err
	}
	for !stopped() {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return dst, 0, err
		}
		if n <= 0 {
			break
		}
		for off := 0; off < n; {
			// struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
			reclen := int(*(*uint16)(unsafe.Pointer(&buf[off+16])))
			typ := buf[off+18]
			name := buf[off+19 : off+reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off += reclen
			if len(name) == 0 || (name[0] == '.' && (len(name) == 1 || (len(name) == 2 && name[1] == '.'))) {
				continue
			}
			e := dirEntry{name: string(name)}
			switch typ {
			case unix.DT_REG:
				e.kind = kindFile
			case unix.DT_DIR:
				e.kind = kindDir
			case unix.DT_LNK:
				e.kind = kindSymlink
			case unix.DT_UNKNOWN:
				e.kind = lstatKind(fd, e.name)
			}
			dst = append(dst, e)
		}
	}
	return dst, st.Mtim.Nano(), nil
}

// lstatKind serves file systems whose getdents does not report types.
func lstatKind(dirfd int, name string) entryKind {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return kindOther
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return kindFile
	case unix.S_IFDIR:
		return kindDir
	case unix.S_IFLNK:
		return kindSymlink
	}
	return kindOther
}

func openRetry(path string, flags int) (int, error) {
	for {
		fd, err := unix.Open(path, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
