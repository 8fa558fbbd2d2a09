package wire

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"
)

// Integer batches round-trip, and an array that claims more items than
// its bytes can hold is refused before anything is allocated for them.
func TestUintsRoundTripAndForgedLength(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, EncodeUints(msgpack.NewEncoder(&buf), []uint64{0, 7, 1 << 40}))
	got, err := DecodeUints(msgpack.NewDecoder(bytes.NewReader(buf.Bytes())), 16)
	require.NoError(t, err)
	require.Equal(t, []uint64{0, 7, 1 << 40}, got)

	forged := []byte{0xdd, 0x3b, 0x9a, 0xca, 0x00, 0x01} // array32 of 10^9, one item
	_, err = DecodeUints(msgpack.NewDecoder(bytes.NewReader(forged)), 16)
	require.Error(t, err)
}
