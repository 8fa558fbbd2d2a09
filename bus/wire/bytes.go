package wire

import (
	"encoding/binary"
	"math"
)

// Bytes reads msgpack forms straight from a payload, for decoders that know
// a faster way than msgpack.Decoder for the forms their encoders write. Each
// method reports false, reading nothing useful, when the bytes are not in
// the form it reads.
type Bytes struct {
	P []byte // the payload
	I int    // where the next read starts
}

// Left is how many bytes are still to read.
func (w *Bytes) Left() int { return len(w.P) - w.I }

// Byte reads one byte.
func (w *Bytes) Byte() (byte, bool) {
	if w.I >= len(w.P) {
		return 0, false
	}
	c := w.P[w.I]
	w.I++
	return c, true
}

// Next returns the next n bytes.
func (w *Bytes) Next(n int) ([]byte, bool) {
	if n < 0 || n > w.Left() {
		return nil, false
	}
	b := w.P[w.I : w.I+n]
	w.I += n
	return b, true
}

// Uint reads an unsigned integer in the compact forms EncodeUint writes.
func (w *Bytes) Uint() (uint64, bool) {
	c, ok := w.Byte()
	if !ok {
		return 0, false
	}
	if c <= 0x7f {
		return uint64(c), true
	}
	// One load of the width's size per form: a copy of a variable width
	// into a padded buffer costs a memmove call, which showed in every
	// reply's decode.
	switch c {
	case 0xcc:
		if b, ok := w.Next(1); ok {
			return uint64(b[0]), true
		}
	case 0xcd:
		if b, ok := w.Next(2); ok {
			return uint64(binary.BigEndian.Uint16(b)), true
		}
	case 0xce:
		if b, ok := w.Next(4); ok {
			return uint64(binary.BigEndian.Uint32(b)), true
		}
	case 0xcf:
		if b, ok := w.Next(8); ok {
			return binary.BigEndian.Uint64(b), true
		}
	}
	return 0, false
}

// Uint32 reads an unsigned integer that fits in 32 bits.
func (w *Bytes) Uint32() (uint32, bool) {
	v, ok := w.Uint()
	if !ok || v > math.MaxUint32 {
		return 0, false
	}
	return uint32(v), true
}

// ArrayLen reads an array header (not nil).
func (w *Bytes) ArrayLen() (int, bool) {
	c, ok := w.Byte()
	if !ok {
		return 0, false
	}
	switch {
	case c >= 0x90 && c <= 0x9f:
		return int(c & 0x0f), true
	case c == 0xdc:
		b, ok := w.Next(2)
		if !ok {
			return 0, false
		}
		return int(binary.BigEndian.Uint16(b)), true
	case c == 0xdd:
		b, ok := w.Next(4)
		if !ok {
			return 0, false
		}
		n := binary.BigEndian.Uint32(b)
		if uint64(n) > uint64(w.Left()) {
			return 0, false
		}
		return int(n), true
	}
	return 0, false
}

// Str reads a str-coded string's bytes (not nil, not bin).
func (w *Bytes) Str() ([]byte, bool) {
	c, ok := w.Byte()
	if !ok {
		return nil, false
	}
	var n int
	switch {
	case c >= 0xa0 && c <= 0xbf:
		n = int(c & 0x1f)
	case c == 0xd9:
		b, ok := w.Next(1)
		if !ok {
			return nil, false
		}
		n = int(b[0])
	case c == 0xda:
		b, ok := w.Next(2)
		if !ok {
			return nil, false
		}
		n = int(binary.BigEndian.Uint16(b))
	case c == 0xdb:
		b, ok := w.Next(4)
		if !ok {
			return nil, false
		}
		if v := binary.BigEndian.Uint32(b); uint64(v) <= uint64(w.Left()) {
			n = int(v)
		} else {
			return nil, false
		}
	default:
		return nil, false
	}
	return w.Next(n)
}
