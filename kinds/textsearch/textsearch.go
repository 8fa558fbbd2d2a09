// Package textsearch is the text search kind: it searches a buffer's lines
// (a Snapshot the editor hands over without copying) on a worker, the rows
// a window shows first, and streams the matches as row and column triples.
package textsearch

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/pmacs-go/pmacs-go/bus/wire"
	"github.com/pmacs-go/pmacs-go/runtime"
	"github.com/pmacs-go/pmacs-go/workers"
)

// Kind is the text search kind ("text_search").
var Kind = runtime.RegisterKind(runtime.KindSpec{Name: "text_search", Items: matchesCodec{}})

// Matches is a text search batch: three integers a match, its 0-based row
// and its start and end byte columns (end exclusive).
type Matches []uint64

// MatchesOf returns a batch's matches; nil for a batch of another kind.
func MatchesOf(b runtime.StreamBatch) Matches {
	v, _ := b.Items.(Matches)
	return v
}

func (m Matches) Len() int    { return len(m) }
func (m Matches) Weight() int { return len(m) }

func (m Matches) Append(more runtime.Items) runtime.Items { return append(m, more.(Matches)...) }

func (m Matches) Cut(n int) (head, rest runtime.Items) { return m[:n:n], m[n:] }

type matchesCodec struct{}

func (matchesCodec) EncodeItems(e *msgpack.Encoder, items runtime.Items) error {
	return wire.EncodeUints(e, items.(Matches))
}

func (matchesCodec) DecodeItems(_ []byte, d *msgpack.Decoder) (runtime.Items, error) {
	v, err := wire.DecodeUints(d, 3*batchMatches)
	if err != nil {
		return nil, err
	}
	return Matches(v), nil
}

// Lines is a text's rows, without their line breaks, as an owner keeps
// them: Row(i) for 0 <= i < Len(), and Rows to walk a range in order
// (cheaper than Row each time for a store that finds rows by scanning).
// A Lines in a Snapshot is read from other goroutines and must not
// change.
type Lines interface {
	Len() int
	Row(i int) string
	Rows(from, to int) iter.Seq2[int, string]
}

// SliceLines is a Lines of a slice of strings.
type SliceLines []string

// Len is the number of rows.
func (s SliceLines) Len() int { return len(s) }

// Row is row i, 0 <= i < Len().
func (s SliceLines) Row(i int) string { return s[i] }

// Rows walks rows from..to-1 in order, the range cut to the rows there are.
func (s SliceLines) Rows(from, to int) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i := max(from, 0); i < min(to, len(s)); i++ {
			if !yield(i, s[i]) {
				return
			}
		}
	}
}

// Snapshot is a text handed to a worker without copying it: its Lines,
// which the worker reads while the owner goes on. What the owner promises
// is not to change them while InUse reports true; an editor hands over a
// frozen copy of its row store, or (NewSnapshot) a slice it replaces (copy
// on write) before its next edit instead of writing into it. A slice is
// cut to its length, so appending to the owner's slice never reaches it.
type Snapshot struct {
	lines   Lines
	readers atomic.Int32
	retired atomic.Bool
}

// NewSnapshot wraps lines; see Snapshot for the promise it asks.
func NewSnapshot(lines []string) *Snapshot {
	return &Snapshot{lines: SliceLines(lines[:len(lines):len(lines)])}
}

// NewSnapshotOf wraps lines an owner keeps in a store of its own (an
// editor's rows found in the file's text), which must not change once
// wrapped.
func NewSnapshotOf(lines Lines) *Snapshot { return &Snapshot{lines: lines} }

// Len returns the number of lines.
func (s *Snapshot) Len() int { return s.lines.Len() }

// InUse reports whether a job dispatched on the snapshot may still read
// it. It turns false when the last such job's worker is done with it, or
// when a job cancelled before its worker started has been told so.
func (s *Snapshot) InUse() bool { return s.readers.Load() > 0 }

// Retire marks the snapshot as no longer the owner's text: its owner is
// about to write into the slice in place (InUse being false). A search
// dispatched on it afterwards fails instead of racing that write. Call it
// on the goroutine that dispatches.
func (s *Snapshot) Retire() { s.retired.Store(true) }

// Hold lends the snapshot's lines to a job of another kind (a diff of the
// text): the snapshot is in use until release is called (the first call
// counts; later ones do nothing), so the owner does not write into the
// lines meanwhile. A retired snapshot fails. Call it on the goroutine
// that dispatches, as Dispatch checks retirement there.
func (s *Snapshot) Hold() (rows iter.Seq[string], release func(), err error) {
	if s.retired.Load() {
		return nil, nil, fmt.Errorf("%w: the text changed since the snapshot was taken", ErrSpec)
	}
	s.readers.Add(1)
	var once sync.Once
	lines := s.lines
	rows = func(yield func(string) bool) {
		for _, l := range lines.Rows(0, lines.Len()) {
			if !yield(l) {
				return
			}
		}
	}
	return rows, func() { once.Do(func() { s.readers.Add(-1) }) }, nil
}

// DefaultMax is how many matches a text search delivers when its
// spec names no limit. It keeps counting past it.
const DefaultMax = 100_000

// Spec says what a text search looks for and where first.
type Spec struct {
	Text       *Snapshot
	Pattern    string
	Regex      bool // Pattern is RE2 syntax; otherwise it is literal
	IgnoreCase bool
	// FirstRow and EndRow bound the rows searched first ([FirstRow,
	// EndRow), 0-based): the rows a window shows, so they highlight in the
	// first batch whatever the text's size. Out-of-range values are
	// clamped; EndRow <= FirstRow means no such window.
	FirstRow, EndRow int
	// MaxResults caps the matches delivered (0: DefaultMax); the
	// count in the progress goes on past it.
	MaxResults int
	// Index, when set, is filled with the whole text's count of matches
	// by block of rows (see Index): the owner's exact count, index and
	// next match past what the stream delivers. A fresh one per search.
	Index *Index
}

// ErrSpec is wrapped by a text search's failure for a spec that
// cannot run: no snapshot, an empty pattern, an invalid regex.
var ErrSpec = errors.New("textsearch: invalid text search")

// batchMatches is how many matches go into one envelope.
const batchMatches = 4096

// Dispatch starts a streaming search of spec.Text in the read
// lane of runtime.BuiltinActor. Items are Matches, three integers a match: the 0-based row,
// the start and the end byte column (end exclusive); empty matches are
// skipped. The window's rows come first, then the rest of the text from the
// top, each part in text order. Progress is the number of matches found so
// far, and the closing batch's Progress the total, also past MaxResults.
// The stream's batches hold whole matches (its max batch is rounded down to
// a multiple of three).
func Dispatch(rt *runtime.Runtime, spec Spec, o runtime.DispatchOptions) runtime.JobID {
	mb := o.MaxBatch
	if mb == 0 {
		mb = rt.DefaultMaxBatch()
	}
	mb = min(max(mb, runtime.MinMaxBatch), runtime.MaxMaxBatch)
	o.MaxBatch = max(mb-mb%3, 3)
	// Retirement is checked here, on the dispatching goroutine, since
	// the owner may write into a retired snapshot's lines at any time.
	checkErr := spec.Check()
	if checkErr == nil && spec.Index != nil {
		checkErr = spec.Index.claim()
		if checkErr != nil {
			checkErr = fmt.Errorf("%w: %w", ErrSpec, checkErr)
		}
	}
	// claim says who gives the snapshot back: the worker once it is done
	// reading, or, for a job cancelled before its worker started (a
	// keystroke superseding it), the cancel itself.
	var claim atomic.Int32 // 0 not started, 1 reading, 2 given back
	job := runtime.Job{Kind: Kind, Actor: runtime.BuiltinActor, Lane: workers.LaneRead, Stream: true,
		Run: func(ctx context.Context, w *runtime.Task) (any, error) {
			if checkErr != nil {
				return nil, checkErr
			}
			if !claim.CompareAndSwap(0, 1) {
				return nil, context.Canceled
			}
			defer func() {
				claim.Store(2)
				spec.Text.readers.Add(-1)
			}()
			return nil, runTextSearch(ctx, spec, func(ints []uint64, found uint64) error {
				w.Progress(found, nil)
				if len(ints) == 0 {
					return nil
				}
				return w.Send(ctx, Matches(ints))
			})
		}}
	if checkErr == nil {
		spec.Text.readers.Add(1)
		job.Prepare = func(t *runtime.Task) {
			context.AfterFunc(t.Context(), func() {
				if claim.CompareAndSwap(0, 2) {
					spec.Text.readers.Add(-1)
				}
			})
		}
	}
	return rt.Start(job, o)
}

// Check reports what Dispatch would fail the job for, so a
// binding can raise it at the call instead.
func (s Spec) Check() error {
	if s.Index != nil && s.Index.claimed.Load() {
		return fmt.Errorf("%w: %w", ErrSpec, errIndexUsed)
	}
	_, err := newTextMatcher(s)
	return err
}

// textMatcher finds the matches of one line as [start, end) byte spans.
type textMatcher func(line string, fn func(s, e int))

func newTextMatcher(spec Spec) (textMatcher, error) {
	if spec.Text == nil {
		return nil, fmt.Errorf("%w: no text snapshot", ErrSpec)
	}
	if spec.Text.retired.Load() {
		return nil, fmt.Errorf("%w: the text changed since the snapshot was taken", ErrSpec)
	}
	if spec.Pattern == "" {
		return nil, fmt.Errorf("%w: empty pattern", ErrSpec)
	}
	if !spec.Regex && !spec.IgnoreCase {
		p := spec.Pattern
		return func(line string, fn func(s, e int)) {
			for off := 0; ; {
				i := strings.Index(line[off:], p)
				if i < 0 {
					return
				}
				fn(off+i, off+i+len(p))
				off += i + len(p)
			}
		}, nil
	}
	if !spec.Regex && isASCII(spec.Pattern) {
		return asciiFoldMatcher(spec.Pattern), nil
	}
	src := spec.Pattern
	if !spec.Regex {
		src = regexp.QuoteMeta(src)
	}
	if spec.IgnoreCase {
		src = "(?i)" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSpec, err)
	}
	return func(line string, fn func(s, e int)) {
		for _, m := range re.FindAllStringIndex(line, -1) {
			if m[1] > m[0] {
				fn(m[0], m[1])
			}
		}
	}, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiFoldMatcher matches an ASCII pattern ignoring ASCII case, without a
// regex: the common smart-case search stays a byte scan. A non-ASCII rune
// in the line never matches an ASCII pattern byte, so byte offsets stay on
// rune boundaries.
func asciiFoldMatcher(p string) textMatcher {
	lower := strings.ToLower(p)
	first := lower[0]
	firstUp := byte(unicode.ToUpper(rune(first)))
	return func(line string, fn func(s, e int)) {
		for i := 0; i+len(lower) <= len(line); i++ {
			c := line[i]
			if c != first && c != firstUp {
				continue
			}
			if foldEqualASCII(line[i:i+len(lower)], lower) {
				fn(i, i+len(lower))
				i += len(lower) - 1
			}
		}
	}
}

func foldEqualASCII(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// runTextSearch searches the window's rows, then the others from the top,
// calling send with each full batch and the count so far, and once at the
// end with what is left. It polls ctx every 1024 rows.
func runTextSearch(ctx context.Context, spec Spec, send func(ints []uint64, found uint64) error) error {
	match, err := newTextMatcher(spec)
	if err != nil {
		return err
	}
	lines := spec.Text.lines
	limit := uint64(spec.MaxResults)
	if limit == 0 {
		limit = DefaultMax
	}
	n := lines.Len()
	first := min(max(spec.FirstRow, 0), n)
	end := min(max(spec.EndRow, first), n)
	var found uint64
	idx := spec.Index
	if idx != nil {
		idx.start(match, lines)
	}
	batch := make([]uint64, 0, 3*64)
	// One callback for every row: a closure made per row (it captures the
	// row) was 48 bytes of garbage a row, 250 MB a search of a 60 MB file.
	var row int
	onMatch := func(s, e int) {
		found++
		if idx != nil {
			idx.blocks[row/IndexBlock]++
		}
		if found <= limit {
			batch = append(batch, uint64(row), uint64(s), uint64(e))
		}
	}
	scan := func(from, to int) error {
		for r, line := range lines.Rows(from, to) {
			row = r
			if row&1023 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			match(line, onMatch)
			if len(batch) >= 3*batchMatches {
				if err := send(batch, found); err != nil {
					return err
				}
				batch = make([]uint64, 0, 3*batchMatches)
			}
		}
		return nil
	}
	// The window first, sent at once however few: those are the matches
	// the user is looking at.
	if err := scan(first, end); err != nil {
		return err
	}
	if err := send(batch, found); err != nil {
		return err
	}
	batch = make([]uint64, 0, 3*batchMatches)
	if err := scan(0, first); err != nil {
		return err
	}
	if err := scan(end, n); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// Published before the closing batch, so the owner that sees the
	// stream end finds the index done.
	if idx != nil {
		idx.finish(found)
	}
	return send(batch, found)
}
