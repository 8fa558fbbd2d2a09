package editor

import (
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// requireRows checks every way of reading s against want.
func requireRows(t *testing.T, want []string, s *rowStore, msg string) {
	t.Helper()
	require.Equal(t, len(want), s.len(), msg)
	require.Equal(t, want, s.all(), msg)
	for i, w := range want {
		if s.row(i) != w {
			require.Equal(t, w, s.row(i), "%s: row %d", msg, i)
		}
	}
	for _, from := range []int{0, 1, len(want) / 3, len(want) - 1} {
		if from < 0 || from > len(want) {
			continue
		}
		to := min(from+blockRows+3, len(want))
		got := []string{}
		for i, l := range s.rows(from, to) {
			require.Equal(t, from+len(got), i, msg)
			got = append(got, l)
		}
		require.Equal(t, want[from:to], got, "%s: rows [%d, %d)", msg, from, to)
	}
}

// The rows of a file as read, in every shape splitString meets: empty,
// one row, no trailing newline, CRLF, mixed endings, a CR that is text,
// and enough rows for several blocks and checkpoints.
func TestRowStoreReadsTheRowsOfATextAsSplit(t *testing.T) {
	var many strings.Builder
	for i := range 3*blockRows + 17 {
		many.WriteString("row " + strconv.Itoa(i))
		if i%5 == 0 {
			many.WriteByte('\r')
		}
		many.WriteByte('\n')
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"", []string{""}},
		{"\n", []string{""}},
		{"a", []string{"a"}},
		{"a\nb", []string{"a", "b"}},
		{"a\nb\n", []string{"a", "b"}},
		{"a\r\nb\r\n", []string{"a", "b"}},
		{"a\r\nb\nc", []string{"a", "b", "c"}},
		{"a\r", []string{"a\r"}},
		{"a\r\n\r\n\n", []string{"a", "", ""}},
	} {
		ft := splitString(tc.text)
		requireRows(t, tc.want, &ft.lines, strconv.Quote(tc.text))
		require.Equal(t, tc.text, string(joinText(&ft.lines, ft.eol, ft.crlf, ft.ends)), "%q saves back", tc.text)
	}
	text := many.String()
	ft := splitString(text)
	want := strings.Split(strings.TrimSuffix(strings.ReplaceAll(text, "\r\n", "\n"), "\n"), "\n")
	requireRows(t, want, &ft.lines, "many rows")
	require.Equal(t, text, string(joinText(&ft.lines, ft.eol, ft.crlf, ft.ends)))
}

// Issue 31 (60 MB file at 2.5x its size): the rows of a file as read are
// slices of its text, not copies, and indexing them costs well under a
// byte a row, where a []string of rows cost a 16-byte header each.
func TestRowStoreKeepsTheTextWithoutAHeaderPerRow(t *testing.T) {
	const rows = 200_000
	text := strings.Repeat("ab\n", rows)
	var m0, m1 goruntime.MemStats
	goruntime.ReadMemStats(&m0)
	ft := splitString(text)
	goruntime.ReadMemStats(&m1)
	require.Equal(t, rows, ft.lines.len())
	require.Less(t, m1.TotalAlloc-m0.TotalAlloc, uint64(rows), "bytes allocated to index %d rows", rows)

	lo, hi := uintptr(unsafe.Pointer(unsafe.StringData(text))), uintptr(unsafe.Pointer(unsafe.StringData(text)))+uintptr(len(text))
	for _, i := range []int{0, 1, rawStride - 1, rawStride, blockRows, rows - 1} {
		p := uintptr(unsafe.Pointer(unsafe.StringData(ft.lines.row(i))))
		require.True(t, p >= lo && p < hi, "row %d is a slice of the text", i)
	}
}

// Edits at and across block boundaries, inserts that grow a block past
// its limit, deletes that empty blocks, appends and single-row sets, each
// checked against a plain slice of rows.
func TestRowStoreEditsMatchASliceOfRows(t *testing.T) {
	var sb strings.Builder
	for i := range 4*blockRows + 5 {
		sb.WriteString("r" + strconv.Itoa(i) + "\n")
	}
	ft := splitString(sb.String())
	s := ft.lines
	model := s.all()
	rows := func(n int, tag string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = tag + strconv.Itoa(i)
		}
		return out
	}
	apply := func(from, to int, lines []string, what string) {
		t.Helper()
		s.replace(from, to, lines)
		model = slices.Replace(model, from, to, lines...)
		requireRows(t, model, &s, what)
	}
	apply(blockRows-1, blockRows+1, []string{"across"}, "a replace across a boundary")
	apply(blockRows, blockRows, []string{"at the boundary"}, "an insert at a boundary")
	apply(0, 0, rows(3*blockRows, "big"), "an insert past the block limit")
	apply(10, 3*blockRows, nil, "a delete emptying blocks")
	apply(s.len(), s.len(), rows(5000, "tail"), "an append")
	apply(s.len()-1, s.len(), []string{"last"}, "the last row")
	s.set(blockRows*2, "set")
	model[blockRows*2] = "set"
	requireRows(t, model, &s, "a set")

	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		from := r.IntN(s.len() + 1)
		to := min(from+r.IntN(3*blockRows), s.len())
		if r.IntN(3) == 0 {
			to = min(from+1, s.len())
		}
		apply(from, to, rows(r.IntN(2*blockRows+3), "x"+strconv.Itoa(i)+"-"), "random edit "+strconv.Itoa(i))
	}
}

// A frozen copy (what a search job reads) and a clone (a journal's
// replay) keep the text they were taken of, whatever the store does
// after, and the store's own edits are unaffected by theirs.
func TestRowStoreCopiesAreIsolated(t *testing.T) {
	var sb strings.Builder
	for i := range 3 * blockRows {
		sb.WriteString("r" + strconv.Itoa(i) + "\n")
	}
	ft := splitString(sb.String())
	s := ft.lines
	s.set(5, "edited") // a block of strings the store writes in place
	before := s.all()
	frozen := s.freeze()
	s.set(5, "again")
	s.set(6, "more")
	s.replace(blockRows, blockRows+2, []string{"one"})
	requireRows(t, before, frozen, "the frozen copy")

	now := s.all()
	c := s.clone()
	c.set(5, "clone's")
	c.replace(0, 1, nil)
	requireRows(t, now, &s, "the store after its clone's edits")
	s.set(5, "store's")
	require.Equal(t, "clone's", c.row(4))
}

// BenchmarkRowStoreRow reads a screen's worth of rows at random places of
// a text of a million rows, as a frame's draw does: from the rows found in
// the text (rowStore) and, for the anchor, from a []string of the rows.
func BenchmarkRowStoreRow(b *testing.B) {
	var sb strings.Builder
	for i := range 1_000_000 {
		sb.WriteString("\treturn b + a*" + strconv.Itoa(i) + "\n")
	}
	ft := splitString(sb.String())
	slice := ft.lines.all()
	r := rand.New(rand.NewPCG(1, 2))
	tops := make([]int, 1024)
	for i := range tops {
		tops[i] = r.IntN(len(slice) - 50)
	}
	n := 0
	b.Run("rowStore", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			top := tops[i%len(tops)]
			for row := top; row < top+50; row++ {
				n += len(ft.lines.row(row))
			}
		}
	})
	b.Run("slice", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			top := tops[i%len(tops)]
			for row := top; row < top+50; row++ {
				n += len(slice[row])
			}
		}
	})
	_ = n
}
