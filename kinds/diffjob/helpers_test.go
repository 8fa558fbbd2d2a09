package diffjob

import (
	"bytes"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/bus/wire"
)

func encodeInts(ints []uint64) ([]byte, error) {
	var buf bytes.Buffer
	err := wire.EncodeUints(msgpack.NewEncoder(&buf), ints)
	return buf.Bytes(), err
}

func decodeBytes(b []byte) (any, error) {
	return hunksCodec{}.DecodeValue(msgpack.NewDecoder(bytes.NewReader(b)))
}
