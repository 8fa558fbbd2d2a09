package wire

import "github.com/vmihailenco/msgpack/v5"

// EncodeUints writes s as a msgpack array of unsigned integers: the item
// form of the kinds whose batches are plain integers (text search's
// matches, the demo kind's numbers).
func EncodeUints(e *msgpack.Encoder, s []uint64) error {
	if err := e.EncodeArrayLen(len(s)); err != nil {
		return err
	}
	for _, v := range s {
		if err := e.EncodeUint(v); err != nil {
			return err
		}
	}
	return nil
}

// DecodeUints reads what EncodeUints wrote. The array's claimed length is
// checked against the bytes left (DecodeLen), and the slice grows from at
// most capHint, so a forged length allocates nothing up front.
func DecodeUints(d *msgpack.Decoder, capHint int) ([]uint64, error) {
	n, err := DecodeLen(d, 1)
	if err != nil {
		return nil, err
	}
	out := make([]uint64, 0, min(n, capHint))
	for range n {
		v, err := d.DecodeUint64()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
