package fsops

import (
	"context"

	"golang.org/x/sys/unix"
)

// dir is an open directory: names are read with getdents into one buffer and
// entries are described relative to the descriptor, so a 100,000-entry
// listing does no path joins and walks no path prefix per entry.
type dir struct {
	fd   int
	path string
	link []byte // scratch for readlink, reused across entries
}

// direntBuf is the getdents buffer: a few hundred short names per call,
// which is also the cancellation granularity of the name phase. 32 KiB calls
// on a 100,000-entry ext4 directory were measured taking up to 4 ms, too
// coarse for a 2 ms cancel; 8 KiB calls stay under 0.2 ms.
const direntBuf = 8 << 10

func openDir(path string) (*dir, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &dir{fd: fd, path: path}, nil
	}
}

func (d *dir) close() { _ = unix.Close(d.fd) }

func (d *dir) readNames(ctx context.Context, op string) ([]string, error) {
	buf := make([]byte, direntBuf)
	var names []string
	for {
		if err := checkCancel(ctx, op, d.path, ""); err != nil {
			return nil, err
		}
		n, err := unix.Getdents(d.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &PathError{Op: op, Path: d.path, Err: err}
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

// describe lstats one entry; op names the syscall that failed.
func (d *dir) describe(name string) (Entry, string, error) {
	return describeAt(d.fd, name, &d.link)
}

func lstatPath(path string) (Entry, string, error) {
	var scratch []byte
	return describeAt(unix.AT_FDCWD, path, &scratch)
}

func describeAt(dirfd int, name string, scratch *[]byte) (Entry, string, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return Entry{}, "lstat", err
		}
		break
	}
	e := Entry{
		Name:  name,
		Size:  st.Size,
		Mode:  st.Mode & 0o7777,
		MTime: st.Mtim.Nano(),
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		e.Kind = KindFile
	case unix.S_IFDIR:
		e.Kind = KindDir
	case unix.S_IFLNK:
		e.Kind = KindSymlink
		target, err := readlinkAt(dirfd, name, st.Size, scratch)
		if err != nil {
			return Entry{}, "readlink", err
		}
		e.Target = target
	default:
		e.Kind = KindOther
	}
	return e, "", nil
}

// readlinkAt reads a link target into the reusable scratch buffer, growing
// it when the target was truncated (st_size is only a hint: the link may
// have been replaced since the lstat, and some filesystems report 0).
func readlinkAt(dirfd int, name string, sizeHint int64, scratch *[]byte) (string, error) {
	n := int(max(sizeHint+1, 256))
	for {
		if cap(*scratch) < n {
			*scratch = make([]byte, n)
		}
		buf := (*scratch)[:n]
		k, err := unix.Readlinkat(dirfd, name, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return "", err
		}
		if k < len(buf) {
			return string(buf[:k]), nil
		}
		n *= 2
	}
}
