package proc

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// got is a delivered line with its text copied out of the reader's buffer.
type got struct {
	Stream    Stream
	Text      string
	Partial   bool
	Truncated bool
}

func collect(dst *[]got) func([]Line) error {
	return func(ls []Line) error {
		for _, l := range ls {
			*dst = append(*dst, got{l.Stream, string(l.Text), l.Partial, l.Truncated})
		}
		return nil
	}
}

// oneByteReader returns one byte per read, so every line and every "\r\n"
// straddles a read boundary.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }

func splitAll(t *testing.T, input string, maxLine int, chunked bool) []got {
	t.Helper()
	var out []got
	sp := newSplitter(Stdout, maxLine, collect(&out))
	var r io.Reader = strings.NewReader(input)
	if chunked {
		r = oneByteReader{r}
	}
	require.NoError(t, sp.run(r))
	return out
}

// TestSplitLines covers the line-splitting acceptance table (CRLF, missing
// final newline, NUL bytes, invalid UTF-8, long lines, empty lines), each
// case fed both whole and one byte per read.
func TestSplitLines(t *testing.T) {
	line := func(s string) got { return got{Stream: Stdout, Text: s} }
	partial := func(s string) got { return got{Stream: Stdout, Text: s, Partial: true} }
	cut := func(s string) got { return got{Stream: Stdout, Text: s, Truncated: true} }
	cases := []struct {
		name string
		in   string
		max  int
		want []got
	}{
		{"lf", "a\nbc\n", 0, []got{line("a"), line("bc")}},
		{"crlf", "a\r\nbc\r\n", 0, []got{line("a"), line("bc")}},
		{"mixed endings", "a\r\nb\nc\r\n", 0, []got{line("a"), line("b"), line("c")}},
		{"lone cr kept", "a\rb\n", 0, []got{line("a\rb")}},
		{"missing final newline", "a\nlast", 0, []got{line("a"), partial("last")}},
		{"final cr without lf", "a\r", 0, []got{partial("a\r")}},
		{"empty lines", "\n\n\r\nx\n\n", 0, []got{line(""), line(""), line(""), line("x"), line("")}},
		{"nothing", "", 0, nil},
		{"nul bytes", "a\x00b\n\x00\n", 0, []got{line("a\x00b"), line("\x00")}},
		{"invalid utf8", "\xff\xfe\xc3(\n", 0, []got{line("\xff\xfe\xc3(")}},
		{"exactly max", "abcd\n", 4, []got{line("abcd")}},
		{"exactly max crlf", "abcd\r\nx\n", 4, []got{line("abcd"), line("x")}},
		{"max plus one", "abcde\nx\n", 4, []got{cut("abcd"), line("x")}},
		{"max plus cr then more", "abcd\ref\nx\n", 4, []got{cut("abcd"), line("x")}},
		{"long line rest dropped", "abcdefghij\r\nk\n", 4, []got{cut("abcd"), line("k")}},
		{"long partial", "abcdefghij", 4, []got{cut("abcd")}},
		{"long line then partial", "abcdefgh\nxy", 4, []got{cut("abcd"), partial("xy")}},
	}
	for _, tc := range cases {
		for _, chunked := range []bool{false, true} {
			name := tc.name
			if chunked {
				name += "/byte-reads"
			}
			t.Run(name, func(t *testing.T) {
				max := tc.max
				if max == 0 {
					max = DefaultMaxLine
				}
				require.Equal(t, tc.want, splitAll(t, tc.in, max, chunked))
			})
		}
	}
}

// TestSplitTwoMiBLine: a 2 MiB line under the default 1 MiB cap is cut to
// exactly 1 MiB with Truncated, its rest is dropped, the next line arrives
// intact, and the buffer never grew past the cap plus one read.
func TestSplitTwoMiBLine(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), (2<<20)/16)
	in := string(big) + "\r\nnext\n"
	var out []got
	sp := newSplitter(Stdout, DefaultMaxLine, collect(&out))
	require.NoError(t, sp.run(strings.NewReader(in)))
	require.Len(t, out, 2)
	require.True(t, out[0].Truncated)
	require.Equal(t, string(big[:DefaultMaxLine]), out[0].Text)
	require.Equal(t, got{Stream: Stdout, Text: "next"}, out[1])
	require.LessOrEqual(t, len(sp.buf), sp.limit())
}

// TestSplitBatchesAreBounded: a flood of short lines arrives in batches of
// at most BatchLines, in order.
func TestSplitBatchesAreBounded(t *testing.T) {
	var sb strings.Builder
	for i := range 10_000 {
		sb.WriteString(strings.Repeat("x", i%7))
		sb.WriteByte('\n')
	}
	n, maxBatch := 0, 0
	sp := newSplitter(Stderr, DefaultMaxLine, func(ls []Line) error {
		maxBatch = max(maxBatch, len(ls))
		for _, l := range ls {
			if len(l.Text) != n%7 || l.Stream != Stderr {
				return io.ErrUnexpectedEOF
			}
			n++
		}
		return nil
	})
	require.NoError(t, sp.run(strings.NewReader(sb.String())))
	require.Equal(t, 10_000, n)
	require.LessOrEqual(t, maxBatch, BatchLines)
}

// TestSplitEmitErrorStops: an error from the consumer ends the split at once
// and is returned.
func TestSplitEmitErrorStops(t *testing.T) {
	calls := 0
	sp := newSplitter(Stdout, DefaultMaxLine, func([]Line) error {
		calls++
		return io.ErrClosedPipe
	})
	err := sp.run(oneByteReader{strings.NewReader("a\nb\nc\n")})
	require.ErrorIs(t, err, io.ErrClosedPipe)
	require.Equal(t, 1, calls)
}
