package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pmacs-go/pmacs-go/journal"
)

// bigText is about size bytes of numbered rows with non-ASCII text.
func bigText(size int) string {
	var sb strings.Builder
	sb.Grow(size + 64)
	for i := 0; sb.Len() < size; i++ {
		fmt.Fprintf(&sb, "row %08d: the quick brown fox jumps över\n", i)
	}
	return sb.String()
}

// Acceptance (4): a 50 MB file journals its edits, not copies of itself:
// after 500 edits (typing, line breaks, deletions across the file) the
// journal is a few KiB, and replaying it on the file gives exactly the
// buffer's text. The recovery time (read, hash, decode, replay) is logged.
//
// Under the race detector the file is 8 MB: the same paths, a fifth of the
// package's time budget spared.
func TestFiftyMegabyteFileJournalsEditsAndRecoversExactly(t *testing.T) {
	e := journalEditor(t)
	size := 50 << 20
	if raceEnabled {
		size = 8 << 20
	}
	path := writeTestFile(t, "big.txt", bigText(size))
	b := openLoaded(t, e, path)
	rows := b.LineCount()
	for i := range 500 {
		row := (i * 7919) % (rows - 2)
		switch i % 5 {
		case 0:
			typeAt(t, b, row, 4, "ü")
		case 1:
			typeAt(t, b, row, 0, "new row\n")
		case 2:
			b.setCursor(pos{row, 3})
			require.NoError(t, b.deleteForward())
		case 3:
			b.setCursor(pos{row + 1, 0})
			require.NoError(t, b.deleteBack()) // joins two rows
		default:
			typeAt(t, b, row, len(b.Line(row)), " tail €")
		}
	}
	settleJournals(t, e)
	st, err := os.Stat(filepath.Join(e.jdir, journal.Name(path)))
	require.NoError(t, err)
	require.Less(t, st.Size(), int64(32<<10), "500 edits of a 50 MB file")

	start := time.Now()
	ft, _, err := readFileText(path, nil)
	require.NoError(t, err)
	read := time.Since(start)
	base := baseOf(ft)
	hashed := time.Since(start) - read
	o := findJournal(e.jdir, path, ft, base)
	replayed := time.Since(start) - read - hashed
	require.NotNil(t, o)
	require.NoError(t, o.err)
	got := string(joinText(&o.rec.lines, o.rec.eol, o.rec.crlf, o.rec.ends))
	require.False(t, o.snapshot)
	require.Equal(t, 500, o.edits)
	require.True(t, o.matches)
	require.True(t, savedForm(b) == got, "the recovered text differs from the buffer's")
	t.Logf("journal of 500 edits to a %d-byte file: %d bytes; opening it: read and split %v, hash %v, journal read, decoded and replayed %v",
		b.ByteCount(), st.Size(), read, hashed, replayed)
}

// Benchmark: the main goroutine's time per keystroke with journalling on
// and off, typing at 100 keys a second (the clock is the benchmark's:
// a write falls due every 2 s of typing, so every 200 keys), on a 64 KiB
// file (journalled as snapshots) and a 50 MB one (edits appended). Each
// key is an insert, the journal's tick, and the write it may start;
// the writes themselves run on helper goroutines.
func BenchmarkKeystrokeJournal(b *testing.B) {
	for _, size := range []int{64 << 10, 50 << 20} {
		path := filepath.Join(b.TempDir(), "f.txt")
		require.NoError(b, os.WriteFile(path, []byte(bigText(size)), 0o644))
		for _, on := range []bool{false, true} {
			b.Run(fmt.Sprintf("%dKiB/journal=%v", size>>10, on), func(b *testing.B) {
				e := journalEditor(b)
				e.journalOff = !on
				buf := openLoaded(b, e, path)
				buf.setCursor(pos{buf.LineCount() / 2, 0})
				now := time.Now()
				b.ResetTimer()
				for i := range b.N {
					if err := buf.insert("x"); err != nil {
						b.Fatal(err)
					}
					if i%40 == 39 {
						_ = buf.insert("\n")
					}
					now = now.Add(10 * time.Millisecond)
					e.journalTick(now)
					for len(e.calls) > 0 {
						(<-e.calls)()
					}
				}
				b.StopTimer()
				for buf.jn != nil && buf.jn.busy {
					runCall(b, e)
				}
			})
		}
	}
}
