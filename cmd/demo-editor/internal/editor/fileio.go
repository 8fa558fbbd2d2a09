package editor

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// maxFileBytes bounds what the editor opens: a buffer keeps the whole text
// in memory (once: rowStore indexes it with 32-bit offsets).
const maxFileBytes = 2 << 30

// errTooLarge is returned (wrapped) when a file is over maxFileBytes.
var errTooLarge = errors.New("file too large to edit")

// fileText is a file split into rows.
type fileText struct {
	// readOnly is set when the file exists and the user may not write it.
	readOnly bool
	lines    rowStore
	text     string // the whole file, whose slices the rows are
	bytes    int    // the file's size
	eol      bool   // the last row ended with a newline
	crlf     bool   // rows ended with CRLF; saved back the same way
	// ends holds each row's line break (true: CRLF) for a file that mixes
	// CRLF and LF; nil when all rows end alike. crlfRows and lfRows count
	// them, for the message that says so.
	ends             []bool
	crlfRows, lfRows int
	// binary is set when the first 8 KiB hold a NUL byte: such a file
	// opens read-only, since saving the rows back would not give back
	// the bytes it was read from in every case.
	binary bool
	// stamp is the file's size, mtime and hash as read (diskStamp).
	stamp diskStamp
}

// headBytes is how much of a file is read before the rest when head wants
// the first rows: enough for any window, and read in well under a
// millisecond.
const headBytes = 64 << 10

// readFileText reads and splits path. A missing file is an empty text (a new
// file the first save creates, ending with a newline like any text file),
// reported with exists false.
//
// For a file longer than twice headBytes, head (unless nil) is called
// first with the rows of its first headBytes (the complete ones), so the
// caller can show them while the rest is read and split: on a 60 MB file
// that is the difference between a first frame after a few milliseconds
// and one after the whole load. The rows are slices of the text being read
// and stay valid. head also gets the rows of the last headBytes (the
// complete ones, read apart), so the end of a 1 GB file shows as soon as
// its start, a second before the whole read: a move to the end while it
// loads goes to the end. A shorter file is read in one step, in well
// under a millisecond.
func readFileText(path string, head func(rows rowStore, tail []string)) (ft fileText, exists bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return fileText{lines: newRows([]string{""}), eol: true, stamp: diskStamp{known: true, at: time.Now()}}, false, nil
	}
	if err != nil {
		return ft, false, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ft, true, fmt.Errorf("open %s: %w", path, err)
	}
	if st.IsDir() {
		return ft, true, fmt.Errorf("open %s: is a directory", path)
	}
	if st.Size() > maxFileBytes {
		return ft, true, fmt.Errorf("open %s: %w (%d bytes, over %d MiB)", path, errTooLarge, st.Size(), maxFileBytes>>20)
	}
	readAt := time.Now()
	var glimpse func(string)
	if head != nil {
		glimpse = func(s string) {
			if i := strings.LastIndexByte(s, '\n'); i >= 0 {
				head(splitString(s[:i+1]).lines, readTail(f, st.Size()))
			}
		}
	}
	text, err := readText(f, st.Size(), glimpse)
	if err != nil {
		return ft, true, fmt.Errorf("read %s: %w", path, err)
	}
	if len(text) > maxFileBytes {
		return ft, true, fmt.Errorf("open %s: %w (over %d MiB)", path, errTooLarge, maxFileBytes>>20)
	}
	ft = splitString(text)
	ft.bytes = len(text)
	ft.stamp = stampOf(st, textHash(text), readAt)
	ft.readOnly = !canWrite(path)
	return ft, true, nil
}

// readText reads r (whose size is probably size) into one string, reading
// at most maxFileBytes+1 bytes. The string is the only copy of the text:
// the rows are found in it (rowStore), so a file costs its size once.
// Reading into a []byte and converting would copy the text
// a second time, and growing the buffer as the bytes come (io.ReadAll)
// leaves about the file's size again in garbage, which the collector
// (relaxed while the editor runs) keeps resident for a long while.
//
// With head non-nil and size over twice headBytes, head gets the first
// headBytes before the rest is read, and before the text's string is
// allocated: an allocation of 1 GB starts a collection, which the first
// frame then shared the cores with. Those bytes are copied into the text
// after (their rows stay slices of the copy head got).
func readText(r io.Reader, size int64, head func(s string)) (string, error) {
	lr := io.LimitReader(r, maxFileBytes+1)
	var first string
	if head != nil && size > 2*headBytes {
		hb := make([]byte, headBytes)
		n, err := io.ReadFull(lr, hb)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return "", err
		}
		first = string(hb[:n])
		head(first)
	}
	var sb strings.Builder
	sb.Grow(int(min(max(size, 0), maxFileBytes+1)))
	sb.WriteString(first)
	if _, err := io.CopyBuffer(&sb, lr, make([]byte, 256<<10)); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// readTail returns the complete rows of f's last headBytes (f being size
// bytes long), nil when they hold no line break or cannot be read: the
// preview goes without its end then, and the whole read reports errors.
func readTail(f *os.File, size int64) []string {
	buf := make([]byte, headBytes)
	n, err := f.ReadAt(buf, size-headBytes)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	s := string(buf[:n])
	i := strings.IndexByte(s, '\n')
	if i < 0 || i == len(s)-1 {
		return nil
	}
	ft := splitString(s[i+1:])
	return ft.lines.all()
}

// splitText is splitString over a copy of data.
func splitText(data []byte) fileText { return splitString(string(data)) }

// splitString splits a file's text into rows, which are found in s when
// asked for (rawText): no row is copied, and no string header is kept
// per row. It allocates the per-row line endings only when a second kind
// of line break turns up.
func splitString(s string) fileText {
	ft := fileText{text: s}
	ft.binary = strings.IndexByte(s[:min(len(s), 8<<10)], 0) >= 0
	if len(s) == 0 {
		ft.lines = newRows([]string{""})
		return ft
	}
	ft.eol = s[len(s)-1] == '\n'
	body := s
	if ft.eol {
		body = s[:len(s)-1]
	}
	n := strings.Count(body, "\n") + 1
	raw := &rawText{text: s, n: n, cp: make([]uint32, (n+rawStride-1)/rawStride)}
	// ends[i] says whether row i's line break is CRLF; it exists only once
	// both kinds were seen, so each row of a mixed file is saved back with
	// its own.
	var ends []bool
	crlfRows, lfRows := 0, 0
	off := 0
	for row := 0; row < n; row++ {
		if row&(rawStride-1) == 0 {
			raw.cp[row>>rawShift] = uint32(off)
		}
		i := strings.IndexByte(body[off:], '\n')
		// The last row has a line break only when the file ends with one,
		// and a CR without a LF after it is text.
		end := off + i
		if i < 0 {
			end = len(body)
		}
		hasBreak := i >= 0 || ft.eol
		crlf := hasBreak && end > off && body[end-1] == '\r'
		if hasBreak {
			if crlf {
				crlfRows++
			} else {
				lfRows++
			}
			if ends == nil && crlfRows > 0 && lfRows > 0 {
				ends = make([]bool, n)
				for r := range row {
					ends[r] = !crlf // every row before this one ended the other way
				}
			}
			if ends != nil {
				ends[row] = crlf
			}
		}
		off = end + 1
	}
	ft.lines = rawRows(raw)
	switch {
	case ends != nil:
		ft.ends = ends
		ft.crlfRows, ft.lfRows = crlfRows, lfRows
	case crlfRows > 0:
		ft.crlf = true
	}
	return ft
}

// joinText is the inverse of splitText: row i ends with CRLF when ends[i]
// (ends non-nil) or crlf (ends nil).
func joinText(lines *rowStore, eol, crlf bool, ends []bool) []byte {
	n, last := 0, lines.len()-1
	for _, l := range lines.rows(0, last+1) {
		n += len(l) + 2
	}
	out := make([]byte, 0, n)
	for i, l := range lines.rows(0, last+1) {
		out = append(out, l...)
		if i == last && !eol {
			break
		}
		if (ends == nil && crlf) || (ends != nil && ends[i]) {
			out = append(out, '\r')
		}
		out = append(out, '\n')
	}
	return out
}

// errDirNotWritable is returned (wrapped) by writeFileAtomic when the
// directory refuses the temporary file or the rename: the file itself may
// still be writable in place.
var errDirNotWritable = errors.New("directory not writable")

// writeFile saves data to path: atomically when it can (writeFileAtomic),
// and in place (writeInPlace) when the directory refuses the temporary file
// but the file itself is writable. inPlace says which happened.
func writeFile(path string, data []byte) (inPlace bool, err error) {
	err = writeFileAtomic(path, data)
	if !errors.Is(err, errDirNotWritable) {
		return false, err
	}
	if _, serr := os.Stat(path); serr != nil {
		return false, err // a new file needs the directory
	}
	if ierr := writeInPlace(path, data); ierr != nil {
		return false, fmt.Errorf("save %s in place (its directory is not writable): %w", path, ierr)
	}
	return true, nil
}

// writeFileAtomic replaces path with data so that a reader (or a crash)
// sees either the old file or the new one, never a half-written file: the
// data goes to a temporary file in the same directory (so the rename cannot
// cross filesystems), is synced, gets the old file's permission bits, and
// is renamed over path; the directory is then synced so the rename itself
// survives a crash. A symlink is followed, so the link stays a link and its
// target gets the new text. On failure the temporary file is removed, and
// errors never name it: the user knows only path. A directory that refuses
// the temporary file or the rename gives an error matching
// errDirNotWritable.
func writeFileAtomic(path string, data []byte) (err error) {
	target := path
	if resolved, rerr := filepath.EvalSymlinks(path); rerr == nil {
		target = resolved
	} else if !errors.Is(rerr, os.ErrNotExist) {
		return fmt.Errorf("save %s: %w", path, rerr)
	}
	mode := os.FileMode(0o644)
	if st, serr := os.Stat(target); serr == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("save %s: not a regular file", path)
		}
		mode = st.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky)
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	dirErr := func(err error) error {
		err = unwrapPath(err)
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("save %s: cannot write in %s (%w): %w", path, filepath.Clean(dir), err, errDirNotWritable)
		}
		return fmt.Errorf("save %s: cannot write in %s: %w", path, filepath.Clean(dir), err)
	}
	tmp, err := os.CreateTemp(dir, "."+base+".pmacs-save-*")
	if err != nil {
		return dirErr(err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	fail := func(err error) error { return fmt.Errorf("save %s: %w", path, unwrapPath(err)) }
	if _, err = tmp.Write(data); err != nil {
		return fail(err)
	}
	// CreateTemp makes the file 0600; the saved file keeps its own mode.
	if err = tmp.Chmod(mode); err != nil {
		return fail(err)
	}
	if err = tmp.Sync(); err != nil {
		return fail(err)
	}
	if err = tmp.Close(); err != nil {
		return fail(err)
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return dirErr(err)
	}
	// The new text is in place; a failed directory sync only weakens the
	// crash guarantee, so it is not reported as a failed save.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// writeInPlace overwrites path's bytes with data, for a file whose
// directory the user cannot write. The old bytes are read into memory
// first, so a write that fails half-way (a full disk, a file size limit)
// puts them back; the error says whether that worked.
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return unwrapPath(err)
	}
	defer f.Close()
	backup, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("cannot read the old text to keep a copy: %w", unwrapPath(err))
	}
	// Write first and cut the tail after, so the file is never empty.
	werr := overwrite(f, data)
	if werr == nil {
		return nil
	}
	if rerr := overwrite(f, backup); rerr != nil {
		return fmt.Errorf("%w; putting the old text back failed too (%w): the file is damaged, save again", werr, rerr)
	}
	return fmt.Errorf("%w (the old text was put back)", werr)
}

// overwrite makes f's content data.
func overwrite(f *os.File, data []byte) error {
	if _, err := f.WriteAt(data, 0); err != nil {
		return unwrapPath(err)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return unwrapPath(err)
	}
	return unwrapPath(f.Sync())
}

// unwrapPath drops the *os.PathError around an errno: the caller names the
// file already.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
