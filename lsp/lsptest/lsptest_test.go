package lsptest

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A frame written by WriteMessage reads back as its JSON body; the end of
// the input is io.EOF, and a frame without a usable length is an error.
func TestMessagesRoundTripAndBadFramesFail(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteMessage(&buf, map[string]any{"id": 1}))
	require.NoError(t, WriteMessage(&buf, "é"))
	r := bufio.NewReader(&buf)
	body, err := ReadMessage(r)
	require.NoError(t, err)
	require.Equal(t, `{"id":1}`, string(body))
	body, err = ReadMessage(r)
	require.NoError(t, err)
	require.Equal(t, `"é"`, string(body))
	_, err = ReadMessage(r)
	require.ErrorIs(t, err, io.EOF)

	for _, in := range []string{"X-Other: 1\r\n\r\n{}", "Content-Length: -3\r\n\r\n", "Content-Length: 9\r\n\r\n{}"} {
		_, err := ReadMessage(bufio.NewReader(strings.NewReader(in)))
		require.Error(t, err, "%q", in)
	}
}
