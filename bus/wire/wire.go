// Package wire holds what every MessagePack codec on the bus needs to decode
// a payload from a worker without trusting it: length prefixes are checked
// against the bytes that must back them before anything is sized by them.
// The runtime's replies and each kind's codecs use it.
package wire

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
)

// RemainingBytes reports how many payload bytes d has left to read, when it
// reads from memory (the bus decoders read from a bytes.Reader).
func RemainingBytes(d *msgpack.Decoder) (int, bool) {
	if r, ok := d.Buffered().(interface{ Len() int }); ok {
		return r.Len(), true
	}
	return 0, false
}

// CheckClaim refuses a length prefix of n items when the payload does not
// hold the minItem bytes each of them needs at the least. That, and never
// sizing a slice or map by a prefix it has not checked, is what keeps a
// hostile few bytes from costing gigabytes: a fixed item bound would also
// refuse honest replies (an LSP semantic-tokens array of a mid-sized file
// has 70,000 integers). A decoder that does not read from memory skips the
// check; allocation is then still bounded by the items actually read.
func CheckClaim(d *msgpack.Decoder, what string, n, minItem int) error {
	if n < 0 {
		return nil
	}
	if left, ok := RemainingBytes(d); ok && n > left/minItem {
		return fmt.Errorf("%s claims %d items but only %d bytes remain", what, n, left)
	}
	return nil
}

// DecodeLen reads an array header whose items take at least minItem bytes
// each and refuses a length the payload cannot hold; a nil array is 0.
func DecodeLen(d *msgpack.Decoder, minItem int) (int, error) {
	n, err := d.DecodeArrayLen()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, nil
	}
	if err := CheckClaim(d, "array", n, minItem); err != nil {
		return 0, err
	}
	return n, nil
}
