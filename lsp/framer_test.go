package lsp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func frameStream(bodies ...string) string {
	var b strings.Builder
	for _, body := range bodies {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	return b.String()
}

func runFramer(chunks ...string) (bodies []string, malformed int) {
	f := newFramer(func(b []byte) { bodies = append(bodies, string(b)) }, func(string) { malformed++ })
	for _, c := range chunks {
		f.feed([]byte(c))
	}
	return bodies, malformed
}

// Frames split at every possible byte boundary come out whole and in order
// (transport: Content-Length framing of arbitrary pipe reads).
func TestFramerReassemblesAtEveryBoundary(t *testing.T) {
	stream := frameStream(`{"a":1}`, `{"b":"é"}`, `[]`)
	for cut := 0; cut <= len(stream); cut++ {
		bodies, bad := runFramer(stream[:cut], stream[cut:])
		require.Equal(t, []string{`{"a":1}`, `{"b":"é"}`, `[]`}, bodies, "cut at %d", cut)
		require.Zero(t, bad)
	}
	bodies, _ := runFramer(strings.Split(stream, "")...)
	require.Len(t, bodies, 3)
}

// Header names are case-insensitive and other headers are ignored.
func TestFramerAcceptsOtherHeaders(t *testing.T) {
	bodies, bad := runFramer("content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}")
	require.Equal(t, []string{"{}"}, bodies)
	require.Zero(t, bad)
}

// A bad, missing, negative, duplicate or oversized Content-Length is
// counted and skipped, and the next good frame still arrives (malformed
// frames never hang or panic).
func TestFramerSkipsBadHeaders(t *testing.T) {
	for _, bad := range []string{
		"Content-Length: abc\r\n\r\n",
		"Content-Type: x\r\n\r\n",
		"Content-Length: -5\r\n\r\n",
		"Content-Length: 2\r\nContent-Length: 2\r\n\r\n",
		fmt.Sprintf("Content-Length: %d\r\n\r\n", MaxFrame+1),
		"garbage without colon\r\n\r\n",
	} {
		bodies, n := runFramer(bad + frameStream(`{"ok":true}`))
		require.Equal(t, []string{`{"ok":true}`}, bodies, "after %q", bad)
		require.Equal(t, 1, n, "after %q", bad)
	}
}

// Garbage that never ends a header block is dropped once it passes 64 KiB,
// so it cannot grow the buffer without bound.
func TestFramerBoundsEndlessHeader(t *testing.T) {
	f := newFramer(func([]byte) {}, func(string) {})
	junk := []byte(strings.Repeat("x", 4096))
	for range 100 {
		f.feed(junk)
	}
	require.Less(t, len(f.buf), 70<<10)
}

// Bodies handed out stay intact while later chunks are fed: the framer
// never writes over memory it gave away.
func TestFramerBodiesSurviveLaterFeeds(t *testing.T) {
	var kept [][]byte
	f := newFramer(func(b []byte) { kept = append(kept, b) }, func(string) {})
	var want []string
	for i := range 200 {
		body := fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", i%37))
		want = append(want, body)
		s := frameStream(body)
		// Two feeds per frame, cut mid-way, so bodies and tails share buffers.
		f.feed([]byte(s[:len(s)/2]))
		f.feed([]byte(s[len(s)/2:]))
	}
	require.Len(t, kept, len(want))
	for i := range want {
		require.Equal(t, want[i], string(kept[i]))
	}
}
