package proc

import (
	"bytes"
	"io"
	"testing"
)

// chunkReader returns the input in reads of the sizes given (cycling), so
// lines, "\r\n" pairs and cut points straddle read boundaries.
type chunkReader struct {
	data  []byte
	sizes []byte
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := 1 + int(c.sizes[c.i%len(c.sizes)])
	c.i++
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// referenceLines splits the way the package doc says, the naive way.
func referenceLines(in []byte, maxLine int) []got {
	var out []got
	segs := bytes.Split(in, []byte("\n"))
	for i, s := range segs {
		last := i == len(segs)-1
		if last && len(s) == 0 {
			break
		}
		g := got{Stream: Stdout, Partial: last}
		if !last {
			s = bytes.TrimSuffix(s, []byte("\r"))
		}
		if len(s) > maxLine {
			s, g.Truncated = s[:maxLine], true
			g.Partial = false
		}
		g.Text = string(s)
		out = append(out, g)
	}
	return out
}

// FuzzSplitMatchesReference checks the streaming splitter against the naive
// reference for any bytes, any line cap and any read chunking.
func FuzzSplitMatchesReference(f *testing.F) {
	f.Add([]byte("a\r\nb\nc"), uint8(3), []byte{0})
	f.Add([]byte("abcd\r\nabcde\r\n\rx\n"), uint8(4), []byte{2, 0, 5})
	f.Add([]byte("\x00\xff\n\n\r\r\n"), uint8(1), []byte{1})
	f.Add(bytes.Repeat([]byte("xy\r"), 50), uint8(7), []byte{9, 3})
	// A last line of max+1 bytes ending in "\r": once cut with both
	// Partial and Truncated set, unlike every other cut line.
	f.Add([]byte("abcd\r"), uint8(3), []byte{255})
	f.Fuzz(func(t *testing.T, in []byte, maxLine uint8, sizes []byte) {
		m := int(maxLine%16) + 1
		if len(sizes) == 0 {
			sizes = []byte{255}
		}
		var out []got
		sp := newSplitter(Stdout, m, func(ls []Line) error {
			if len(ls) > BatchLines {
				t.Fatalf("batch of %d lines", len(ls))
			}
			return collect(&out)(ls)
		})
		if err := sp.run(&chunkReader{data: in, sizes: sizes}); err != nil {
			t.Fatal(err)
		}
		want := referenceLines(in, m)
		if len(out) != len(want) {
			t.Fatalf("input %q max %d: got %d lines %+v, want %d %+v", in, m, len(out), out, len(want), want)
		}
		for i := range want {
			if out[i] != want[i] {
				t.Fatalf("input %q max %d: line %d got %+v, want %+v", in, m, i, out[i], want[i])
			}
		}
	})
}
