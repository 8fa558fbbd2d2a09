package lsp

import (
	"bytes"
	"strconv"
)

// MaxFrame caps one message's Content-Length. A larger header is counted as
// malformed and skipped: a 4 MB completion reply is large for LSP, and a
// length beyond this is far more likely a corrupt header than a real reply
// worth holding in memory.
const MaxFrame = 256 << 20

var (
	headerEnd     = []byte("\r\n\r\n")
	contentLength = []byte("content-length:")
)

// framer splits a byte stream into Content-Length framed bodies. It is fed
// chunks as the reader goroutine receives them and is not safe for
// concurrent use.
type framer struct {
	buf  []byte
	need int // body length of the frame being assembled; -1 while in headers
	// onBody receives each complete body; it may keep it (the framer does
	// not reuse a body's memory once handed over).
	onBody func(body []byte)
	// onMalformed is called once per header block it had to skip.
	onMalformed func(reason string)
}

func newFramer(onBody func([]byte), onMalformed func(string)) *framer {
	return &framer{need: -1, onBody: onBody, onMalformed: onMalformed}
}

// feed consumes a chunk. chunk may be reused by the caller afterwards.
func (f *framer) feed(chunk []byte) {
	f.buf = append(f.buf, chunk...)
	for {
		if f.need < 0 {
			end := bytes.Index(f.buf, headerEnd)
			if end < 0 {
				// Headers are short; a header block that never ends is
				// garbage, so keep only enough to find the next marker.
				if len(f.buf) > 64<<10 {
					f.onMalformed("header block without an end")
					f.resync(len(f.buf) - len(headerEnd))
				}
				return
			}
			n, ok := parseHeaders(f.buf[:end])
			if !ok {
				f.onMalformed("bad Content-Length header")
				f.resync(end + len(headerEnd))
				continue
			}
			f.buf = f.buf[end+len(headerEnd):]
			f.need = n
		}
		if len(f.buf) < f.need {
			if cap(f.buf) < f.need {
				// Grow once to the announced size instead of doubling
				// through a 4 MB reply.
				nb := make([]byte, len(f.buf), f.need)
				copy(nb, f.buf)
				f.buf = nb
			}
			return
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
	rest := f.buf[skip:]
	if i := indexFold(rest, contentLength); i >= 0 {
		f.buf = append([]byte(nil), rest[i:]...)
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

// parseHeaders returns the Content-Length of a header block. Other headers
// (Content-Type) are allowed and ignored.
func parseHeaders(block []byte) (int, bool) {
	n, found := -1, false
	for _, line := range bytes.Split(block, []byte("\r\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, false
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte("content-length")) {
			continue
		}
		v, err := strconv.Atoi(string(bytes.TrimSpace(value)))
		if err != nil || v < 0 || v > MaxFrame || found {
			return 0, false
		}
		n, found = v, true
	}
	return n, found
}

// appendFrame appends body with its header.
func appendFrame(dst, body []byte) []byte {
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, "\r\n\r\n"...)
	return append(dst, body...)
}
