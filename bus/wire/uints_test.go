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

// Bytes.Uint reads every width msgpack's EncodeUint writes, leaving the
// reader after the integer, and refuses a form cut short or of another type.
func TestBytesUintReadsEveryWidth(t *testing.T) {
	for _, v := range []uint64{0, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0xffffffff, 0x100000000, 1<<64 - 1} {
		var buf bytes.Buffer
		require.NoError(t, msgpack.NewEncoder(&buf).EncodeUint(v))
		p := append(buf.Bytes(), 0x01)
		w := Bytes{P: p}
		got, ok := w.Uint()
		require.True(t, ok, "%#x", v)
		require.Equal(t, v, got)
		require.Equal(t, 1, w.Left(), "%#x: the reader stops after the integer", v)
		short := Bytes{P: buf.Bytes()[:buf.Len()-1]}
		if buf.Len() > 1 {
			_, ok = short.Uint()
			require.False(t, ok, "%#x cut short", v)
		}
	}
	for _, p := range [][]byte{{}, {0xc0}, {0xd0, 0x01}, {0xa1, 'x'}} {
		w := Bytes{P: p}
		_, ok := w.Uint()
		require.False(t, ok, "% x", p)
	}
}
