package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Ext ends every journal's name.
const Ext = ".pmj"

// MaxFile bounds the journal Read decodes: a snapshot of the largest text
// and a log as long as compaction allows fit many times over.
const MaxFile = 1 << 30

// Dir is where journals live: $XDG_STATE_HOME/pmacs/journal, or
// ~/.local/state/pmacs/journal when XDG_STATE_HOME is unset or relative
// (the XDG spec says to ignore a relative one). It need not exist.
func Dir() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("journal: no state directory (XDG_STATE_HOME and HOME are unset): %w", err)
		}
		if !filepath.IsAbs(home) {
			return "", fmt.Errorf("journal: home directory %q is not absolute", home)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "pmacs", "journal"), nil
}

// Name is the file name of path's journal: a hash of the path, so any
// path gives a plain name of one length.
func Name(path string) string {
	sum := sha256.Sum256([]byte(path))
	return hex.EncodeToString(sum[:16]) + Ext
}

// Hash is the hash a Base records.
func Hash(data []byte) [32]byte { return sha256.Sum256(data) }

// HashString is Hash of a string's bytes. The hash takes no string, and
// io.WriteString would copy the whole text (a 60 MB file's hash cost 60 MB
// of heap at its open): the string goes through a small buffer instead.
func HashString(s string) [32]byte {
	h := sha256.New()
	var buf [32 << 10]byte
	for len(s) > 0 {
		n := copy(buf[:], s)
		h.Write(buf[:n])
		s = s[n:]
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// Create writes data (NewFile, then records) as path's journal in dir,
// replacing any journal there atomically: a temporary file in dir, synced,
// renamed over the journal, and the directory synced, so a crash leaves
// the old journal or the new one. dir is made 0700 if missing, the journal
// is 0600.
func Create(dir, path string, data []byte) (err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".new-*")
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("journal: write %s: %w", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("journal: sync %s: %w", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err = os.Rename(tmp.Name(), filepath.Join(dir, Name(path))); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return syncDir(dir)
}

// Append writes records (AppendEdit, AppendSnapshot) at offset size of
// path's journal in dir, cutting off whatever lay beyond size first (a
// torn record of an append that failed), and syncs the file.
func Append(dir, path string, size int64, records []byte) error {
	name := filepath.Join(dir, Name(path))
	f, err := os.OpenFile(name, os.O_WRONLY|noFollow, 0)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if st.Size() < size {
		return fmt.Errorf("journal: %s is %d bytes, shorter than the %d written to it", name, st.Size(), size)
	}
	if st.Size() > size {
		if err := f.Truncate(size); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
	}
	if _, err := f.WriteAt(records, size); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("journal: sync %s: %w", name, err)
	}
	return nil
}

// Remove deletes path's journal in dir; a missing one is no error.
func Remove(dir, path string) error {
	return RemoveFile(filepath.Join(dir, Name(path)))
}

// RemoveFile deletes the journal file name; a missing one is no error.
func RemoveFile(name string) error {
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// Read decodes path's journal in dir; a missing one is an error matching
// fs.ErrNotExist. A journal that is not for path is an error matching
// ErrCorrupt.
func Read(dir, path string) (*Journal, error) {
	j, err := ReadFile(filepath.Join(dir, Name(path)))
	if err != nil {
		return nil, err
	}
	if j.Header.Path != path {
		return nil, fmt.Errorf("%w: the journal for %s claims to be for %s", ErrCorrupt, path, j.Header.Path)
	}
	return j, nil
}

// ReadFile decodes the journal in file name: a regular file of at most
// MaxFile bytes, named for the path its header claims.
func ReadFile(name string) (*Journal, error) {
	data, err := readBounded(name, MaxFile)
	if err != nil {
		return nil, err
	}
	j, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if want := Name(j.Header.Path); filepath.Base(name) != want {
		return nil, fmt.Errorf("%s: %w: its header claims %s, whose journal is named %s", name, ErrCorrupt, j.Header.Path, want)
	}
	return j, nil
}

// readBounded reads a regular file (no symlink followed) of at most limit
// bytes.
func readBounded(name string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("journal: %s: %w: not a regular file", name, ErrCorrupt)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("journal: %s: %w: %d bytes, over the %d a journal may have", name, ErrCorrupt, st.Size(), limit)
	}
	data := make([]byte, 0, st.Size())
	for {
		if len(data) == cap(data) {
			data = slices.Grow(data, 4096)
		}
		n, err := f.Read(data[len(data):min(cap(data), int(limit)+1)])
		data = data[:len(data)+n]
		if int64(len(data)) > limit {
			return nil, fmt.Errorf("journal: %s: %w: over the %d bytes a journal may have", name, ErrCorrupt, limit)
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
	}
}

// Entry is one journal found by List.
type Entry struct {
	File    string // the journal's file
	Header  Header // zero when Err is set
	Size    int64
	ModTime time.Time // the journal's last write
	Err     error     // why its header cannot be read
}

// List returns the journals in dir, newest first; a missing dir holds
// none. Only headers are read.
func List(dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var out []Entry
	for _, de := range des {
		if !strings.HasSuffix(de.Name(), Ext) || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		e := Entry{File: filepath.Join(dir, de.Name())}
		if info, err := de.Info(); err == nil {
			e.Size, e.ModTime = info.Size(), info.ModTime()
		}
		e.Header, e.Err = readHeader(e.File)
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int { return b.ModTime.Compare(a.ModTime) })
	return out, nil
}

// readHeader reads the header of the journal in name, checking its name.
func readHeader(name string) (Header, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return Header{}, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return Header{}, fmt.Errorf("journal: %w", err)
	}
	h, err := DecodeHeader(buf[:n])
	if err != nil {
		return Header{}, fmt.Errorf("%s: %w", name, err)
	}
	if want := Name(h.Path); filepath.Base(name) != want {
		return Header{}, fmt.Errorf("%s: %w: its header claims %s, whose journal is named %s", name, ErrCorrupt, h.Path, want)
	}
	return h, nil
}

// syncDir makes a rename in dir survive a crash; a directory that cannot
// be synced (some filesystems refuse) only weakens that.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer d.Close()
	_ = d.Sync()
	return nil
}
