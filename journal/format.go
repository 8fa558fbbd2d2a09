package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"strings"
	"time"
)

// ErrCorrupt is matched (errors.Is) by every error about a journal's
// bytes: no header, a malformed record, a header naming another file.
var ErrCorrupt = errors.New("journal: corrupt journal")

// magic opens every journal; the last byte is the format's version.
const magic = "PMACSJN\x01"

// MaxRecord bounds one record's body: a snapshot of the largest text an
// editor opens (64 MiB of rows, saved with CRLF line breaks) fits.
const MaxRecord = 256 << 20

// frame is a record's length and checksum.
const frame = 8

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Base is what a file held when a journal's edits began.
type Base struct {
	Size    int64
	ModTime time.Time
	Hash    [32]byte // SHA-256 of the file's bytes (Hash)
}

// Header is a journal's first record.
type Header struct {
	// Path is the file the journal belongs to: absolute and clean.
	Path string
	Base Base
	// Created is when the journal was started.
	Created time.Time
}

// Edit replaces the text between (Row, Col) and (EndRow, EndCol), rows
// zero-based and columns in bytes of the row without its line break, with
// Text ("\n" between rows). Ends, when not nil, holds the line ending
// (true: CRLF) of each row Text makes, for a text whose rows end
// differently.
type Edit struct {
	Row, Col, EndRow, EndCol int
	Text                     string
	Ends                     []bool
}

// Journal is a decoded journal: its header, the last snapshot if any, and
// the edits after it.
type Journal struct {
	Header Header
	// HasSnapshot says Snapshot is the text the edits apply to (the file
	// as it would be saved); without one they apply to the base.
	HasSnapshot bool
	Snapshot    []byte
	Edits       []Edit
	// Records counts the records after the header, snapshots included.
	Records int
	// Size is the length of the journal's valid part: where the next
	// record goes once what was dropped is cut off.
	Size int64
	// Dropped is how many bytes at the end were not a whole record (a
	// crash during an append), and DropReason why, "" when none were.
	Dropped    int64
	DropReason string
}

// NewFile returns the bytes that start a journal: the magic and the
// header record.
func NewFile(h Header) []byte {
	b := []byte(magic)
	return appendRecord(b, func(body []byte) []byte {
		body = append(body, 'H')
		body = binary.AppendUvarint(body, uint64(len(h.Path)))
		body = append(body, h.Path...)
		body = binary.AppendUvarint(body, uint64(max(h.Base.Size, 0)))
		body = binary.AppendVarint(body, unixNano(h.Base.ModTime))
		body = append(body, h.Base.Hash[:]...)
		return binary.AppendVarint(body, unixNano(h.Created))
	})
}

// AppendSnapshot appends a snapshot record of text to dst.
func AppendSnapshot(dst, text []byte) []byte {
	return appendRecord(dst, func(body []byte) []byte {
		return append(append(body, 'S'), text...)
	})
}

// AppendEdit appends an edit record to dst.
func AppendEdit(dst []byte, e Edit) []byte {
	return appendRecord(dst, func(body []byte) []byte {
		body = append(body, 'E')
		for _, v := range []int{e.Row, e.Col, e.EndRow, e.EndCol} {
			body = binary.AppendUvarint(body, uint64(max(v, 0)))
		}
		body = binary.AppendUvarint(body, uint64(len(e.Text)))
		body = append(body, e.Text...)
		body = binary.AppendUvarint(body, uint64(len(e.Ends)))
		var bits byte
		for i, crlf := range e.Ends {
			if crlf {
				bits |= 1 << (i % 8)
			}
			if i%8 == 7 || i == len(e.Ends)-1 {
				body = append(body, bits)
				bits = 0
			}
		}
		return body
	})
}

// appendRecord frames the body fill appends.
func appendRecord(dst []byte, fill func([]byte) []byte) []byte {
	at := len(dst)
	dst = append(dst, make([]byte, frame)...)
	dst = fill(dst)
	body := dst[at+frame:]
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(body)))
	binary.LittleEndian.PutUint32(dst[at+4:], crc32.Checksum(body, castagnoli))
	return dst
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// Decode reads a whole journal. A torn or mismatched tail is dropped and
// reported in the result; a missing header or a malformed record is an
// error matching ErrCorrupt. The snapshot and texts are copies: data may
// be reused.
func Decode(data []byte) (*Journal, error) {
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		if len(data) >= len(magic) && string(data[:len(magic)-1]) == magic[:len(magic)-1] {
			return nil, fmt.Errorf("%w: format version %d, this editor reads %d", ErrCorrupt, data[len(magic)-1], magic[len(magic)-1])
		}
		return nil, fmt.Errorf("%w: not a journal (no magic)", ErrCorrupt)
	}
	j := &Journal{}
	off := len(magic)
	first := true
	for off < len(data) {
		body, reason := nextRecord(data[off:])
		if reason != "" {
			if first {
				return nil, fmt.Errorf("%w: no complete header (%s)", ErrCorrupt, reason)
			}
			j.Dropped, j.DropReason = int64(len(data)-off), reason
			break
		}
		if err := j.add(body, first); err != nil {
			return nil, fmt.Errorf("%w: record at offset %d: %w", ErrCorrupt, off, err)
		}
		first = false
		off += frame + len(body)
	}
	if first {
		return nil, fmt.Errorf("%w: no header", ErrCorrupt)
	}
	j.Size = int64(len(data)) - j.Dropped
	return j, nil
}

// DecodeHeader reads only the header at the start of data (the whole
// journal or its first bytes).
func DecodeHeader(data []byte) (Header, error) {
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return Header{}, fmt.Errorf("%w: not a journal of this version", ErrCorrupt)
	}
	body, reason := nextRecord(data[len(magic):])
	if reason != "" {
		return Header{}, fmt.Errorf("%w: no complete header (%s)", ErrCorrupt, reason)
	}
	var j Journal
	if err := j.add(body, true); err != nil {
		return Header{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return j.Header, nil
}

// nextRecord returns the body of the record at the start of data, or why
// there is no whole one there.
func nextRecord(data []byte) (body []byte, reason string) {
	if len(data) < frame {
		return nil, fmt.Sprintf("%d bytes, less than a record's frame", len(data))
	}
	n := binary.LittleEndian.Uint32(data)
	if n == 0 || n > MaxRecord {
		return nil, fmt.Sprintf("record length %d is outside 1 to %d", n, MaxRecord)
	}
	if int64(n) > int64(len(data)-frame) {
		return nil, fmt.Sprintf("record of %d bytes cut short at %d", n, len(data)-frame)
	}
	body = data[frame : frame+int(n)]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[4:]) {
		return nil, "checksum mismatch"
	}
	return body, ""
}

// reader takes fields off a record's body, remembering the first failure.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint(what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("bad %s", what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint(what string) int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("bad %s", what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// int reads a count or position, bounded so that it fits an int and no
// text could be that long.
func (r *reader) int(what string) int {
	v := r.uvarint(what)
	if v > MaxRecord*4 {
		r.fail("%s %d is out of range", what, v)
		return 0
	}
	return int(v)
}

// bytes takes n bytes, checked against what is left before anything is
// allocated.
func (r *reader) bytes(n uint64, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.fail("%s of %d bytes runs past the record (%d left)", what, n, len(r.b))
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

// add decodes one record's body into j.
func (j *Journal) add(body []byte, first bool) error {
	r := &reader{b: body[1:]}
	switch typ := body[0]; {
	case first && typ != 'H':
		return fmt.Errorf("the first record is %q, not the header", typ)
	case typ == 'H' && !first:
		return errors.New("a second header")
	case typ == 'H':
		h := &j.Header
		h.Path = string(r.bytes(r.uvarint("path length"), "path"))
		h.Base.Size = int64(r.int("base size"))
		h.Base.ModTime = fromUnixNano(r.varint("base time"))
		copy(h.Base.Hash[:], r.bytes(32, "base hash"))
		h.Created = fromUnixNano(r.varint("creation time"))
		if r.err == nil {
			switch {
			case !filepath.IsAbs(h.Path) || filepath.Clean(h.Path) != h.Path:
				r.fail("the header's path %q is not absolute and clean", h.Path)
			case strings.ContainsRune(h.Path, 0):
				r.fail("the header's path holds a NUL byte")
			}
		}
	case typ == 'S':
		j.HasSnapshot = true
		j.Snapshot = append([]byte(nil), r.b...)
		j.Edits = nil
		r.b = nil
		j.Records++
	case typ == 'E':
		var e Edit
		e.Row, e.Col = r.int("row"), r.int("column")
		e.EndRow, e.EndCol = r.int("end row"), r.int("end column")
		e.Text = string(r.bytes(r.uvarint("text length"), "text"))
		if n := r.uvarint("line ending count"); r.err == nil && n > 0 {
			bits := r.bytes((n+7)/8, "line endings")
			if r.err == nil {
				e.Ends = make([]bool, n)
				for i := range e.Ends {
					e.Ends[i] = bits[i/8]&(1<<(i%8)) != 0
				}
			}
		}
		if r.err == nil && (e.EndRow < e.Row || e.EndRow == e.Row && e.EndCol < e.Col) {
			r.fail("edit ends (%d:%d) before it starts (%d:%d)", e.EndRow, e.EndCol, e.Row, e.Col)
		}
		j.Edits = append(j.Edits, e)
		j.Records++
	default:
		return fmt.Errorf("unknown record type %q", typ)
	}
	if r.err == nil && len(r.b) > 0 {
		r.fail("%d bytes after the record's fields", len(r.b))
	}
	return r.err
}
