package runtime

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/pmacs-go/pmacs-go/workers"
)

// TextSnapshot is a text handed to a worker without copying it: its lines,
// which are Go strings and so immutable. What the owner promises is not to
// write into the slice's elements while InUse reports true; an editor
// replaces the slice (copy on write) before its first edit instead. The
// snapshot is cut to its length, so appending to the owner's slice never
// reaches it.
type TextSnapshot struct {
	lines   []string
	readers atomic.Int32
	retired atomic.Bool
}

// NewTextSnapshot wraps lines; see TextSnapshot for the promise it asks.
func NewTextSnapshot(lines []string) *TextSnapshot {
	return &TextSnapshot{lines: lines[:len(lines):len(lines)]}
}

// Len returns the number of lines.
func (s *TextSnapshot) Len() int { return len(s.lines) }

// InUse reports whether a job dispatched on the snapshot may still read
// it. It turns false when the last such job's worker is done with it, or
// when a job cancelled before its worker started has been told so.
func (s *TextSnapshot) InUse() bool { return s.readers.Load() > 0 }

// Retire marks the snapshot as no longer the owner's text: its owner is
// about to write into the slice in place (InUse being false). A search
// dispatched on it afterwards fails instead of racing that write. Call it
// on the goroutine that dispatches.
func (s *TextSnapshot) Retire() { s.retired.Store(true) }

// DefaultTextSearchMax is how many matches a text search delivers when its
// spec names no limit. It keeps counting past it.
const DefaultTextSearchMax = 100_000

// TextSearchSpec says what a text search looks for and where first.
type TextSearchSpec struct {
	Text       *TextSnapshot
	Pattern    string
	Regex      bool // Pattern is RE2 syntax; otherwise it is literal
	IgnoreCase bool
	// FirstRow and EndRow bound the rows searched first ([FirstRow,
	// EndRow), 0-based): the rows a window shows, so they highlight in the
	// first batch whatever the text's size. Out-of-range values are
	// clamped; EndRow <= FirstRow means no such window.
	FirstRow, EndRow int
	// MaxResults caps the matches delivered (0: DefaultTextSearchMax); the
	// count in the progress goes on past it.
	MaxResults int
}

// ErrTextSearchSpec is wrapped by a text search's failure for a spec that
// cannot run: no snapshot, an empty pattern, an invalid regex.
var ErrTextSearchSpec = errors.New("runtime: invalid text search")

// textSearchBatch is how many matches go into one envelope.
const textSearchBatch = 4096

// DispatchTextSearch starts a streaming search of spec.Text in the read
// lane of BuiltinActor. Items are Ints, three per match: the 0-based row,
// the start and the end byte column (end exclusive); empty matches are
// skipped. The window's rows come first, then the rest of the text from the
// top, each part in text order. Progress is the number of matches found so
// far, and the closing batch's Progress the total, also past MaxResults.
// The stream's batches hold whole matches (its max batch is rounded down to
// a multiple of three).
func (rt *Runtime) DispatchTextSearch(spec TextSearchSpec, o DispatchOptions) JobID {
	j := rt.newJob(KindTextSearch, o.Key)
	mb := o.MaxBatch
	if mb == 0 {
		mb = rt.defaultMaxBatch
	}
	mb = clampBatch(mb)
	rt.newStream(j, max(mb-mb%3, 3))
	// Retirement is checked here, on the dispatching goroutine, since
	// the owner may write into a retired snapshot's lines at any time.
	checkErr := spec.Check()
	// claim says who gives the snapshot back: the worker once it is done
	// reading, or, for a job cancelled before its worker started (a
	// keystroke superseding it), the cancel itself.
	var claim atomic.Int32 // 0 not started, 1 reading, 2 given back
	if checkErr == nil {
		spec.Text.readers.Add(1)
		j.t.ctx.AfterFunc(func() {
			if claim.CompareAndSwap(0, 2) {
				spec.Text.readers.Add(-1)
			}
		})
	}
	return rt.start(j, BuiltinActor, workers.LaneRead, func(ctx context.Context, w *Task) reply {
		if checkErr != nil {
			return terminal(ctx, checkErr, "")
		}
		if !claim.CompareAndSwap(0, 1) {
			return reply{Kind: replyCancelled}
		}
		defer func() {
			claim.Store(2)
			spec.Text.readers.Add(-1)
		}()
		if err := runTextSearch(ctx, spec, func(ints []uint64, found uint64) error {
			w.send(reply{Kind: replyProgress, N: found})
			if len(ints) == 0 {
				return nil
			}
			return w.sendItems(ctx, &reply{Kind: replyInts, Ints: ints})
		}); err != nil {
			return terminal(ctx, err, "")
		}
		return reply{Kind: replyClosed}
	})
}

// Check reports what DispatchTextSearch would fail the job for, so a
// binding can raise it at the call instead.
func (s TextSearchSpec) Check() error {
	_, err := newTextMatcher(s)
	return err
}

// textMatcher finds the matches of one line as [start, end) byte spans.
type textMatcher func(line string, fn func(s, e int))

func newTextMatcher(spec TextSearchSpec) (textMatcher, error) {
	if spec.Text == nil {
		return nil, fmt.Errorf("%w: no text snapshot", ErrTextSearchSpec)
	}
	if spec.Text.retired.Load() {
		return nil, fmt.Errorf("%w: the text changed since the snapshot was taken", ErrTextSearchSpec)
	}
	if spec.Pattern == "" {
		return nil, fmt.Errorf("%w: empty pattern", ErrTextSearchSpec)
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
		return nil, fmt.Errorf("%w: %w", ErrTextSearchSpec, err)
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
func runTextSearch(ctx context.Context, spec TextSearchSpec, send func(ints []uint64, found uint64) error) error {
	match, err := newTextMatcher(spec)
	if err != nil {
		return err
	}
	lines := spec.Text.lines
	limit := uint64(spec.MaxResults)
	if limit == 0 {
		limit = DefaultTextSearchMax
	}
	first := min(max(spec.FirstRow, 0), len(lines))
	end := min(max(spec.EndRow, first), len(lines))
	var found uint64
	batch := make([]uint64, 0, 3*64)
	scan := func(from, to int) error {
		for row := from; row < to; row++ {
			if row&1023 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			match(lines[row], func(s, e int) {
				found++
				if found <= limit {
					batch = append(batch, uint64(row), uint64(s), uint64(e))
				}
			})
			if len(batch) >= 3*textSearchBatch {
				if err := send(batch, found); err != nil {
					return err
				}
				batch = make([]uint64, 0, 3*textSearchBatch)
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
	batch = make([]uint64, 0, 3*textSearchBatch)
	if err := scan(0, first); err != nil {
		return err
	}
	if err := scan(end, len(lines)); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return send(batch, found)
}
