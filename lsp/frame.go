package lsp

import (
	"bytes"
	"errors"
	"math"
	"strconv"
)

// Bounds of a message the client reads (Config.MaxFrame).
const (
	// DefaultMaxFrame is the largest message the client reads when
	// Config.MaxFrame is 0: a 6,000-item completion reply is 4.8 MB, so
	// this is ten times anything a server was seen to send.
	DefaultMaxFrame = 64 << 20
	// MinMaxFrame and MaxMaxFrame clamp Config.MaxFrame.
	MinMaxFrame = 64 << 10
	MaxMaxFrame = 1 << 30
	// BrokenFrame is the Content-Length from which a header is taken for a
	// broken stream rather than a message too large: no server sends 2
	// GiB, and a length past int32 is what a corrupt or hostile header
	// looks like. The client restarts the server at once instead of
	// skipping that much.
	BrokenFrame = 1 << 31
	// headerMax bounds a header block: past it without an end, the bytes
	// are garbage.
	headerMax = 64 << 10
)

var (
	headerEnd     = []byte("\r\n\r\n")
	contentLength = []byte("content-length:")
)

// framer splits a byte stream into Content-Length framed bodies. It is fed
// chunks as the reader goroutine receives them and is not safe for
// concurrent use. It never holds more than max body bytes plus one chunk:
// a frame announced larger is skipped as it streams by, its top level
// scanned for the "id" and "method" the client needs to answer for it.
type framer struct {
	max  int
	buf  []byte
	need int // body length of the frame being assembled; -1 while in headers
	// searched is how much of buf is known to hold no header end, so a
	// header that arrives a byte at a time is searched once, not once per
	// byte.
	searched int
	// skip is how many bytes of an oversized frame are still to come, of
	// size in all; scan follows its top level meanwhile.
	skip, size int64
	scan       topScan
	// stopped: a broken header was seen; nothing more is read.
	stopped bool

	// onBody receives each complete body; it may keep it (the framer does
	// not reuse a body's memory once handed over).
	onBody func(body []byte)
	// onMalformed is called once per header block it had to skip.
	onMalformed func(reason string)
	// onOversize is called once an oversized frame has streamed by, with
	// what its scan found.
	onOversize func(size int64, head frameHead)
	// onBroken is called for a Content-Length of BrokenFrame or more (the
	// header's value as sent); the framer reads nothing after it.
	onBroken func(length string)
}

func newFramer(max int, onBody func([]byte), onMalformed func(string)) *framer {
	return &framer{max: max, need: -1, onBody: onBody, onMalformed: onMalformed,
		onOversize: func(int64, frameHead) {}, onBroken: func(string) {}}
}

// feed consumes a chunk. chunk may be reused by the caller afterwards.
func (f *framer) feed(chunk []byte) {
	for len(chunk) > 0 && !f.stopped {
		if f.skip > 0 {
			chunk = f.skipBytes(chunk)
			continue
		}
		chunk = f.frames(chunk)
	}
}

// skipBytes passes over the oversized frame's bytes in chunk and returns
// what follows it.
func (f *framer) skipBytes(chunk []byte) []byte {
	n := int(min(int64(len(chunk)), f.skip))
	f.scan.feed(chunk[:n])
	f.skip -= int64(n)
	if f.skip == 0 {
		head := f.scan.head()
		f.scan = topScan{}
		f.onOversize(f.size, head)
	}
	return chunk[n:]
}

// frames buffers chunk and hands out the bodies it completes. When a
// header announces an oversized frame, it returns the bytes after that
// header, which the caller skips, unbuffered.
func (f *framer) frames(chunk []byte) []byte {
	f.buf = append(f.buf, chunk...)
	for {
		if f.need < 0 {
			from := max(f.searched-len(headerEnd)+1, 0)
			end := bytes.Index(f.buf[from:], headerEnd)
			if end < 0 {
				f.searched = len(f.buf)
				// Headers are short; a header block that never ends is
				// garbage, so keep only enough to find the next marker.
				if len(f.buf) > headerMax {
					f.onMalformed("header block without an end")
					f.resync(len(f.buf) - len(headerEnd))
				}
				return nil
			}
			end += from
			f.searched = 0
			n, raw, ok := parseHeaders(f.buf[:end])
			switch {
			case !ok:
				f.onMalformed("bad Content-Length header")
				f.resync(end + len(headerEnd))
				continue
			case n >= BrokenFrame:
				f.buf, f.stopped = nil, true
				f.onBroken(raw)
				return nil
			case n > int64(f.max):
				rest := f.buf[end+len(headerEnd):]
				f.buf = nil
				f.skip, f.size = n, n
				return rest
			}
			f.buf = f.buf[end+len(headerEnd):]
			f.need = int(n)
		}
		if len(f.buf) < f.need {
			if cap(f.buf) < f.need {
				// Grow once to the announced size (at most max) instead of
				// doubling through a 4 MB reply.
				nb := make([]byte, len(f.buf), f.need)
				copy(nb, f.buf)
				f.buf = nb
			}
			return nil
		}
		body := f.buf[:f.need:f.need]
		// Later appends write only past the end of the buffer, never over a
		// body handed out, so the rest needs no copy (copying it per frame
		// made a chunk of many small frames quadratic).
		f.buf = f.buf[f.need:]
		if len(f.buf) == 0 {
			f.buf = nil
		}
		f.need = -1
		f.onBody(body)
	}
}

// resync drops the first skip bytes and then everything before the next
// Content-Length header, so one corrupt header costs one frame at most.
func (f *framer) resync(skip int) {
	if skip < 0 {
		skip = 0
	}
	f.searched = 0
	rest := f.buf[skip:]
	if i := indexFold(rest, contentLength); i >= 0 {
		// Not copied: a run of bad headers in one chunk would copy the
		// chunk's rest once per header.
		f.buf = rest[i:]
		return
	}
	// Keep a tail that may hold the start of the next header.
	keep := len(contentLength) - 1
	if len(rest) < keep {
		keep = len(rest)
	}
	f.buf = append([]byte(nil), rest[len(rest)-keep:]...)
}

func indexFold(s, sep []byte) int {
	for i := 0; i+len(sep) <= len(s); i++ {
		if bytes.EqualFold(s[i:i+len(sep)], sep) {
			return i
		}
	}
	return -1
}

// parseHeaders returns the Content-Length of a header block and its value
// as sent (cut to 40 bytes, for messages). Other headers (Content-Type) are
// allowed and ignored. A length too large for an int64 is math.MaxInt64; a
// negative or non-numeric one, a duplicate or none is not ok.
func parseHeaders(block []byte) (int64, string, bool) {
	var n int64
	var raw string
	found := false
	for _, line := range bytes.Split(block, []byte("\r\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, "", false
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte("content-length")) {
			continue
		}
		value = bytes.TrimSpace(value)
		v, err := strconv.ParseInt(string(value), 10, 64)
		if errors.Is(err, strconv.ErrRange) && v > 0 {
			v, err = math.MaxInt64, nil
		}
		if err != nil || v < 0 || found || len(value) == 0 || value[0] == '+' {
			return 0, "", false
		}
		n, found = v, true
		raw = string(value[:min(len(value), 40)])
	}
	return n, raw, found
}

// appendFrame appends body with its header.
func appendFrame(dst, body []byte) []byte {
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, "\r\n\r\n"...)
	return append(dst, body...)
}

// frameHead is what the client learns of a message it does not read
// whole: its top-level "id" (raw JSON, nil when it has none or it could
// not be told) and whether it has a "method".
type frameHead struct {
	id     []byte
	method bool
}

// topScan follows the top level of a JSON object as its bytes stream by
// and keeps its "id" member and whether it has a "method", holding a few
// dozen bytes whatever the message's size. gopls writes "id" after
// "result", so the whole message must be followed, not only its start.
// It checks structure only as far as it needs to: on a frame that is not
// one object it gives up, and reports nothing.
type topScan struct {
	st     scanState
	depth  int // nesting inside a member's object or array value
	inStr  bool
	esc    bool
	name   [8]byte // the member name being read, enough for "method"
	nameN  int     // its length; past len(name) it is none of ours
	member byte    // 'i' for "id", 'm' for "method", 0 for another
	val    [64]byte
	valN   int // the id value's length so far; past len(val) it is too long
	id     []byte
	method bool
}

type scanState uint8

const (
	scStart  scanState = iota // before the top '{'
	scKey                     // expecting a member name or '}'
	scName                    // inside a member name
	scColon                   // after a name
	scValue                   // expecting a member's value
	scString                  // inside a string value
	scScalar                  // inside a number, true, false or null
	scNested                  // inside an object or array value
	scAfter                   // after a value: ',' or '}'
	scDone                    // the top object ended
	scBad                     // not an object
)

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (s *topScan) feed(b []byte) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch s.st {
		case scBad:
			return
		case scDone:
			// Bytes after the object mean the length was not this
			// message's: what it answered cannot be told.
			if !isJSONSpace(c) {
				s.st = scBad
				return
			}
		case scStart:
			switch {
			case isJSONSpace(c):
			case c == '{':
				s.st = scKey
			default:
				s.st = scBad
			}
		case scKey:
			switch {
			case isJSONSpace(c):
			case c == '"':
				s.st, s.nameN, s.esc = scName, 0, false
			case c == '}':
				s.st = scDone
			default:
				s.st = scBad
			}
		case scName:
			switch {
			case s.esc:
				s.esc = false
				s.nameByte(c)
			case c == '\\':
				s.esc = true
				s.nameByte(c)
			case c == '"':
				s.st = scColon
			default:
				s.nameByte(c)
			}
		case scColon:
			switch {
			case isJSONSpace(c):
			case c == ':':
				s.member = 0
				switch string(s.name[:min(s.nameN, len(s.name))]) {
				case "id":
					if s.nameN == 2 {
						s.member = 'i'
					}
				case "method":
					if s.nameN == 6 {
						s.member = 'm'
					}
				}
				s.st, s.valN = scValue, 0
			default:
				s.st = scBad
			}
		case scValue:
			switch {
			case isJSONSpace(c):
			case c == '"':
				s.st, s.esc = scString, false
				s.valByte(c)
			case c == '{' || c == '[':
				s.st, s.depth, s.inStr, s.esc = scNested, 1, false, false
			default:
				s.st = scScalar
				s.valByte(c)
			}
		case scString:
			s.valByte(c)
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.endValue(true)
			}
		case scScalar:
			if c == ',' || c == '}' || isJSONSpace(c) {
				s.endValue(true)
				i-- // the byte ends the value and is read as what follows it
				continue
			}
			s.valByte(c)
		case scNested:
			// The bulk of a large message: only strings and brackets matter.
			for ; i < len(b); i++ {
				c = b[i]
				if s.inStr {
					switch {
					case s.esc:
						s.esc = false
					case c == '\\':
						s.esc = true
					case c == '"':
						s.inStr = false
					}
					continue
				}
				switch c {
				case '"':
					s.inStr = true
				case '{', '[':
					s.depth++
				case '}', ']':
					s.depth--
				}
				if s.depth == 0 {
					s.endValue(false)
					break
				}
			}
		case scAfter:
			switch {
			case isJSONSpace(c):
			case c == ',':
				s.st = scKey
			case c == '}':
				s.st = scDone
			default:
				s.st = scBad
			}
		}
	}
}

func (s *topScan) nameByte(c byte) {
	if s.nameN < len(s.name) {
		s.name[s.nameN] = c
	}
	s.nameN++
}

func (s *topScan) valByte(c byte) {
	if s.valN < len(s.val) {
		s.val[s.valN] = c
	}
	s.valN++
}

// endValue closes a member's value; scalar says it was a string, number
// or literal, which is all an id may be.
func (s *topScan) endValue(scalar bool) {
	s.st = scAfter
	switch s.member {
	case 'i':
		if scalar && s.valN <= len(s.val) {
			s.id = append([]byte(nil), s.val[:s.valN]...)
		} else {
			s.id = nil
		}
	case 'm':
		s.method = true
	}
}

// head is what the scan found, once the frame has ended: nothing unless
// the frame held one whole object and nothing else.
func (s *topScan) head() frameHead {
	if s.st != scDone {
		return frameHead{}
	}
	return frameHead{id: s.id, method: s.method}
}
