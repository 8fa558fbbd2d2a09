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
	f := newFramer(DefaultMaxFrame, func(b []byte) { bodies = append(bodies, string(b)) }, func(string) { malformed++ })
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

// A bad, missing, negative or duplicate Content-Length is counted and
// skipped, and the next good frame still arrives (malformed frames never
// hang or panic).
func TestFramerSkipsBadHeaders(t *testing.T) {
	for _, bad := range []string{
		"Content-Length: abc\r\n\r\n",
		"Content-Type: x\r\n\r\n",
		"Content-Length: -5\r\n\r\n",
		"Content-Length: 2\r\nContent-Length: 2\r\n\r\n",
		"Content-Length: +2\r\n\r\n",
		"Content-Length: 0x10\r\n\r\n",
		"Content-Length:\r\n\r\n",
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
	f := newFramer(DefaultMaxFrame, func([]byte) {}, func(string) {})
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
	f := newFramer(DefaultMaxFrame, func(b []byte) { kept = append(kept, b) }, func(string) {})
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

// A frame over the limit is never buffered: its bytes are skipped as they
// stream by, the scan finds its id wherever it is (gopls writes it after
// the result), and the frames around it arrive (issue 25 point 7: "a
// bigger frame ... the connection recovers").
func TestFramerSkipsAnOversizedFrameUnbuffered(t *testing.T) {
	const limit = 1 << 10
	big := `{"jsonrpc":"2.0","result":"` + strings.Repeat("x", 10<<20) + `","id":7}`
	stream := frameStream(`{"a":1}`, big, `{"b":2}`)
	var bodies []string
	var sizes []int64
	var heads []frameHead
	f := newFramer(limit, func(b []byte) { bodies = append(bodies, string(b)) }, func(string) { t.Fatal("malformed") })
	f.onOversize = func(n int64, h frameHead) { sizes, heads = append(sizes, n), append(heads, h) }
	const chunk = 32 << 10
	maxCap := 0
	for i := 0; i < len(stream); i += chunk {
		f.feed([]byte(stream[i:min(i+chunk, len(stream))]))
		maxCap = max(maxCap, cap(f.buf))
	}
	require.Equal(t, []string{`{"a":1}`, `{"b":2}`}, bodies)
	require.Equal(t, []int64{int64(len(big))}, sizes)
	require.Equal(t, "7", string(heads[0].id))
	require.False(t, heads[0].method)
	require.LessOrEqual(t, maxCap, limit+2*chunk, "the framer buffered the oversized frame")
}

// The scan reports a top-level id and method only: not one nested in a
// value, not one of a frame that is not a single object, and the same
// whatever the chunks.
func TestTopScanReadsOnlyTheTopLevel(t *testing.T) {
	for _, tc := range []struct {
		body   string
		id     string
		method bool
	}{
		{`{"jsonrpc":"2.0","id":12,"result":{"id":99}}`, "12", false},
		{`{"jsonrpc":"2.0","result":[{"id":1},"\"id\":2"],"id":3}`, "3", false},
		{` { "id" : "srv-1" , "method" : "workspace/applyEdit", "params":{} } `, `"srv-1"`, true},
		{`{"method":"window/logMessage","params":{"id":5,"message":"}"}}`, "", true},
		{`{"result":{"id":5}}`, "", false},
		{`{"id":{"x":1},"result":null}`, "", false},
		{`{"id":5,"result":null}Content-Length: 2`, "", false},
		{`[{"id":5}]`, "", false},
		{`{"id":5,"result":"never closed`, "", false},
		{`{"idx":5,"methods":"m"}`, "", false},
		{`{"i\"d":5}`, "", false},
		{`{"id":` + strings.Repeat("9", 100) + `}`, "", false},
	} {
		for cut := 0; cut <= len(tc.body); cut++ {
			var s topScan
			s.feed([]byte(tc.body[:cut]))
			s.feed([]byte(tc.body[cut:]))
			h := s.head()
			require.Equal(t, tc.id, string(h.id), "%s cut at %d", tc.body, cut)
			require.Equal(t, tc.method, h.method, "%s cut at %d", tc.body, cut)
		}
	}
}

// A Content-Length of 2 GiB or more (or past int64) is a broken stream:
// the framer says so once and reads nothing after it, so the client can
// restart the server instead of skipping gigabytes.
func TestFramerStopsAtABrokenLength(t *testing.T) {
	for _, length := range []string{"2147483648", "99999999999999999999999"} {
		var broken []string
		var bodies int
		f := newFramer(DefaultMaxFrame, func([]byte) { bodies++ }, func(string) {})
		f.onBroken = func(l string) { broken = append(broken, l) }
		f.feed([]byte(frameStream(`{}`) + "Content-Length: " + length + "\r\n\r\n" + frameStream(`{}`)))
		f.feed([]byte(frameStream(`{}`)))
		require.Equal(t, []string{length}, broken)
		require.Equal(t, 1, bodies)
		require.Nil(t, f.buf)
	}
}
